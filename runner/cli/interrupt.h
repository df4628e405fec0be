// How the tool answers SIGINT and SIGTERM. While a command makes output that must be whole or
// absent, it holds them and SIGHUP (InterruptHold): they stay pending instead of ending the
// process midway, and the command asks at safe points whether one came, removes what it had
// begun, and exits 130 (kExitInterrupted). While the scorer runs, it passes them on (SignalForwarding): the scorer
// stops at its next step and finishes its own folder, and the tool exits as the scorer did.
#ifndef RATCHET_CLI_INTERRUPT_H_
#define RATCHET_CLI_INTERRUPT_H_

#include <signal.h>
#include <sys/types.h>

namespace ratchet {

class InterruptHold {
 public:
  // Blocks SIGINT, SIGTERM and SIGHUP in the calling thread (and so in the threads it starts
  // later).
  InterruptHold();
  // Discards the held signals (the command has answered them by now) and restores the mask.
  ~InterruptHold();
  InterruptHold(const InterruptHold&) = delete;
  InterruptHold& operator=(const InterruptHold&) = delete;

  // Whether SIGINT, SIGTERM or SIGHUP has come since the hold began.
  bool Interrupted() const { return Count() > 0; }
  // How many of them have come since the hold began (one pending signal of a kind counts once:
  // each look takes the pending ones off and counts them, so a second Ctrl-C counts again).
  int Count() const;

 private:
  sigset_t held_;
  sigset_t previous_;
  mutable int count_ = 0;
};

// One at a time, in the tool's main thread.
class SignalForwarding {
 public:
  // From here on SIGINT and SIGTERM are noted (InterruptForwarded) and sent on to `child`, and
  // SIGPIPE is ignored: a write to a child that died fails with EPIPE instead of ending the tool.
  // Installed after the fork, so that the child keeps the default dispositions.
  explicit SignalForwarding(pid_t child);
  // Puts back the dispositions it replaced.
  ~SignalForwarding();
  SignalForwarding(const SignalForwarding&) = delete;
  SignalForwarding& operator=(const SignalForwarding&) = delete;

  // The child has exited and is about to be reaped: its pid is forgotten first, since once
  // reaped it may name another process.
  void ChildExited();

 private:
  struct sigaction old_int_ = {}, old_term_ = {}, old_pipe_ = {};
};

// Whether SIGINT or SIGTERM came while the latest SignalForwarding was in place (it may have
// ended since): a child that stopped then was interrupted.
bool InterruptForwarded();

}  // namespace ratchet

#endif  // RATCHET_CLI_INTERRUPT_H_
