// The compile step of a run (RunLoop::CompileStep; scorer/compile_step.h, docs/scoring.md).
#include "core/clock.h"
#include "rules/rule_ids.h"
#include "sandbox/policy.h"
#include "scorer/compile_step.h"
#include "scorer/run_loop.h"
#include "scorer/run_loop_internal.h"

namespace ratchet {
namespace {

// How long the compile step's worker, once killed, may take to be gone before its caches are
// left unread (a process still alive could still be writing them).
constexpr double kCompileGoneTimeoutS = 10;

}  // namespace

using run_loop_internal::DrawPhrase;
using run_loop_internal::MsSince;
using run_loop_internal::RunsAsItsUid;

bool RunLoop::WantsCompileStep() const {
  switch (inputs_.compile_step) {
    case CompileStepWhen::kNever:
      return false;
    case CompileStepWhen::kAlways:
      return true;
    case CompileStepWhen::kOnGpu:
      return inputs_.board_is_gpu && !inputs_.submission.native;
  }
  return false;
}

void RunLoop::CompileStep() {
  if (!WantsCompileStep() || count_ == 0) return;
  const int64_t started_ns = MonotonicNs();
  CompileEntry entry;
  entry.warmup_dataset = outcome_.plan.calls.front().warmup_dataset;
  entry.warmup_draw_index = static_cast<int64_t>(kCompileDrawIndex);
  // The last of the worker uids: the first call's worker takes the first, once every process of
  // every worker uid has been killed again (ScoreCall).
  const uid_t uid = WorkerUids()[kWorkerUidCount - 1];
  std::optional<CallFailure> failure;
  std::unique_ptr<CallWorker> worker;
  if (Status cleared = starter_.ClearWorkerUids(); !cleared.ok()) {
    failure = CallFailure{kRuleCrash, cleared.message(), true};
  } else if (Result<std::unique_ptr<CallWorker>> made = starter_.Start(uid); !made.ok()) {
    failure = CallFailure{kRuleCrash, made.status().message(), true};
  } else {
    worker = std::move(*made);
  }
  if (worker) {
    Frame reply;
    failure = worker->Request(HelloCommand(rules_, *worker), rules_.limits.worker_start_s,
                              "starting the compile step's worker", &reply, /*spin=*/false);
    if (!failure && !RunsAsItsUid(reply.header, *worker, isolated_)) {
      failure = CallFailure{kRuleCrash, "the worker does not run as its sandbox user", true};
    }
    const int64_t load_ns = MonotonicNs();
    if (!failure) failure = Load(*worker, &reply);
    entry.load_ms = MsSince(load_ns);
    Result<Draw> draw = make_draw_(entry.warmup_dataset, kCompileDrawIndex);
    if (!failure && !draw.ok()) failure = CallFailure{kRuleCrash, draw.status().message(), true};
    if (!failure) {
      WindowRequest warm;
      warm.draw = &*draw;
      warm.timeout_s = rules_.limits.warmup_max_call_ms / 1e3;
      warm.stage_s = rules_.limits.stage_s;
      warm.doing = "running the method on the compile step's untimed warm-up on " +
                   DrawPhrase(entry.warmup_dataset);
      WindowResult result;
      const int64_t warm_ns = MonotonicNs();
      failure = worker->RunWindow(warm, rules_.draw.test, &result);
      entry.warmup_ms = MsSince(warm_ns);
    }
    if (failure) {
      if (std::optional<CallFailure> limit = worker->LimitHit()) failure = limit;
    }
    // Nothing of the worker runs any more when its caches are read: what they hold is what its
    // warm-up left, and no process can change them while they are read or after.
    const std::vector<pid_t> pids = starter_.ProcessesOf(uid);
    Status killed = worker->Kill();
    const bool gone = starter_.AwaitGone(pids, kCompileGoneTimeoutS);
    if (!failure && !killed.ok()) failure = CallFailure{kRuleCrash, killed.message(), true};
    if (!failure && !gone) {
      failure = CallFailure{kRuleCrash,
                            "a process of the compile step's worker was still there " +
                                std::to_string(static_cast<int>(kCompileGoneTimeoutS)) +
                                " s after it was killed",
                            true};
    }
    if (!failure) {
      Result<CacheSet> caches = starter_.ReadCaches(*worker);
      if (!caches.ok()) {
        failure = CallFailure{kRuleCrash, caches.status().message(), true};
      } else {
        entry.files = caches->listing;
        entry.skipped = caches->skipped;
        entry.caches_sha256 = caches->sha256;
        if (!caches->empty()) starter_.SeedCaches(std::move(*caches));
      }
    }
    worker->Close();
    entry.worker_exit = worker->exit_description();
    entry.log_bytes = static_cast<int64_t>(worker->log_total_bytes());
    outcome_.compile_log = worker->log();
  }
  if (failure) entry.failure = failure->message;
  entry.whole_ms = MsSince(started_ns);
  outcome_.compile = std::move(entry);
}

}  // namespace ratchet
