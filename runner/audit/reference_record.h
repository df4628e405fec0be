// The reference scorer's --json records, bare or wrapped as {returncode, stdout, stderr,
// record}: the calls re-judged under the rule set, the energy column recomputed from its
// windows, and, for a wrapped record, the exit status and the printed output held against it.
#ifndef RATCHET_AUDIT_REFERENCE_RECORD_H_
#define RATCHET_AUDIT_REFERENCE_RECORD_H_

#include <optional>
#include <string>

#include "audit/result.h"
#include "core/canonical_json.h"
#include "core/status.h"
#include "rules/rule_set.h"

namespace ratchet {

enum class RecordShape {
  kNone,     // neither
  kBare,     // {"version", "file", "function", "calls", ...}
  kWrapped,  // {"returncode", "stdout", "stderr", "record"?, ...}
};
RecordShape ShapeOf(const Json& document);

// The submission file a record names ("file"), when the document holds one.
std::optional<std::string> RecordFileName(const Json& document);
// The scorer version a record names ("version"), when the document holds one: it says which
// rule set judges the record.
std::optional<std::string> RecordVersion(const Json& document);

struct SubmissionFile {
  std::string path;  // where it was found, for messages
  std::string bytes;
};

// The rule set that judges the record in `document`, read from the file called `name`: the
// embedded one whose version string is the record's (the default when the document names none:
// a wrapper without a record, a damaged record). A version no embedded rule set has is BadInput:
// the record's own rule set must be given with --rules. Sets `result->rules` to say which.
Result<RuleSet> RuleSetForRecord(const Json& document, const std::string& name,
                                 AuditResult* result);

// Audits the record in `document`, read from the file called `name` (findings begin with it).
// A record of another scorer version than `rules.version` is BadInput: it can only be judged
// under its own rules. `submission`: the file the record says it scored, when one was found.
Status AuditReferenceRecord(const Json& document, const std::string& name, const RuleSet& rules,
                            const std::optional<SubmissionFile>& submission, AuditResult* result);

}  // namespace ratchet

#endif  // RATCHET_AUDIT_REFERENCE_RECORD_H_
