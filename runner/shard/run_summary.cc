#include "shard/run_summary.h"

#include <vector>

#include "core/sha256.h"
#include "evidence/layout.h"
#include "shard/collect.h"
#include "shard/sharded_run.h"

namespace ratchet {

namespace {

Result<EvidenceSummary> ReadShardedRunSummary(const std::string& dir) {
  Result<ShardedRun> run = ReadShardedRun(dir);
  if (!run.ok()) return run.status();
  EvidenceSummary summary;
  summary.status = run->state;
  summary.exit_code = run->exit_code;
  summary.message = run->message;
  summary.report = run->report;
  summary.seed_commit = run->seed_commit;
  summary.seed_reveal = run->seed;
  for (const std::string& problem : CheckShardedRunManifest(dir, *run)) {
    summary.findings.push_back({kShardedRunManifestFile, problem});
  }
  Result<std::string> manifest = Sha256File(dir + "/" + kShardedRunManifestFile);
  if (manifest.ok()) summary.manifest_sha256 = *manifest;
  // The contract of the lane the shards were scored on: one lane, or none for the run.
  ShardContracts contracts(dir);
  std::vector<std::string> ids;
  for (const ShardedRunShard& shard : run->shards) {
    if (shard.state == "done") ids.push_back(shard.shard.id);
  }
  const std::string lane = ids.empty() ? "" : contracts.SharedLane(ids);
  if (!lane.empty()) {
    summary.contract = contracts.by_lane().at(lane);
  } else {
    summary.findings.push_back(
        {kContractFile, ids.empty() ? "no shard of the run was scored"
                                    : "its shards were scored on more than one lane, or a "
                                      "shard's contract.json cannot be read"});
  }
  summary.complete = run->state == kStatusComplete && summary.findings.empty();
  return summary;
}

}  // namespace

Result<EvidenceSummary> ReadRunSummary(const std::string& dir) {
  if (IsShardedRun(dir)) return ReadShardedRunSummary(dir);
  return ReadEvidence(dir);
}

}  // namespace ratchet
