// The exit codes of every ratchet command (ARCHITECTURE.md section 11, README "Exit codes").
#ifndef RATCHET_CLI_EXIT_CODES_H_
#define RATCHET_CLI_EXIT_CODES_H_

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

}  // namespace ratchet

#endif  // RATCHET_CLI_EXIT_CODES_H_
