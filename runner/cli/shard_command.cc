// `ratchet score-shard PLAN`: scores one shard of a sharded run (one run of one record) into its
// own evidence directory, as the plan says. What the executors of `ratchet run --executor` start
// on this host or on a Slurm node; not a command a person types.
#include <signal.h>
#include <sys/prctl.h>
#include <unistd.h>

#include <memory>
#include <string>

#include "cli/commands.h"
#include "cli/scorer_client.h"
#include "core/args.h"
#include "core/exit_codes.h"
#include "core/file.h"
#include "shard/sharded_run.h"

namespace ratchet {

const char kScoreShardUsage[] =
    "usage: ratchet score-shard PLAN\n"
    "\n"
    "Scores one shard of a sharded run (docs/distributed.md): the run of one record that the\n"
    "plan file PLAN names, with the seed it gives, into the shard's evidence directory. The\n"
    "executors of `ratchet run --executor local|slurm` start it; it is not meant to be typed.\n"
    "\n"
    "exit codes: 0 the shard scored and qualified; 1 scored, not qualified (an outcome, never\n"
    "            retried); 2 bad usage or a plan that does not parse; 3 the harness could not\n"
    "            score the shard (retried by the run); 130 interrupted\n";

namespace {

int ScoreShard(CommandContext& context) {
  auto fail = [&](const Status& status) { return ReportError(context.err, "score-shard", status); };
  Result<Args> args = Args::Parse(context.argv, {});
  if (!args.ok()) return fail(args.status());
  if (args->positional().size() != 1) {
    return fail(Status::Usage("name the shard's plan: ratchet score-shard PLAN"));
  }
  // Started by `ratchet run`'s local executor, in a process group of its own: should that run
  // die without cancelling it (SIGKILL), the shard is interrupted instead of scoring on alone.
  const pid_t parent = getppid();
  prctl(PR_SET_PDEATHSIG, SIGTERM);
  if (getppid() != parent) raise(SIGTERM);
  const std::string path = args->positional().front();
  Result<std::string> text = ReadFile(path, 1 << 20);
  if (!text.ok()) return fail(text.status());
  Result<ShardPlan> plan = ParseShardPlan(*text, path);
  if (!plan.ok()) return fail(plan.status());

  Result<std::unique_ptr<ScorerClient>> begun =
      ScorerClient::Begin(plan->options, context, !plan->shared_device);
  if (!begun.ok()) {
    if (!ScorerInterrupted()) {
      // A session that cannot begin here (a dataset missing on this node) is the harness's.
      ReportError(context.err, "score-shard", begun.status());
      return kExitHarness;
    }
    context.err << "ratchet score-shard: interrupted\n";
    return kExitInterrupted;
  }
  ScorerClient& session = **begun;
  Result<RecordResult> result = session.Score(plan->record, 1, plan->shard.run);
  if (!result.ok()) return session.Fail(result.status());
  if (result->harness_error) return session.Fail(*result->harness_error);
  if (result->interrupted || session.interrupted()) return session.Interrupt();
  Status contract_written = session.WriteContract();
  if (session.contract().is_null()) return session.Fail(contract_written);
  const int exit_code = result->qualified ? kExitSuccess : kExitFinding;
  const Json extra = {{kShardReportKey, ShardReportJson(plan->shard, plan->run_seed_commit)}};
  Status completed = session.Complete(
      extra, exit_code,
      std::string("shard ") + plan->shard.id.substr(0, 12) + " of record " + plan->record.id +
          ", run " + std::to_string(plan->shard.run) + ": " +
          (result->qualified ? "qualified" : "disqualified"));
  if (!completed.ok()) return kExitHarness;
  return exit_code;
}

}  // namespace

int RunScoreShard(CommandContext& context) { return ScoreShard(context); }

}  // namespace ratchet
