// A sharded run's directory, as `ratchet run --executor` writes it and `--resume` and the audit
// read it. This file owns its format (docs/distributed.md, "The run's directory"):
//
//   run.json        the run: its inputs, the run seed's commitment, the contract's locked part,
//                   every shard with each attempt's provenance, and once collected the seed's
//                   reveal, the report and the exit code. Rewritten atomically as shards end.
//   shards/<id>/    one shard's evidence directory, written by ratchet-scorer: complete on its own
//   plans/          what each shard is given (its seed among it; mode 0700), and the run seed:
//                   removed once the run is collected and the seed revealed
//   logs/<id>.<n>   what attempt n of a shard printed
//   MANIFEST.json   written last: the sha256 of run.json and of each shard's MANIFEST.json.
//                   A run is complete when run.json says so and MANIFEST.json matches.
//   SIGNATURE.json  with --sign, over MANIFEST.json; and in each shard's folder, over the shard's
//                   MANIFEST.json, made with the same key when the shard was verified
#ifndef RATCHET_SHARD_SHARDED_RUN_H_
#define RATCHET_SHARD_SHARDED_RUN_H_

#include <map>
#include <optional>
#include <string>
#include <vector>

#include "core/canonical_json.h"
#include "core/status.h"
#include "evidence/report_file.h"
#include "session/request.h"
#include "shard/shards.h"
#include "shard/slurm_executor.h"

namespace ratchet {

inline constexpr char kShardedRunSchema[] = "ratchet.sharded-run/1";
inline constexpr char kShardPlanSchema[] = "ratchet.shard-plan/1";
inline constexpr char kShardedRunFile[] = "run.json";
inline constexpr char kShardedRunManifestFile[] = "MANIFEST.json";
// The member of a shard's report.json that names its shard (the shard's own evidence says what
// it is part of).
inline constexpr char kShardReportKey[] = "shard";

// What one shard's process is given: `ratchet score-shard PLAN` reads it.
struct ShardPlan {
  Shard shard;
  RecordSpec record;            // the submission's path absolute
  SessionOptions options;       // out: the shard's folder; seed: the shard's seed
  std::string run_seed_commit;  // of the run the shard is part of
  bool shared_device = false;   // a CPU lane's shards side by side: no device lock
};
Json ShardPlanJson(const ShardPlan& plan);
Result<ShardPlan> ParseShardPlan(const std::string& text, const std::string& what);

// A shard's seed: HMAC-SHA256(key = the 32 bytes of the run seed, "ratchet shard " + id), hex.
// The audit derives it again from the revealed run seed.
Result<std::string> ShardSeed(const std::string& run_seed_hex, const std::string& shard_id);

// The shard's part of report.json's "shard" member: what it is part of.
Json ShardReportJson(const Shard& shard, const std::string& run_seed_commit);

// A record's scoring made of the report entries of its shards (one run each, in any order): the
// runs in order, the outcome every run gives, the median of their times and of their energy
// figures. What collect writes into run.json and the audit expects there.
ReportEntry CombineShardEntries(std::vector<ReportEntry> entries);

struct ShardedRunShard {
  Shard shard;
  bool rerun = false;  // part of the record's second scoring
  std::string state;   // "queued", "done", "failed"
  std::vector<ShardAttempt> attempts;
};

// What a sharded run was asked: the baseline (path, sha256), the records and runs, the session's
// options, the executor's: enough for --resume to go on as the run began. run.json's "inputs".
struct RunInputs {
  std::string baseline;                // an absolute path
  std::string baseline_sha256;         // of the baseline's bytes when the run began
  std::vector<std::string> records;    // --record as asked; empty: every record
  std::optional<int64_t> runs;         // --runs
  std::optional<std::string> rules;    // --rules: an absolute path, or a bundled rule set's name
  std::optional<std::string> data;     // --data, absolute
  std::optional<std::string> python;   // --python
  std::optional<std::string> out;      // --out
  bool energy = true;
  bool require_lane = false;
  std::string executor = "local";      // "local" or "slurm"
  std::vector<std::string> devices;    // --devices
  int jobs = 1;                        // --jobs
  int attempts = 3;                    // --attempts
  SlurmOptions slurm;                  // folder, partition, account, time_minutes, gpus
};
Json RunInputsJson(const RunInputs& inputs);
Result<RunInputs> ParseRunInputs(const Json& json, const std::string& what);

struct ShardedRun {
  std::string state = "running";  // "running", "interrupted", "failed", "complete"
  RunInputs inputs;
  std::string seed_commit;
  std::string seed;  // revealed once collected, "" before
  Json locked;       // the contract's locked part every shard must have
  std::string lane;  // the lane id the run was planned on
  // The public key (64 hex digits) of the key the run is signed with (--sign), "" when unsigned:
  // each shard is signed with it as soon as it is verified, and the run's MANIFEST.json once
  // collected, so that --resume can tell the shards this key witnessed from any others.
  std::string signer;
  std::vector<ShardedRunShard> shards;
  Json report;  // null until collected: {"records", "ratchet"}
  int exit_code = -1;
  std::string message;
};
Json ShardedRunJson(const ShardedRun& run);
Result<ShardedRun> ParseShardedRun(const std::string& text, const std::string& what);

// Paths within the run's directory.
std::string ShardFolder(const std::string& run_dir, const std::string& id);
std::string ShardPlanPath(const std::string& run_dir, const std::string& id);
std::string RunSeedPath(const std::string& run_dir);
std::string ShardLogPath(const std::string& run_dir, const std::string& id, int attempt);

// Whether `dir` holds a sharded run (its run.json names the schema).
bool IsShardedRun(const std::string& dir);
Result<ShardedRun> ReadShardedRun(const std::string& dir);
// run.json, replaced atomically.
Status WriteShardedRun(const std::string& dir, const ShardedRun& run);
// Whether every done shard's MANIFEST.json in `dir` is still the bytes its verification read
// (`verified_manifests`, by shard id: CollectShards); BadInput naming the first that is not, or
// that was not verified. A run checks this before it is marked complete, while --resume can still
// verify the shard again.
Status CheckShardsAsVerified(const std::string& dir, const ShardedRun& run,
                             const std::map<std::string, std::string>& verified_manifests);
// MANIFEST.json over run.json (as WriteShardedRun wrote `run`) and every done shard's
// MANIFEST.json: the last file a run writes. The sha256 it names are those of the bytes verified,
// never whatever lies there by then: run.json's of `run`'s text, each shard's from
// `verified_manifests`. A file on disk that is not those bytes (changed after it was verified,
// CheckShardsAsVerified) is refused (BadInput) and no manifest is written. With `signing_key` (a
// private key's PEM), SIGNATURE.json over the manifest is written just before it.
Status SealShardedRun(const std::string& dir, const ShardedRun& run,
                      const std::map<std::string, std::string>& verified_manifests,
                      const std::optional<std::string>& signing_key);
// SIGNATURE.json in a shard's folder, over the shard's MANIFEST.json, with `signing_key` (a
// private key's PEM): written by the run's process once it has verified the shard, over the bytes
// its verification read (`verified_sha256`); a MANIFEST.json that is not those bytes now is
// refused (BadInput) and nothing is signed.
Status SignShard(const std::string& folder, const std::string& signing_key,
                 const std::string& verified_sha256);
// What is wrong with MANIFEST.json against the files (empty when it matches). `read_sha256`, when
// given, is set to the sha256 of the MANIFEST.json bytes checked ("" when it cannot be read), so
// that the signature can be held to those very bytes.
std::vector<std::string> CheckShardedRunManifest(const std::string& dir, const ShardedRun& run,
                                                 std::string* read_sha256 = nullptr);

}  // namespace ratchet

#endif  // RATCHET_SHARD_SHARDED_RUN_H_
