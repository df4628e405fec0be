#include <algorithm>
#include <thread>

#include "rules/rule_ids.h"
#include "sandbox/policy.h"
#include "scorer/run_loop.h"
#include "scorer/run_loop_internal.h"

namespace ratchet {
namespace {

// How long a call that could lead a pair waits for the next call's worker to answer hello.
constexpr double kPairHelloWaitS = 0.1;

}  // namespace

using run_loop_internal::AddWorkerSteps;
using run_loop_internal::DrawPhrase;
using run_loop_internal::MsSince;
using run_loop_internal::PlannedRecord;
using run_loop_internal::RunsAsItsUid;

// Warm-ups in pairs (docs/scoring.md, "Warm-ups in pairs"): a call may calibrate the next call's
// worker right after its own, load the method into both and run both warm-ups side by side;
// that worker is then stopped (every process of its uid) until its own call, which thaws it and
// goes on with the priming and the timed call. The warm-up is most of a call's untimed time on a
// GPU, and those of two processes there do not slow each other.
void RunLoop::TryPair(CallState& call, std::optional<Result<MemoryReading>>* memory) {
  const size_t index = call.index;
  // The next call's worker joins this call's warm-up when it has said hello (or, under
  // Pairing::kAlways, once it does) and the memory is ample with the last call's method still
  // holding its own: two methods like it then fit beside it.
  const bool always = inputs_.pairing == Pairing::kAlways;
  const bool could_pair = may_pair_ && !pairing_failed_ && (spin_ || always) && index > 0 &&
                          index + 1 < count_ && !ahead_.empty() && !ahead_.front().not_sent;
  bool pair =
      could_pair && (always || ahead_.front().hello || ahead_.front().worker->ReplyWaiting(0));
  if (could_pair && !pair) {
    // A worker about to answer is worth a short wait (a pair saves about a warm-up): it is thawed
    // (it runs ratchet's code only, and no window is open) and given kPairHelloWaitS.
    if (ahead_.front().worker->Freeze(false, /*whole_uid=*/false).ok()) {
      pair = ahead_.front().worker->ReplyWaiting(kPairHelloWaitS);
    }
    call.Step("next_hello_awaited");
  }
  if (pair && !always) {
    *memory = ReadMemory();
    pair = (*memory)->ok() && Ample(***memory);
  }
  if (!pair) return;
  WorkerAhead next = ahead_.TakeFront();
  Prepared joined;
  joined.call_started_ns = MonotonicNs();
  joined.spawned_ns = next.spawned_ns;
  joined.leader = index + 1;
  joined.steps["spawned"] = (next.spawned_ns - joined.call_started_ns) / 1e6;
  joined.record = PlannedRecord(outcome_.plan.calls[index + 1], rules_);
  // Stopped with the other workers ahead for this call's calibration; thawed for its own.
  Status thawed = next.worker->Freeze(false, /*whole_uid=*/false);
  std::optional<CallFailure> failure;
  Frame hello;
  if (!thawed.ok()) {
    failure = CallFailure{kRuleCrash, thawed.message(), true};
  } else if (next.hello) {
    hello = std::move(*next.hello);
  } else {
    failure = next.worker->Receive(rules_.limits.worker_start_s, "starting the worker", &hello,
                                   /*spin=*/false);
  }
  if (!failure && !RunsAsItsUid(hello.header, *next.worker, isolated_)) {
    // Its own call fails it, as any worker that does not run as its sandbox user.
    next.hello = std::move(hello);
    ahead_.PutFront(std::move(next));
    return;
  }
  if (!failure) {
    joined.record.hello = hello.header;
    joined.steps["hello"] = MsSince(joined.call_started_ns);
    AddWorkerSteps(hello.header, &joined.steps, joined.call_started_ns);
    joined.worker = std::move(next.worker);
    // Should the last call's worker have to go first, that is this call's step.
    failure = CalibrateClean(*joined.worker, &joined.record.overhead_ms, &joined.calibration_phases,
                             &joined.previous, &call.steps, call.call_started_ns);
    if (!failure) {
      joined.steps["calibrated"] = MsSince(joined.call_started_ns);
      prepared_ = std::move(joined);
      return;
    }
    next.worker = std::move(joined.worker);
  }
  // Not its method's doing (none is loaded): its call starts a worker again, alone, and the run
  // makes no pair again.
  next.worker->Close();
  next.not_sent = failure;
  StopPairing();
  ahead_.PutFront(std::move(next));
}

void RunLoop::ReleasePreviousBeforeWarmUp(CallState& call,
                                          std::optional<Result<MemoryReading>>* memory) {
  // The last call's worker dies while this call's method is imported and warms up, unless the
  // memory that method needs may not be free enough yet.
  if (!finishing_.AnyStopped()) return;
  Status killed = finishing_.Release();
  call.Step("previous_killed");
  if (!*memory) *memory = ReadMemory();
  const Result<MemoryReading>& reading = **memory;
  if (reading.ok()) {
    call.previous["memory"] = Json{{"of", gauge_->Name()},
                                   {"free_mib", reading->free_bytes >> 20},
                                   {"total_mib", reading->total_bytes >> 20}};
  }
  if (!killed.ok() || !reading.ok() || !Ample(*reading)) {
    call.previous["waited"] = !killed.ok() ? killed.message()
                              : !reading.ok()
                                  ? reading.status().message()
                                  : "less than " + std::string(kAmpleText) + " of the memory free";
    finishing_.Finish();
    call.Step("previous_closed");
  }
}

RunLoop::Flow RunLoop::LoadAndWarmUp(CallState& call) {
  const size_t index = call.index;
  CallWorker& worker = *call.worker;
  if (std::optional<CallFailure> failure = Freeze(false)) return Fail(call, *failure);
  if (std::optional<CallFailure> failure = Load(worker, &call.reply)) {
    return Fail(call, *failure);
  }
  call.Step("loaded");
  // A pair's failure (the next call's worker could not load its method, warm up or stop beside
  // this one; or this call's warm-up failed beside it) is charged to neither call: each starts a
  // worker again, alone, where the same failure, if it comes again, is that call's; and no pair
  // is made again in this run, so that a method gets that second chance once at most.
  const bool paired_now = prepared_.has_value();
  WindowRequest warm_request;
  warm_request.draw = &*call.warm;
  warm_request.timeout_s =
      (index == 0 ? rules_.limits.warmup_max_call_ms : rules_.limits.later_warmup_max_call_ms) /
      1e3;
  warm_request.stage_s = rules_.limits.stage_s;
  warm_request.doing =
      "running the method on the untimed warm-up on " + DrawPhrase(call.warm->dataset);
  JoinedWarmUp joined;
  warm_request.while_waiting = [&] { WhileWarming(call, &joined, warm_request); };
  WindowResult warm_result;
  std::optional<CallFailure> warm_failed =
      worker.RunWindow(warm_request, rules_.draw.test, &warm_result);
  if (joined.thread.joinable()) joined.thread.join();
  call.Step("warmed");
  if (prepared_ && !joined.failed && !warm_failed) {
    prepared_->steps["warmed"] = MsSince(prepared_->call_started_ns);
    // Stopped, every process of its uid, until its own call.
    Status stopped = prepared_->worker->Freeze(true, /*whole_uid=*/true);
    if (stopped.ok()) stopped = prepared_->worker->AwaitFrozen(kFreezeTimeoutS, true);
    if (!stopped.ok()) joined.failed = CallFailure{kRuleCrash, stopped.message(), true};
  }
  if (paired_now && (joined.failed || warm_failed)) {
    const Flow flow = AfterPairFailed(call, warm_failed, joined.failed, &joined);
    if (flow != Flow::kGoOn) return flow;
  }
  if (warm_failed) return Fail(call, *warm_failed);
  if (!finishing_.empty()) {
    finishing_.Finish();  // gone before any window of this call's method
    call.Step("previous_closed");
  }
  if (prepared_) call.paired_with = index + 2;
  return Flow::kGoOn;
}

void RunLoop::WhileWarming(CallState& call, JoinedWarmUp* joined,
                           const WindowRequest& warm_request) {
  const size_t index = call.index;
  if (prepared_) {
    Frame loaded;
    joined->failed = Load(*prepared_->worker, &loaded);
    const PlannedCall& its = outcome_.plan.calls[index + 1];
    if (!joined->failed) {
      prepared_->steps["loaded"] = MsSince(prepared_->call_started_ns);
      joined->warm = make_draw_(its.warmup_dataset, its.warmup_draw_index);
      if (!joined->warm->ok()) {
        joined->failed = CallFailure{kRuleCrash, joined->warm->status().message(), true};
      }
    }
    if (!joined->failed) {
      joined->request = warm_request;
      joined->request.while_waiting = nullptr;
      joined->request.draw = &**joined->warm;
      joined->request.doing = "running the method on the untimed warm-up on " +
                              DrawPhrase((*joined->warm)->dataset) + " (beside the last call's)";
      joined->thread = std::thread([this, joined] {
        joined->failed =
            prepared_->worker->RunWindow(joined->request, rules_.draw.test, &joined->result);
      });
    }
  }
  call.timed = make_draw_(call.planned->dataset, call.planned->draw_index);
  const size_t after = prepared_ ? index + 2 : index + 1;  // the next call warmed up alone
  if (prepared_) {
    const PlannedCall& its = outcome_.plan.calls[index + 1];
    prepared_->timed = make_draw_(its.dataset, its.draw_index);
  }
  if (after < count_) {
    const PlannedCall& next = outcome_.plan.calls[after];
    next_warm_ = make_draw_(next.warmup_dataset, next.warmup_draw_index);
  }
  if (index == 0 && isolated_ && !gauge_) {
    if (spin_ && board_uuid_.empty()) {
      gauge_missing_ = "the worker named no board";
    } else if (Result<std::unique_ptr<MemoryGauge>> gauge =
                   starter_.OpenMemoryGauge(spin_, board_uuid_);
               !gauge.ok()) {
      gauge_missing_ = gauge.status().message();
    } else {
      gauge_ = std::move(*gauge);
    }
  }
  // The workers of the calls to come; never more alive and not exiting than there are worker
  // uids (this call's, a prepared one, and those ahead).
  const size_t last =
      std::min(index + (prepared_ ? 1 : 0) + workers_ahead_, index + kWorkerUidCount - 1);
  while (call.ahead_started.ok() && ahead_.started() < count_ && ahead_.started() <= last) {
    call.ahead_started = ahead_.StartNext().Annotate("starting the worker of call " +
                                                     std::to_string(ahead_.started() + 1));
  }
}

RunLoop::Flow RunLoop::AfterPairFailed(CallState& call, std::optional<CallFailure> warm_failed,
                                       std::optional<CallFailure> joined_failed,
                                       JoinedWarmUp* joined) {
  const size_t index = call.index;
  StopPairing();
  // Gives a worker back to the calls to come as one whose start failed: its call starts a worker
  // again, alone (TakeWorker's restart, which keeps why and what the worker said).
  auto give_back = [&](std::unique_ptr<CallWorker> worker, int64_t spawned_ns,
                       const CallFailure& why, const std::string& because) {
    WorkerAhead back;
    back.spawned_ns = spawned_ns;
    back.worker = std::move(worker);
    back.worker->Close();
    back.not_sent = CallFailure{why.rule, because + why.message, true};
    ahead_.PutFront(std::move(back));
  };
  if (prepared_) {
    const CallFailure why = joined_failed ? *joined_failed : CallFailure{kRuleCrash, "", true};
    give_back(std::move(prepared_->worker), prepared_->spawned_ns, why,
              joined_failed
                  ? "it could not warm up beside call " + std::to_string(index + 1) + "'s: "
                  : "call " + std::to_string(index + 1) + "'s warm-up beside it failed");
    prepared_.reset();
  }
  if (warm_failed) {
    // This call again, from a worker of its own, warmed up on its own warm-up draw.
    give_back(std::move(call.worker), call.spawned_ns, *warm_failed,
              "its warm-up failed beside call " + std::to_string(index + 2) + "'s: ");
    next_warm_ = std::move(call.warm);
    return Flow::kAgain;
  }
  // The next call warms up on its own draw, as if it had never been joined.
  if (joined->warm && joined->warm->ok()) {
    next_warm_ = std::move(*joined->warm);
  } else {
    next_warm_.reset();
  }
  return Flow::kGoOn;
}

}  // namespace ratchet
