// The verification of a sharded run (shard/sharded_run.h), one shard at a time and whole. A shard
// is verified as every consumer needs it (the scheduler after each attempt, --resume for each
// shard it keeps, collect before it counts one, the audit): audited as an evidence directory of
// its own, its outcome and time re-derived from its calls, and bound to its run (its id from its
// work, its seed from the run seed, its contract's locked part, its report's shard member, one
// record and one run of the shard's submission, the run's signing key). The run whole adds what
// binds the shards into one run: the manifest over them, the run's signature, and each record's
// outcome and time from its shards' runs.
#ifndef RATCHET_SHARD_VERIFY_H_
#define RATCHET_SHARD_VERIFY_H_

#include <optional>
#include <string>

#include "audit/evidence.h"
#include "audit/result.h"
#include "core/status.h"
#include "evidence/report_file.h"
#include "shard/sharded_run.h"

namespace ratchet {

// A shard as its verification found it.
struct VerifiedShard {
  // The shard's findings and notes, each naming a file of the shard's folder.
  AuditResult audit;
  // Its record's entry (one run), when it stands: what collect counts. Its outcome, broken rules,
  // ranked time and submission are those the audit re-derived from the calls.
  std::optional<ReportEntry> entry;
  AuditedScoring derived;  // the scoring re-derived from its run (valid when `entry` is)
  bool seed_derived = false;  // its seed is the one the run seed derives for it

  bool stands() const { return entry.has_value() && audit.breaking() == 0; }
  // The first finding that breaks it, "file: what", for a one-line refusal.
  std::string why_not() const;
};

// Verifies shard `shard` of `run` in `folder`. `run_seed`: the run seed (hex), from which the
// shard's is derived; "" when it is not known (the audit of a run whose seed is not revealed: a
// finding of the run's). `signer`: the public key the shard must be signed with (a signed run's),
// or "" when it must hold no signature. Errors as AuditEvidence's: a rule set that is not the one
// the shard locks (Usage), a harness fault locating the datasets.
Result<VerifiedShard> VerifyShard(const std::string& folder, const Shard& shard,
                                  const ShardedRun& run, const std::string& run_seed,
                                  const std::string& signer, const EvidenceAuditOptions& options);

// A shard's SIGNATURE.json in `folder` checked into `audit`: with `signer` (a signed run's public
// key), the run's key's signature over the MANIFEST.json bytes the shard's audit read
// (audit->manifest_sha256); with none, no signature at all (a shard is signed only with its run's
// key). Each departure is a finding that breaks the shard.
void CheckShardSignature(const std::string& folder, const std::string& signer,
                         AuditResult* audit);

// Errors as AuditEvidence's: what is not a sharded run (BadInput), a rule set that is not the
// one the shards lock (Usage). What is wrong with the run is in `result`'s findings; its records
// are those re-derived from the shards (first scoring and second, by record).
Status AuditShardedRun(const std::string& dir, const EvidenceAuditOptions& options,
                       AuditResult* result);

}  // namespace ratchet

#endif  // RATCHET_SHARD_VERIFY_H_
