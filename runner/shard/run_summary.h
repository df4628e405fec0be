// A run's evidence read as one summary, whichever way it was scored: a direct run's evidence
// directory (evidence/reader.h) or a sharded run's directory (shard/sharded_run.h). The consumers
// that act on a run as a whole (promote, the check of the evidence a baseline was reviewed from)
// read it here and verify it with VerifyEvidence (shard/verified_evidence.h) before they trust
// any of it: the summary says only whether the run is whole and what it names itself.
#ifndef RATCHET_SHARD_RUN_SUMMARY_H_
#define RATCHET_SHARD_RUN_SUMMARY_H_

#include <string>

#include "core/status.h"
#include "evidence/reader.h"

namespace ratchet {

// For a sharded run: `status` is run.json's state, `complete` when it is complete and its
// MANIFEST.json matches run.json and every shard's manifest (each mismatch a finding),
// `manifest_sha256` the sha256 of that MANIFEST.json, `contract` the contract its shards were
// scored under (null, with a finding, when they are on more than one lane or none can be read),
// `report` run.json's report ({"records", "ratchet"}), `manifest` empty (the top manifest lists
// the shards' manifests, not every file). Errors: what is neither kind of run (BadInput).
Result<EvidenceSummary> ReadRunSummary(const std::string& dir);

}  // namespace ratchet

#endif  // RATCHET_SHARD_RUN_SUMMARY_H_
