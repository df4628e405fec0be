// A sharded run's shards read back into one run (docs/distributed.md, "Verify and collect"): each
// scored shard's folder verified, its record's entry read, the records whose first scoring calls
// for a second found, and the run's records assembled and held to the baseline, each on the lane
// its shards were scored on. run_sharded.cc drives the shards; this is what it does with them.
#ifndef RATCHET_SHARD_COLLECT_H_
#define RATCHET_SHARD_COLLECT_H_

#include <map>
#include <string>
#include <vector>

#include "audit/evidence.h"
#include "baseline/ratchet.h"
#include "core/canonical_json.h"
#include "core/status.h"
#include "evidence/report_file.h"
#include "shard/held_run.h"
#include "shard/sharded_run.h"

namespace ratchet {

// The contracts of a run's scored shards, read once each: by shard id, and a shard's of each lane.
class ShardContracts {
 public:
  explicit ShardContracts(std::string dir) : dir_(std::move(dir)) {}
  // The lane id of shard `id`'s contract; "" when it cannot be read (verification refuses such a
  // shard before it is collected).
  std::string Lane(const std::string& id);
  // The lane the shards `ids` share, or "" when they are on more than one.
  std::string SharedLane(const std::vector<std::string>& ids);
  const std::map<std::string, Json>& by_lane() const { return by_lane_; }

 private:
  std::string dir_;
  std::map<std::string, std::string> lanes_;
  std::map<std::string, Json> by_lane_;
};

// How collect verifies a shard before it counts it: through VerifyShard
// (shard/verify.h), the one verification the audit makes too.
struct ShardVerification {
  std::string run_seed;           // hex
  EvidenceAuditOptions options;   // the run's rule set and data folder, the datasets located once
  // Shard `shard` of `run` (in `dir`) verified: its record's entry, what its calls give; else
  // Unavailable naming the shard and the first finding (or the audit's error). `manifest_sha256`,
  // when given, is set to the sha256 of the shard's MANIFEST.json bytes the verification read.
  Result<ReportEntry> Entry(const std::string& dir, const ShardedRun& run, const Shard& shard,
                            std::string* manifest_sha256 = nullptr) const;
};

// How the shards of `request`'s run (its seed `run_seed`, hex) are verified: under the run's rule
// set and data folder, the datasets located once for every shard.
Result<ShardVerification> ShardVerificationFor(const std::string& run_seed,
                                                const RunRequest& request);

// A record to score once more, after its first scoring: its first scoring's runs, and the line
// that says why.
struct ScoreAgainShards {
  std::string record;
  int runs = 0;
  std::string line;
};
// The records of `records` (in `dir`'s run `run`) whose first scoring calls for a second and that
// have no second-scoring shards yet, each held to the lane its shards were scored on (the run's,
// when they are on several; `gpu`: whether the run's lane has a GPU).
Result<std::vector<ScoreAgainShards>> RecordsToScoreAgain(const std::string& dir,
                                                          const ShardedRun& run,
                                                          const ShardVerification& verification,
                                                          bool gpu,
                                                          const RunRequest& request,
                                                          const std::vector<std::string>& records);

// The run `run` in `dir` collected: every shard of `records` verified again (`verification`),
// each record's scorings combined from its shards, and the whole held to the baseline with
// HoldByLane (`rule_set`: the run's rule-set document, which names the constants a contract
// change moved; `notes` added; `gpu`: whether the run's lane has a GPU). The outcome's records and
// ratchet are what the run's report.json part holds. `verified_manifests` is set to the sha256 of
// each counted shard's MANIFEST.json as its verification read it, by shard id: what the run's
// manifest may name (SealShardedRun), so that the run is sealed over what was verified.
Result<RunOutcome> CollectShards(const std::string& dir, const ShardedRun& run,
                                 const ShardVerification& verification, bool gpu,
                                 const RunRequest& request,
                                 const Json& rule_set, const std::vector<std::string>& records,
                                 std::vector<std::string> notes,
                                 std::map<std::string, std::string>* verified_manifests);

// HoldToBaseline for a sharded run, whose shards may have been scored on more than one lane (a
// cluster's nodes of several kinds): each record is held to the lane its shards were scored on,
// with that lane's contract (`contracts`, by lane id: a shard's of each lane). A record whose
// shards are on more than one lane (`record_lanes` names none for it) is held to `run_lane`, and
// its outcome is compared but not its time. outcome->inputs names every record; its contract is
// `run_lane`'s. The errors, notes and lane of the outcome are the run's.
void HoldByLane(const RunRequest& request, const std::map<std::string, std::string>& record_lanes,
                const std::map<std::string, Json>& contracts, const std::string& run_lane,
                const std::vector<std::string>& notes, RunOutcome* outcome);

}  // namespace ratchet

#endif  // RATCHET_SHARD_COLLECT_H_
