// `ratchet run`'s two ways to score a baseline: in one scorer session (the direct run), or split
// into shards of one run of one record each, scored by an executor on this host's devices or on
// a Slurm cluster and collected into one run (docs/distributed.md). Both come to a RunOutcome,
// which is held to the baseline and printed alike.
#ifndef RATCHET_CLI_RUN_SHARDED_H_
#define RATCHET_CLI_RUN_SHARDED_H_

#include <map>
#include <optional>
#include <string>
#include <vector>

#include "baseline/baseline.h"
#include "baseline/ratchet.h"
#include "cli/commands.h"
#include "cli/slurm_executor.h"
#include "evidence/report_file.h"
#include "session/request.h"

namespace ratchet {

// What `ratchet run` was asked, checked: the baseline read, every record's submission there.
struct RunRequest {
  std::string baseline_path;  // as given
  std::string baseline_sha256;
  std::string folder;  // the baseline's folder
  Baseline baseline;
  std::vector<std::string> asked;     // --record ids as given (empty: every record)
  std::vector<std::string> selected;  // the records to score
  std::map<std::string, RecordSpec> specs;
  std::optional<int64_t> runs_flag;
  bool require_lane = false;
  bool json = false;
  SessionOptions options;  // --data, --python, --rules, --out, --no-energy
  std::optional<std::string> markdown;  // --markdown FILE: the run's summary for a pull request
};

// Runs of `record` on a lane with (`gpu`) or without a GPU: --runs, else the record's, else 1 on
// a CPU lane and 3 on a GPU lane.
int RunsOf(const RunRequest& request, const std::string& record, bool gpu);

// "record ID: ... scoring it again": why a record is scored once more.
std::string ScoreAgainLine(const Baseline& baseline, const std::string& id,
                           const std::string& lane, ScoreAgain why, const Scoring& first);

// What a run came to, however it was scored.
struct RunOutcome {
  std::string evidence;  // the evidence directory
  std::string lane;
  RatchetInputs inputs;
  RatchetResult ratchet;
  std::map<std::string, ReportRecord> records;
  int exit_code = 0;
};

// The ratchet's verdict on what was scored (inputs.scored, inputs.contract): errors and notes,
// with `notes` added, the reviewed evidence checked.
void HoldToBaseline(const RunRequest& request, const std::vector<std::string>& notes,
                    RunOutcome* outcome);
// The ratchet part of report.json.
Json RatchetPartOf(const RunRequest& request, const RunOutcome& outcome);
// The table (or, with --json, the JSON) `ratchet run` prints.
void PrintRunOutcome(const RunRequest& request, const RunOutcome& outcome,
                     CommandContext& context);

struct ShardedRunOptions {
  std::string executor = "local";    // "local" or "slurm"
  std::vector<std::string> devices;  // --devices: GPU indices; empty: every GPU, or one CPU
  int jobs = 1;                      // --jobs: shards side by side on a CPU lane
  SlurmOptions slurm;                // --executor slurm
  int max_attempts = 3;              // --attempts
};

// Scores `request` in shards into a new run directory (request.options.out, else
// evidence/run-<UTC time>-<seed commit prefix>), collects and prints it; the exit code.
int RunSharded(RunRequest& request, const ShardedRunOptions& options, CommandContext& context);

// `ratchet run --resume DIR`: the run's inputs are read from DIR/run.json (the baseline must not
// have changed); the shards missing or failed are scored, then the run is collected.
// `signing_key` (--sign) signs the run's MANIFEST.json when it is collected.
int ResumeSharded(const std::string& dir, const std::optional<ShardedRunOptions>& options,
                  bool json, const std::optional<std::string>& signing_key,
                  const std::optional<std::string>& markdown,
                  CommandContext& context,
                  Result<RunRequest> (*check)(const Json& inputs, bool json));

// The inputs of a sharded run as run.json keeps them, and back.
Json RunRequestInputs(const RunRequest& request, const ShardedRunOptions& options);
Result<ShardedRunOptions> ShardedRunOptionsFromInputs(const Json& inputs);

}  // namespace ratchet

#endif  // RATCHET_CLI_RUN_SHARDED_H_
