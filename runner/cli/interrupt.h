// Holding SIGINT and SIGTERM while a command makes output that must be whole or absent: the
// signals stay pending instead of ending the process midway, and the command asks at safe points
// whether one came, removes what it had begun, and exits 130 (kExitInterrupted).
#ifndef RATCHET_CLI_INTERRUPT_H_
#define RATCHET_CLI_INTERRUPT_H_

#include <signal.h>

namespace ratchet {

class InterruptHold {
 public:
  // Blocks SIGINT and SIGTERM in the calling thread (and so in the threads it starts later).
  InterruptHold();
  // Discards the held signals (the command has answered them by now) and restores the mask.
  ~InterruptHold();
  InterruptHold(const InterruptHold&) = delete;
  InterruptHold& operator=(const InterruptHold&) = delete;

  // Whether SIGINT or SIGTERM has come since the hold began.
  bool Interrupted() const;

 private:
  sigset_t held_;
  sigset_t previous_;
};

}  // namespace ratchet

#endif  // RATCHET_CLI_INTERRUPT_H_
