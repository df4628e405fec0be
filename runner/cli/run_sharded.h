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

#include "cli/commands.h"
#include "evidence/report_file.h"
#include "session/request.h"
#include "shard/held_run.h"
#include "shard/sharded_run.h"
#include "shard/slurm_executor.h"

namespace ratchet {

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
                  Result<RunRequest> (*check)(const RunInputs& inputs, bool json));

// The inputs of a sharded run as run.json keeps them, and back.
RunInputs RunRequestInputs(const RunRequest& request, const ShardedRunOptions& options);
ShardedRunOptions ShardedRunOptionsFromInputs(const RunInputs& inputs);

}  // namespace ratchet

#endif  // RATCHET_CLI_RUN_SHARDED_H_
