#include "cli/interrupt.h"

#include <time.h>

namespace ratchet {

InterruptHold::InterruptHold() {
  sigemptyset(&held_);
  sigaddset(&held_, SIGINT);
  sigaddset(&held_, SIGTERM);
  pthread_sigmask(SIG_BLOCK, &held_, &previous_);
}

InterruptHold::~InterruptHold() {
  // Taken off the pending set first: unblocked, a held SIGTERM would still end the process.
  const timespec now = {0, 0};
  while (sigtimedwait(&held_, nullptr, &now) > 0) {
  }
  pthread_sigmask(SIG_SETMASK, &previous_, nullptr);
}

bool InterruptHold::Interrupted() const {
  sigset_t pending;
  if (sigpending(&pending) != 0) return false;
  return sigismember(&pending, SIGINT) == 1 || sigismember(&pending, SIGTERM) == 1;
}

}  // namespace ratchet
