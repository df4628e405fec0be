// `ratchet audit`: whether a published claim stands, decided from its evidence alone. It reads
// ratchet's evidence directories and the reference scorer's --json records (bare, or wrapped as
// {returncode, stdout, stderr, record}) and re-derives every figure the claim rests on.
// docs/audit.md lists the checks.
#ifndef RATCHET_AUDIT_AUDIT_H_
#define RATCHET_AUDIT_AUDIT_H_

#include <optional>
#include <string>

#include "audit/result.h"
#include "core/status.h"

namespace ratchet {

struct AuditOptions {
  std::optional<std::string> data_dir;  // searched first for the datasets (labels re-counted)
  // --rules: the id of an embedded rule set or a rule-set file. nullopt: the embedded one whose
  // sha256 an evidence directory's contract locks, or whose version a record names.
  std::optional<std::string> rules_path;
  // The file a reference record scored; by default its `file` name is looked for beside the
  // record and in the two folders above it.
  std::optional<std::string> submission;
};

// Audits `path`: an evidence directory (or the hidden partial folder of one) or a JSON file
// holding a reference record. Input that is none of these, or that was judged under a rule set
// other than the one given (or, with none given, than every embedded one), is BadInput or
// Usage; a file that cannot be read is an IOError. What is wrong with the claim itself is in
// the result's findings; the result's `rules` says which rule set judged it.
Result<AuditResult> Audit(const std::string& path, const AuditOptions& options);

}  // namespace ratchet

#endif  // RATCHET_AUDIT_AUDIT_H_
