// One record of an evidence directory's report.json audited: its report entry (and its rerun's),
// every run the entry lists (AuditRun), the outcome, ranked time and energy the entry claims
// re-derived from those runs, and no run folder left unlisted. Internal to the audit: the list of
// checks of a whole directory (AuditEvidence) runs it once per record.
#ifndef RATCHET_AUDIT_EVIDENCE_RECORD_H_
#define RATCHET_AUDIT_EVIDENCE_RECORD_H_

#include <optional>
#include <string>

#include "audit/evidence_run.h"
#include "audit/result.h"
#include "core/canonical_json.h"
#include "core/status.h"

namespace ratchet {

// Audits records.<id> of report.json (`record`), whose first run is numbered `first_run`. Adds the
// record's claim to result->claims and, when every run could be re-judged, what they re-derive to
// result->records. nullopt when the record makes no claim that counts (an id that names no
// folder, an entry too damaged to say what it claims: findings say why); else whether its last
// scoring qualified. Errors as AuditRun's.
Result<std::optional<bool>> AuditRecord(EvidenceContext& context, const std::string& id,
                                        const Json& record, int first_run, AuditResult* result);

}  // namespace ratchet

#endif  // RATCHET_AUDIT_EVIDENCE_RECORD_H_
