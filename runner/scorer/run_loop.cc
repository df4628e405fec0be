#include "scorer/run_loop.h"

#include <algorithm>
#include <thread>

#include "core/clock.h"
#include "core/utf8.h"
#include "rules/pyformat.h"
#include "rules/rule_ids.h"
#include "sandbox/policy.h"
#include "scorer/run_loop_internal.h"

namespace ratchet {
namespace {

// Empty calls made right before each timed call, after the warm-up.
constexpr int kPrimingCalls = 3;
// Workers of later calls started while a call runs: each takes its own uid and is frozen during
// every window of the calls before its own. Workers are started only during a warm-up, once
// every finished call's worker has been killed, and never more than kWorkerUidCount - 1 calls
// ahead of the running one (a call joined to it counted), so that no two workers alive and not
// exiting share a uid: the ones that reuse a uid take those of finished calls whose workers are
// exiting. A Python worker takes about four calls' untimed time to import torch; ratchet-worker
// starts in less than two on a CPU (0.4 s) and about three on a GPU (0.7 s, with its device
// context), where it is started three calls ahead once the first worker has said that it runs
// on one. With warm-ups in pairs on a GPU calls come faster, and more are started ahead, until a
// pair fails.
constexpr size_t kPythonWorkersAhead = 4;
constexpr size_t kNativeWorkersAhead = 2;
constexpr size_t kNativeWorkersAheadOnGpu = 3;
constexpr size_t kPythonWorkersAheadPaired = 6;
constexpr size_t kNativeWorkersAheadPaired = 5;
// The running call, the one joined to it and those ahead each hold a uid of their own.
static_assert(kPythonWorkersAheadPaired + 1 <= kWorkerUidCount - 1);
static_assert(kNativeWorkersAheadPaired + 1 <= kWorkerUidCount - 1);

}  // namespace

using run_loop_internal::AddWorkerSteps;
using run_loop_internal::DrawPhrase;
using run_loop_internal::InputsSha256;
using run_loop_internal::MsSince;
using run_loop_internal::PlannedRecord;
using run_loop_internal::RunsAsItsUid;
using run_loop_internal::TextOf;

RunLoop::RunLoop(const RunInputs& inputs, const RunPlan& plan, WorkerStarter& starter,
                 DrawMaker make_draw)
    : inputs_(inputs),
      rules_(*inputs.rules),
      starter_(starter),
      make_draw_(std::move(make_draw)),
      run_started_(std::chrono::steady_clock::now()),
      empty_(inputs.rules->draw),
      staging_(inputs.rules->draw),
      isolated_(starter.isolated()),
      count_(plan.calls.size()),
      ahead_(starter, *inputs.rules),
      finishing_(starter, [this](CallRecord record) { CallDone(std::move(record)); }) {
  outcome_.plan = plan;
  // Under a partial sandbox every worker has ratchet's own uid, and nothing would keep a method
  // from the workers ahead: none is started ahead there.
  const bool native = inputs.submission.native;
  workers_ahead_ = !isolated_ ? 0 : native ? kNativeWorkersAhead : kPythonWorkersAhead;
  may_pair_ = isolated_ && inputs.pairing != Pairing::kNever;
  // On a board the contract found to be a GPU, the first call starts as many workers ahead as
  // pairs need at once (its worker's hello, which says where the method runs, comes later).
  if (inputs.board_is_gpu && may_pair_) {
    workers_ahead_ = native ? kNativeWorkersAheadPaired : kPythonWorkersAheadPaired;
  }
}

Result<RunOutcome> RunLoop::Run() {
  CompileStep();
  for (size_t index = 0; index < count_; ++index) {
    if (inputs_.interrupted && inputs_.interrupted->load()) {
      EndRun();
      outcome_.interrupted = true;
      return std::move(outcome_);
    }
    if (SecondsSince(run_started_) > rules_.limits.run_max_s) {
      EndRun();
      outcome_.failure =
          CallFailure{kRuleRunTime, "the run took more than " +
                                        std::to_string(rules_.limits.run_max_s / 60) + " minutes"};
      return std::move(outcome_);
    }
    const Flow flow = ScoreCall(index);
    if (flow == Flow::kEnded) {
      if (!error_.ok()) return error_;
      return std::move(outcome_);
    }
    if (flow == Flow::kAgain) --index;
  }
  EndRun();
  return std::move(outcome_);
}

RunLoop::Flow RunLoop::ScoreCall(size_t index) {
  CallState call;
  call.index = index;
  call.planned = &outcome_.plan.calls[index];
  // Before the first worker, whatever an older run or another scorer left of the worker uids
  // goes; later, each worker's uid is cleared before the worker starts (WorkerStarter::Start).
  if (index == 0) {
    Status reaped = starter_.ClearWorkerUids();
    if (!reaped.ok()) return HarnessError(call, reaped);
  }
  Flow flow = TakeWorker(call);
  if (flow != Flow::kGoOn) return flow;
  if (call.follower) {
    flow = ResumePrepared(call);
  } else {
    flow = MeetWorker(call);
    if (flow == Flow::kGoOn) flow = CalibrateCall(call);
    if (flow == Flow::kGoOn) {
      std::optional<Result<MemoryReading>> memory;
      TryPair(call, &memory);
      ReleasePreviousBeforeWarmUp(call, &memory);
      flow = LoadAndWarmUp(call);
    }
  }
  if (flow != Flow::kGoOn) return flow;
  flow = TimedCall(call);
  if (flow != Flow::kGoOn) return flow;
  Retire(call);
  return Flow::kGoOn;
}

RunLoop::Flow RunLoop::TakeWorker(CallState& call) {
  if (prepared_) {
    Prepared mine = std::move(*prepared_);
    prepared_.reset();
    call.follower = true;
    call.call_started_ns = mine.call_started_ns;
    call.steps = std::move(mine.steps);
    call.previous = std::move(mine.previous);
    call.worker = std::move(mine.worker);
    call.record = std::move(mine.record);
    call.calibration_phases = std::move(mine.calibration_phases);
    call.timed = std::move(mine.timed);
    call.paired_with = mine.leader;
    return Flow::kGoOn;
  }
  const size_t index = call.index;
  call.call_started_ns = MonotonicNs();
  call.record = PlannedRecord(*call.planned, rules_);
  // This call's worker, unless it was started ahead; for the first call, the next ones too
  // (later calls start theirs while their method's warm-up runs).
  while (ahead_.started() < count_ && ahead_.started() <= (index == 0 ? workers_ahead_ : index)) {
    Status status = ahead_.StartNext();
    if (!status.ok()) {
      return HarnessError(call, status.Annotate("starting the worker of call " +
                                                std::to_string(ahead_.started() + 1)));
    }
  }
  WorkerAhead current = ahead_.TakeFront();
  call.worker = std::move(current.worker);
  call.spawned_ns = current.spawned_ns;
  call.steps["spawned"] = (current.spawned_ns - call.call_started_ns) / 1e6;
  // The warm-up's draw was made during the last call's warm-up (the first call's is made now),
  // the timed one is made during the warm-up; each reaches the worker only inside its window.
  call.warm = next_warm_
                  ? std::move(*next_warm_)
                  : make_draw_(call.planned->warmup_dataset, call.planned->warmup_draw_index);
  next_warm_.reset();
  if (!call.warm.ok()) return HarnessError(call, call.warm.status());

  if (current.not_sent) {
    call.hello_failure = current.not_sent;
  } else if (current.hello) {
    call.reply = std::move(*current.hello);
  } else {
    call.hello_failure = call.worker->Receive(rules_.limits.worker_start_s, "starting the worker",
                                              &call.reply, /*spin=*/false);
  }
  // A worker started during an earlier call shared the machine with that call's method, which
  // may have taken what the start needed (the device's memory): it starts again now, when
  // nothing of the earlier calls runs, and only a second failure is the harness's.
  if (call.hello_failure && current.spawned_ns < call.call_started_ns) {
    const uid_t uid = call.worker->uid();
    call.worker->Close();
    call.restarted_because = call.hello_failure->message;
    const std::string said = ValidUtf8(call.worker->log());
    if (!said.empty()) call.restarted_because += "\nworker output:\n" + said;
    if (!finishing_.empty())
      call.previous["waited"] = "this call's worker started ahead had failed";
    finishing_.Finish();  // the last call's worker gone, its device memory released
    Result<std::unique_ptr<CallWorker>> again = starter_.Start(uid);
    if (!again.ok()) {
      return HarnessError(
          call,
          again.status().Annotate("starting the worker again (the one started ahead had failed: " +
                                  call.restarted_because + ")"));
    }
    call.worker = std::move(*again);
    call.Step("restarted");
    call.hello_failure =
        call.worker->Request(HelloCommand(rules_, *call.worker), rules_.limits.worker_start_s,
                             "starting the worker", &call.reply, /*spin=*/false);
  }
  return Flow::kGoOn;
}

RunLoop::Flow RunLoop::ResumePrepared(CallState& call) {
  // The call before shared this one's warm-up and is stopped, every process of its uid, as this
  // one was through that call's priming and timed call; both are killed after the next call's
  // calibration. One that could not be stopped is gone before this call's priming.
  if (finishing_.AnyKilled()) {
    finishing_.Finish();
    call.Step("previous_closed");
  } else if (!finishing_.AwaitStopped(&call.previous)) {
    call.Step("previous_closed");
  }
  Status thawed = call.worker->Freeze(false, /*whole_uid=*/true);
  if (!thawed.ok()) {
    return Fail(call,
                CallFailure{kRuleCrash, thawed.Annotate("thawing the worker").message(), true});
  }
  call.Step("thawed");
  return Flow::kGoOn;
}

RunLoop::Flow RunLoop::MeetWorker(CallState& call) {
  const size_t index = call.index;
  CallWorker& worker = *call.worker;
  if (call.hello_failure) {
    call.hello_failure->harness = true;
    if (!call.restarted_because.empty()) {
      call.hello_failure->message +=
          " (started again: the worker started ahead had failed too: " + call.restarted_because +
          ")";
    }
    return Fail(call, *call.hello_failure);
  }
  const Json& hello = call.reply.header;
  call.record.hello = hello;
  call.Step("hello");
  AddWorkerSteps(hello, &call.steps, call.call_started_ns);
  // A last call's worker that was killed at once (a partial sandbox, or one that could not be
  // stopped) is gone before this call's calibration.
  if (!finishing_.empty() && (!isolated_ || finishing_.AnyKilled())) finishing_.Finish();
  if (!RunsAsItsUid(hello, worker, isolated_)) {
    return Fail(call, CallFailure{kRuleCrash,
                                  "the worker does not run as its sandbox user (uid " +
                                      std::to_string(worker.uid()) + ")",
                                  true});
  }
  if (index == 0 && inputs_.observer) {
    call.first_window_ready = true;
    Status done = inputs_.observer->BeforeFirstWindow(&hello);
    if (!done.ok()) return HarnessError(call, done);
    inputs_.observer->FirstWorker(hello);
  }
  spin_ = TextOf(hello, "device") == "cuda";
  board_uuid_ = TextOf(hello, "uuid");
  const bool native = inputs_.submission.native;
  if (spin_ && workers_ahead_ == kNativeWorkersAhead && native) {
    workers_ahead_ = kNativeWorkersAheadOnGpu;
  }
  if (spin_ && index == 0 && may_pair_) {
    workers_ahead_ = native ? kNativeWorkersAheadPaired : kPythonWorkersAheadPaired;
  } else if (!spin_ && index == 0 && isolated_) {
    // A board found to be a GPU whose worker runs on the CPU: the single calls' counts.
    workers_ahead_ = native ? kNativeWorkersAhead : kPythonWorkersAhead;
  }
  if (spin_ && !copy_threads_) {
    // The board's copy engine reads what the copy threads write: streaming stores (copy_threads.h).
    copy_threads_ = std::make_unique<CopyThreads>(
        CopyThreads::HelpersFor(CopyThreads::UsableCores()), Stores::kStreaming);
  }
  return Flow::kGoOn;
}

RunLoop::Flow RunLoop::CalibrateCall(CallState& call) {
  // Nothing of a later call's start-up runs during a window of this one.
  if (std::optional<CallFailure> failure = Freeze(true)) return Fail(call, *failure);
  if (finishing_.AnyStopped() && !finishing_.AwaitStopped(&call.previous)) {
    call.Step("previous_closed");
  }
  call.Step("froze");
  // Calibration: the empty method's round trip, before the method is imported.
  if (std::optional<CallFailure> failure =
          CalibrateClean(*call.worker, &call.record.overhead_ms, &call.calibration_phases,
                         &call.previous, &call.steps, call.call_started_ns)) {
    return Fail(call, *failure);
  }
  call.Step("calibrated");
  return Flow::kGoOn;
}

RunLoop::Flow RunLoop::TimedCall(CallState& call) {
  CallWorker& worker = *call.worker;
  CallRecord& record = call.record;
  // The harness's failures from here on keep this call as attempted, its log with it.
  if (!call.timed.ok()) {
    return Fail(call, CallFailure{kRuleCrash, call.timed.status().message(), /*harness=*/true});
  }
  if (!call.ahead_started.ok()) {
    return Fail(call, CallFailure{kRuleCrash, call.ahead_started.message(), /*harness=*/true});
  }
  const Draw& timed = *call.timed;
  // The inputs' sha256 goes into the evidence.
  record.inputs_sha256 = InputsSha256(timed);
  // One more than in the calibration, when started since.
  const size_t frozen_ahead = ahead_.Live() + (prepared_ ? 1 : 0);
  if (std::optional<CallFailure> failure = Freeze(true)) return Fail(call, *failure);
  call.Step("refroze");
  // The timed window is entered as each calibration call's was: right after empty calls of the
  // same kind, so that the processor's and the device's state (clocks, caches, the copy path) is
  // the one the calibration measured, not the one a pause after the warm-up leaves.
  for (int i = 0; i < kPrimingCalls; ++i) {
    WindowResult result;
    // The method is loaded by now: whatever stops an empty call is counted against it.
    if (std::optional<CallFailure> failure = worker.RunWindow(
            EmptyCall("priming the protocol before the timed call"), rules_.draw.test, &result)) {
      return Fail(call, *failure);
    }
  }
  call.Step("primed");
  WindowRequest request;
  request.draw = &timed;
  request.staging = &staging_;
  request.timeout_s = rules_.limits.max_call_ms / 1e3 + rules_.limits.timed_call_grace_s;
  request.stage_s = rules_.limits.stage_s;
  request.doing = "running the method on " + DrawPhrase(timed.dataset);
  request.spin = spin_;
  request.copy_threads = copy_threads_.get();
  WindowResult result;
  if (std::optional<CallFailure> failure = worker.RunWindow(request, rules_.draw.test, &result)) {
    return Fail(call, *failure);
  }
  // A limit hit during the call disqualifies it even when the method recovered (caught the
  // refused fork, the full folder); read after the clock stopped.
  if (std::optional<CallFailure> limit = worker.LimitHit()) return Fail(call, *limit);
  if (result.ms > rules_.limits.max_call_ms) {
    return Fail(
        call,
        CallFailure{kRuleTimeout,
                    "a call took " + FormatFixed(result.ms, 0, true) + " ms; the limit is " +
                        FormatGrouped(static_cast<int64_t>(rules_.limits.max_call_ms)) + " ms"});
  }
  record.ms = result.ms;
  record.parent_ms = result.parent_ms;
  call.Step("timed");
  if (std::optional<CallFailure> failure = Freeze(false)) return Fail(call, *failure);
  for (size_t i = 0; i < result.labels.size(); ++i) {
    if (static_cast<int64_t>(static_cast<uint8_t>(result.labels[i])) == timed.test_y[i]) {
      ++record.correct;
    }
  }
  record.labels = std::move(result.labels);
  record.phases =
      Json{{"timed", result.phases},
           {"calibration", MedianPhases(call.calibration_phases)},
           {"frozen_ahead", frozen_ahead},
           {"write_threads", copy_threads_ ? copy_threads_->threads() : 1},
           {"write_stores", StoresName(copy_threads_ ? copy_threads_->stores() : Stores::kCached)},
           {"group", worker.GroupUsageJson()}};
  if (!worker.caches_sha256().empty()) record.phases["caches_sha256"] = worker.caches_sha256();
  if (call.paired_with) record.phases["paired_with"] = call.paired_with;
  if (!call.previous.empty()) record.phases["previous"] = call.previous;
  if (!call.restarted_because.empty()) record.phases["restarted_because"] = call.restarted_because;
  return Flow::kGoOn;
}

void RunLoop::Retire(CallState& call) {
  auto done = std::make_unique<FinishedCall>();
  done->worker = std::move(call.worker);
  done->record = std::move(call.record);
  done->call_started_ns = call.call_started_ns;
  done->record.phases["steps"] = call.steps;
  // The method's processes are stopped now (the parent confirms it before the next window; what
  // they queued on the device still runs, see clean_overhead_ms_) and killed after the next
  // calibration (see FinishedCalls): a pair's first call's stays stopped through the second
  // call's priming and timed call, and both are killed after the calibration after them. Or
  // killed now, with any other finished one: the last call's, under a partial sandbox, or when
  // they cannot be stopped.
  const bool stopped =
      isolated_ && call.index + 1 < count_ && done->worker->Freeze(true, /*whole_uid=*/true).ok();
  if (stopped) done->record.phases["steps"]["stopped"] = MsSince(call.call_started_ns);
  finishing_.Add(std::move(done));
  if (!stopped) (void)finishing_.Release();  // waited for before the next window
}

RunLoop::Flow RunLoop::Fail(CallState& call, CallFailure failure) {
  CallWorker& worker = *call.worker;
  CallRecord& record = call.record;
  // A limit the worker reached is what ended the call, whatever failed with it (a malformed
  // result, a deadline, a step of the harness): read before Close() removes its folder.
  if (failure.rule != kRuleMemory && failure.rule != kRuleProcesses && failure.rule != kRuleDisk) {
    if (std::optional<CallFailure> limit = worker.LimitHit()) {
      limit->message += "\n(then: " + failure.message + ")";
      failure = *limit;
    }
  }
  worker.Close();
  // The contract comes before every file of the run, even when the first worker never gave a
  // hello it could take facts from (its error, if any, comes again when the run ends).
  if (call.index == 0 && !call.first_window_ready && inputs_.observer) {
    call.first_window_ready = true;
    (void)inputs_.observer->BeforeFirstWindow(nullptr);
  }
  // What the machine held beside the failed call: its steps, and the workers started ahead (each
  // with its own device context and memory).
  record.phases["steps"] = call.steps;
  record.phases["alive_ahead"] = ahead_.Live() + (prepared_ ? 1 : 0);
  if (!worker.caches_sha256().empty()) record.phases["caches_sha256"] = worker.caches_sha256();
  if (copy_threads_) {
    record.phases["write_threads"] = copy_threads_->threads();
    record.phases["write_stores"] = StoresName(copy_threads_->stores());
  }
  if (!call.previous.empty()) record.phases["previous"] = call.previous;
  if (call.paired_with) record.phases["paired_with"] = call.paired_with;
  EndRun();  // the last call completed, the workers ahead and every worker uid killed
  if (!call.restarted_because.empty()) record.phases["restarted_because"] = call.restarted_because;
  record.log = worker.log();
  record.log_total_bytes = worker.log_total_bytes();
  record.worker_exit = worker.exit_description();
  if (failure.harness) {
    // Not the method's doing: the run ends without a verdict, but what it did is kept.
    failure.message = "the harness could not run call " + std::to_string(call.index + 1) + ": " +
                      failure.message +
                      (record.log.empty() ? "" : "\nworker output:\n" + ValidUtf8(record.log));
    outcome_.harness_failure = std::move(failure);
  } else {
    outcome_.failure = std::move(failure);
  }
  outcome_.calls.push_back(std::move(record));
  return Flow::kEnded;
}

RunLoop::Flow RunLoop::HarnessError(CallState& call, const Status& status) {
  // Before the first call completed, the command's error; later, the run ends as the harness's
  // failure, with every completed call kept.
  if (call.index == 0 && finishing_.empty()) {
    error_ = status;
    return Flow::kEnded;
  }
  EndRun();
  outcome_.harness_failure = CallFailure{
      kRuleCrash,
      "the harness could not run call " + std::to_string(call.index + 1) + ": " + status.message(),
      /*harness=*/true};
  return Flow::kEnded;
}

void RunLoop::EndRun() {
  finishing_.Finish();
  prepared_.reset();  // its worker killed and waited for
  ahead_.Clear();     // each is killed and waited for
  starter_.KillWorkerUids();
}

std::optional<CallFailure> RunLoop::Freeze(bool stop) {
  Status status = ahead_.Freeze(stop);
  if (status.ok()) return std::nullopt;
  return CallFailure{kRuleCrash, status.message(), /*harness=*/true};
}

std::optional<CallFailure> RunLoop::Calibrate(CallWorker& worker, double* overhead_ms,
                                              std::vector<Json>* phases) {
  std::vector<double> samples;
  phases->clear();
  for (int64_t i = 0; i < rules_.timing.calibration_calls; ++i) {
    WindowResult result;
    if (std::optional<CallFailure> failure =
            worker.RunWindow(EmptyCall("calibrating the protocol"), rules_.draw.test, &result)) {
      failure->harness = true;
      return failure;
    }
    if (i >= rules_.timing.calibration_discard) {
      samples.push_back(result.parent_ms - result.ms);
      phases->push_back(result.phases);
    }
  }
  *overhead_ms = Median(samples);
  return std::nullopt;
}

// Calibrates `worker`; one made beside the last call's stopped worker and slower than every
// calibration made with no method alive is made again with that worker gone.
std::optional<CallFailure> RunLoop::CalibrateClean(CallWorker& worker, double* overhead_ms,
                                                   std::vector<Json>* phases, Json* noted,
                                                   Json* steps_of, int64_t started_ns) {
  if (std::optional<CallFailure> failure = Calibrate(worker, overhead_ms, phases)) return failure;
  const bool beside_previous = finishing_.AnyStopped();
  if (beside_previous &&
      (!clean_overhead_ms_ || *overhead_ms > *clean_overhead_ms_ + rules_.timing.floor_slack_ms)) {
    (*noted)["recalibrated"] =
        Json{{"overhead_ms", *overhead_ms},
             {"clean_overhead_ms", clean_overhead_ms_ ? Json(*clean_overhead_ms_) : Json()}};
    finishing_.Finish();
    (*steps_of)["previous_closed"] = MsSince(started_ns);
    if (std::optional<CallFailure> failure = Calibrate(worker, overhead_ms, phases)) {
      return failure;
    }
  }
  if (finishing_.empty()) {  // made with no earlier method alive
    clean_overhead_ms_ = std::max(clean_overhead_ms_.value_or(0), *overhead_ms);
  }
  return std::nullopt;
}

// An empty call as the calibration makes it (and the empty calls before the timed one).
WindowRequest RunLoop::EmptyCall(const char* doing) {
  WindowRequest request;
  request.empty = &empty_;
  request.staging = &staging_;
  request.null_method = true;
  request.timeout_s = rules_.limits.null_call_s;
  request.stage_s = rules_.limits.stage_s;
  request.doing = doing;
  request.spin = spin_;
  request.copy_threads = copy_threads_.get();
  return request;
}

std::optional<CallFailure> RunLoop::Load(CallWorker& worker, Frame* reply) {
  if (std::optional<CallFailure> failure = worker.EnterMethod()) return failure;
  const std::string entry = worker.folder() + "/" + SubmissionEntry(inputs_.submission);
  return worker.Request(
      Json{{"cmd", "load"}, {"path", entry}, {"function", inputs_.submission.function}},
      rules_.limits.import_s, "importing the method file", reply, /*spin=*/false);
}

Result<MemoryReading> RunLoop::ReadMemory() {
  return gauge_ ? gauge_->Read() : Result<MemoryReading>(Status::Unavailable(gauge_missing_));
}

// After a pair's failure: no pair again, and the calls come at the pace of single ones.
void RunLoop::StopPairing() {
  pairing_failed_ = true;
  if (workers_ahead_ > 0) {
    workers_ahead_ = !inputs_.submission.native ? kPythonWorkersAhead
                     : spin_                    ? kNativeWorkersAheadOnGpu
                                                : kNativeWorkersAhead;
  }
}

void RunLoop::CallDone(CallRecord record) {
  outcome_.calls.push_back(std::move(record));
  if (inputs_.observer) {
    inputs_.observer->CallComplete(outcome_.calls.size(), count_, outcome_.calls.back());
  }
}

}  // namespace ratchet
