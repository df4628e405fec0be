// The one verification every consumer of a run's evidence passes through before it trusts,
// signs or shows anything (docs/design.md, "Verified evidence"): the audit, of an evidence
// directory (audit/evidence.h) or of a sharded run (shard/verify.h), after the tree is
// walked as every directory a user hands the tool is (baseline/input_file.h). Its result holds
// the findings and the records as re-derived from their calls; a consumer shows and counts those,
// never what a file of the evidence says of itself.
#ifndef RATCHET_SHARD_VERIFIED_EVIDENCE_H_
#define RATCHET_SHARD_VERIFIED_EVIDENCE_H_

#include <string>
#include <vector>

#include "audit/evidence.h"
#include "audit/result.h"
#include "core/status.h"

namespace ratchet {

// Verifies `dir`, a direct run's evidence directory or a sharded run's directory. Errors: a tree
// the walk refuses or that is no run's evidence (BadInput), a rule set that is not the one the
// evidence locks (Usage), a harness fault (datasets). Whatever is wrong with the evidence itself
// is a finding; `verdict()` says whether it stands.
Result<AuditResult> VerifyEvidence(const std::string& dir, const EvidenceAuditOptions& options);

// VerifyEvidence for a consumer that shows evidence (a report, a comparison): evidence no rule set
// here can judge is a result that does not stand, its one finding saying why ("it cannot be
// verified here: ..."), instead of an error; the other errors are VerifyEvidence's.
Result<AuditResult> VerifyEvidenceToShow(const std::string& dir,
                                         const EvidenceAuditOptions& options);

// The findings that break `result`, each "WHERE: WHAT" (or "WHAT" where it names no file), in
// their order.
std::vector<std::string> BreakingFindingLines(const AuditResult& result);

// "DIR does not stand (...: N findings, the first: FILE: WHAT)": a consumer's refusal, on one
// line (the finding as compare/terminal_text.h shows text from outside).
std::string DoesNotStand(const AuditResult& result);

}  // namespace ratchet

#endif  // RATCHET_SHARD_VERIFIED_EVIDENCE_H_
