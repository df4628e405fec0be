// Running a trusted helper program (an interpreter probe, the compiler's version) and capturing
// what it prints. Untrusted code never goes through here: it runs under runner/sandbox.
#ifndef RATCHET_CORE_SUBPROCESS_H_
#define RATCHET_CORE_SUBPROCESS_H_

#include <string>
#include <vector>

#include "core/status.h"

namespace ratchet {

struct ProcessResult {
  int exit_code = -1;  // the exit status, or 128 + the signal that ended it
  std::string out;
  std::string err;
};

// Runs argv (argv[0] found on PATH when it has no '/'), stdin from /dev/null, until it exits or
// `timeout_s` passes (then it is killed and the result is an error naming argv[0]).
Result<ProcessResult> RunProcess(const std::vector<std::string>& argv, double timeout_s);

// Every executable file called `name` in the folders of $PATH, in order.
std::vector<std::string> FindAllOnPath(const std::string& name);

}  // namespace ratchet

#endif  // RATCHET_CORE_SUBPROCESS_H_
