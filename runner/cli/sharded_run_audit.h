// The audit of a sharded run's directory (cli/sharded_run.h): every shard audited as an evidence
// directory of its own, and what binds the shards into one run re-derived: each shard's id from
// its work, its seed from the revealed run seed, its contract's locked part equal to the run's,
// the manifest over them, and each record's outcome and time from its shards' runs.
#ifndef RATCHET_CLI_SHARDED_RUN_AUDIT_H_
#define RATCHET_CLI_SHARDED_RUN_AUDIT_H_

#include <string>

#include "audit/evidence.h"
#include "audit/result.h"
#include "core/status.h"

namespace ratchet {

// Errors as AuditEvidence's: what is not a sharded run (BadInput), a rule set that is not the
// one the shards lock (Usage). What is wrong with the run is in `result`'s findings; its records
// are those re-derived from the shards (first scoring and second, by record).
Status AuditShardedRun(const std::string& dir, const EvidenceAuditOptions& options,
                       AuditResult* result);

}  // namespace ratchet

#endif  // RATCHET_CLI_SHARDED_RUN_AUDIT_H_
