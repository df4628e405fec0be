#include "cli/interrupt.h"

#include <time.h>

#include <atomic>

namespace ratchet {
namespace {

std::atomic<bool> g_forwarded{false};
std::atomic<pid_t> g_child{-1};

// A terminal's Ctrl-C reaches the child anyway; a signal sent to the tool alone does not.
void ForwardSignal(int signal_number) {
  g_forwarded.store(true);
  const pid_t child = g_child.load();
  if (child > 0) kill(child, signal_number);
}

}  // namespace

InterruptHold::InterruptHold() {
  sigemptyset(&held_);
  sigaddset(&held_, SIGINT);
  sigaddset(&held_, SIGTERM);
  sigaddset(&held_, SIGHUP);
  pthread_sigmask(SIG_BLOCK, &held_, &previous_);
}

InterruptHold::~InterruptHold() {
  // Taken off the pending set first: unblocked, a held SIGTERM would still end the process.
  const timespec now = {0, 0};
  while (sigtimedwait(&held_, nullptr, &now) > 0) {
  }
  pthread_sigmask(SIG_SETMASK, &previous_, nullptr);
}

int InterruptHold::Count() const {
  const timespec now = {0, 0};
  while (sigtimedwait(&held_, nullptr, &now) > 0) ++count_;
  return count_;
}

SignalForwarding::SignalForwarding(pid_t child) {
  g_forwarded.store(false);
  g_child.store(child);
  struct sigaction forward = {};
  forward.sa_handler = ForwardSignal;
  forward.sa_flags = SA_RESTART;
  sigaction(SIGINT, &forward, &old_int_);
  sigaction(SIGTERM, &forward, &old_term_);
  struct sigaction ignore = {};
  ignore.sa_handler = SIG_IGN;
  sigaction(SIGPIPE, &ignore, &old_pipe_);
}

SignalForwarding::~SignalForwarding() {
  g_child.store(-1);
  sigaction(SIGINT, &old_int_, nullptr);
  sigaction(SIGTERM, &old_term_, nullptr);
  sigaction(SIGPIPE, &old_pipe_, nullptr);
}

void SignalForwarding::ChildExited() { g_child.store(-1); }

bool InterruptForwarded() { return g_forwarded.load(); }

}  // namespace ratchet
