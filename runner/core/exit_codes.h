// The exit codes of every ratchet program (README, "Exit codes"), and the one place a Status
// becomes a message on the terminal and an exit code.
#ifndef RATCHET_CORE_EXIT_CODES_H_
#define RATCHET_CORE_EXIT_CODES_H_

#include <iosfwd>

#include "core/status.h"

namespace ratchet {

enum ExitCode {
  kExitSuccess = 0,   // as expected
  kExitFinding = 1,   // a ratchet or audit finding, a disqualification
  kExitBadInput = 2,  // bad usage or input
  kExitHarness = 3,   // the harness could not do its work (no dataset, no worker, no GPU)
  kExitInterrupted = 130,
};

ExitCode ExitCodeFor(const Status& status);

// "ratchet COMMAND: error: MESSAGE" on `err` (and, for a usage error, where the options are
// described), and the exit code the Status maps to.
int ReportError(std::ostream& err, const char* command, const Status& status);

}  // namespace ratchet

#endif  // RATCHET_CORE_EXIT_CODES_H_
