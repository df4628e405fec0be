// What happens to a submission before any worker: its size is checked, a Python file passes the
// source rules (check_source.py, sandboxed), a native file is compiled (sandboxed, cached by the
// sha256 of its source, the toolchain and the compile's limits). A submission that fails here is
// disqualified and never runs: rule `source`, or the compile limit it went past (compile-time,
// compile-memory, compile-output, processes).
#ifndef RATCHET_SCORER_PREPARE_H_
#define RATCHET_SCORER_PREPARE_H_

#include <optional>
#include <string>
#include <vector>

#include "core/status.h"
#include "rules/rule_set.h"
#include "scorer/run.h"

namespace ratchet {

struct Prepared {
  Submission submission;  // with function resolved and, native, library built
  std::string source_sha256;
  std::vector<std::string> review_flags;
  std::optional<CallFailure> failure;  // the file was not run (source, or a compile limit)
};

// `spec` is FILE or FILE:function (a Python file's single top-level function when none is
// named); a .cpp file is native. `python` is the interpreter for the checker (Python files).
Result<Prepared> PrepareSubmission(const std::string& spec, const RuleSet& rules,
                                   const std::string& python,
                                   const std::vector<std::string>& covered);

// A compiler's output with only what it says of the submission: a diagnostic located in another
// file (a header the source included, or a file it named to read its bytes) is left out with
// the lines it quotes, and counted; `source`, the name the compile saw, reads as `name`.
std::string CompilerMessagesOfSubmission(const std::string& output, const std::string& source,
                                         const std::string& name);

}  // namespace ratchet

#endif  // RATCHET_SCORER_PREPARE_H_
