#include "scorer/run.h"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>

#include "contract/workers.h"
#include "core/file.h"
#include "core/sha256.h"
#include "rules/pyformat.h"
#include "sandbox/reap.h"
#include "sandbox/spawn.h"
#include "scorer/draw_source.h"
#include "scorer/go.h"

namespace ratchet {
namespace {


double Seconds(std::chrono::steady_clock::time_point since) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - since).count();
}

std::string DrawPhrase(const std::string& dataset, const char* which = "a") {
  return std::string(which) + " " + dataset + " draw";
}

// sha256 over train_x, train_y and test_x, in the input buffer's order and byte layout.
std::string InputsSha256(const Draw& draw) {
  Sha256 hash;
  hash.Update(draw.train_x.data(), draw.train_x.size() * sizeof(float));
  hash.Update(draw.train_y.data(), draw.train_y.size() * sizeof(int64_t));
  hash.Update(draw.test_x.data(), draw.test_x.size() * sizeof(float));
  return hash.HexDigest();
}

}  // namespace

std::vector<Problem> RunOutcome::problems() const {
  if (failure) return {Problem{failure->rule, failure->message}};
  if (judgement) return judgement->problems;
  return {};
}

Result<WorkerLaunch> LaunchFor(const Submission& submission, const RuleSet& rules,
                               const std::vector<std::string>& covered, const std::string& python) {
  WorkerLaunch launch;
  if (submission.native) {
    Result<std::string> worker = NativeWorkerPath();
    if (!worker.ok()) return worker.status();
    // The worker runs from a copy in its own folder, like everything else it is given: the build
    // tree may be out of the sandbox user's reach.
    launch.argv = {std::string(kWorkerFolderToken) + "/" + BaseName(*worker)};
    launch.copies = {*worker, submission.library};
  } else {
    Result<std::string> worker = PythonWorkerFile("worker.py");
    if (!worker.ok()) return worker.status();
    launch.copies = {*worker};
    launch.files = {{BaseName(submission.path), submission.source}};
    launch.argv = {python, "-u", "-E", "-s", std::string(kWorkerFolderToken) + "/worker.py"};
  }
  launch.covered = covered;
  launch.train = rules.draw.train;
  launch.test = rules.draw.test;
  launch.dims = rules.draw.dims;
  launch.max_header = static_cast<uint32_t>(rules.limits.max_header);
  launch.max_reply_bytes = static_cast<uint32_t>(rules.limits.max_reply_bytes);
  launch.log_bytes = static_cast<size_t>(rules.limits.worker_log_bytes);
  return launch;
}

Result<RunOutcome> ScoreOnce(const RunInputs& inputs, const ProgressSink& say) {
  const RuleSet& rules = *inputs.rules;
  const auto run_started = std::chrono::steady_clock::now();
  std::vector<std::string> foreign_present;
  for (const std::string& name : rules.datasets.foreign) {
    for (const LocatedDataset& located : inputs.datasets) {
      if (located.name == name && located.present) foreign_present.push_back(name);
    }
  }
  Result<RunPlan> plan = MakeRunPlan(inputs.seed, rules, foreign_present);
  if (!plan.ok()) return plan.status();
  RunOutcome outcome;
  outcome.plan = *plan;
  DrawSource draws(inputs.seed, inputs.datasets);

  Result<WorkerLaunch> launched = LaunchFor(inputs.submission, rules, inputs.covered, inputs.python);
  if (!launched.ok()) return launched.status();
  const WorkerLaunch& launch = *launched;
  const EmptyInputs empty(rules.draw);
  const bool sandbox_full = DescribeSandbox().full;
  const size_t count = outcome.plan.calls.size();

  for (size_t index = 0; index < count; ++index) {
    const PlannedCall& planned = outcome.plan.calls[index];
    if (inputs.interrupted && inputs.interrupted->load()) {
      outcome.interrupted = true;
      return outcome;
    }
    if (Seconds(run_started) > rules.limits.run_max_s) {
      outcome.failure = CallFailure{"run-time", "the run took more than " +
                                                    std::to_string(rules.limits.run_max_s / 60) +
                                                    " minutes"};
      return outcome;
    }
    // Before the first worker, whatever an older run or another scorer left on the machine goes;
    // later, the last worker's processes (its files and IPC objects died with its namespaces).
    if (sandbox_full) {
      RATCHET_RETURN_IF_ERROR(index == 0 ? ReapSandbox(kSandboxUid) : KillSandboxProcesses(kSandboxUid));
    }
    Result<std::unique_ptr<WorkerProcess>> started = WorkerProcess::Start(launch);
    if (!started.ok()) return started.status();
    WorkerProcess& worker = **started;
    // The draws are made while the worker starts (loading torch takes it longer); the timed one
    // reaches it only inside its window.
    Result<Draw> warm = draws.Make(planned.warmup_dataset, planned.warmup_draw_index);
    if (!warm.ok()) return warm.status();
    Result<Draw> timed = draws.Make(planned.dataset, planned.draw_index);
    if (!timed.ok()) return timed.status();
    if (index == 0 && inputs.before_first_call) RATCHET_RETURN_IF_ERROR(inputs.before_first_call());
    const std::string folder = worker.folder();
    CallRecord record;
    record.dataset = planned.dataset;
    record.draw_index = planned.draw_index;
    record.warmup_dataset = planned.warmup_dataset;
    record.warmup_draw_index = planned.warmup_draw_index;
    record.total = rules.draw.test;

    auto fail = [&](CallFailure failure) -> Result<RunOutcome> {
      worker.Close();
      record.log = worker.log();
      record.log_total_bytes = worker.log_total_bytes();
      record.worker_exit = worker.exit_description();
      if (failure.harness) {
        // Not the method's doing: the run ends without a verdict, but what it did is kept.
        failure.message = "the harness could not run call " + std::to_string(index + 1) + ": " +
                          failure.message +
                          (record.log.empty() ? "" : "\nworker output:\n" + record.log);
        outcome.harness_failure = std::move(failure);
      } else {
        outcome.failure = std::move(failure);
      }
      outcome.calls.push_back(std::move(record));
      return std::move(outcome);
    };

    Frame reply;
    Json hello = {{"cmd", "hello"},
                  {"train", rules.draw.train},
                  {"test", rules.draw.test},
                  {"dims", rules.draw.dims},
                  {"buffer_bytes", worker.buffer().bytes()}};
    if (std::optional<CallFailure> failure =
            worker.Request(hello, rules.limits.worker_start_s, "starting the worker", &reply)) {
      failure->harness = true;
      return fail(*failure);
    }
    record.hello = reply.header;
    if (sandbox_full && reply.header.value("sandbox", Json::object()).value("uid", -1) != kSandboxUid) {
      return fail(CallFailure{"crash", "the worker does not run as the sandbox user", true});
    }
    if (index == 0) {
      say("  " + reply.header.value("device_name", std::string("?")) + ", torch " +
          reply.header.value("torch", std::string("?")) + ", sandbox " +
          (sandbox_full ? "on" : "partial (" + DescribeSandbox().partial_reason +
                                     "): not an official time"));
    }

    // Calibration: the empty method's round trip, before the method is imported.
    std::vector<double> samples;
    for (int64_t i = 0; i < rules.timing.calibration_calls; ++i) {
      GoResult result;
      GoRequest request;
      request.empty = &empty;
      request.null_method = true;
      request.timeout_s = rules.limits.null_call_s;
      request.stage_s = rules.limits.stage_s;
      request.doing = "calibrating the protocol";
      if (std::optional<CallFailure> failure = Go(worker, request, rules.draw.test, &result)) {
        failure->harness = true;
        return fail(*failure);
      }
      if (i >= rules.timing.calibration_discard) samples.push_back(result.parent_ms - result.ms);
    }
    record.overhead_ms = Median(samples);

    const std::string entry = inputs.submission.native ? folder + "/" + BaseName(inputs.submission.library)
                                                       : folder + "/" + BaseName(inputs.submission.path);
    if (std::optional<CallFailure> failure =
            worker.Request(Json{{"cmd", "load"}, {"path", entry}, {"function", inputs.submission.function}},
                           rules.limits.import_s, "importing the method file", &reply)) {
      return fail(*failure);
    }
    const double warm_limit_s =
        (index == 0 ? rules.limits.warmup_max_call_ms : rules.limits.later_warmup_max_call_ms) / 1e3;
    GoRequest warm_request;
    warm_request.draw = &*warm;
    warm_request.timeout_s = warm_limit_s;
    warm_request.stage_s = rules.limits.stage_s;
    warm_request.doing = "running the method on the untimed warm-up on " + DrawPhrase(warm->dataset);
    GoResult warm_result;
    if (std::optional<CallFailure> failure = Go(worker, warm_request, rules.draw.test, &warm_result)) {
      return fail(*failure);
    }
    GoRequest timed_request;
    timed_request.draw = &*timed;
    timed_request.timeout_s = rules.limits.max_call_ms / 1e3 + rules.limits.timed_call_grace_s;
    timed_request.stage_s = rules.limits.stage_s;
    timed_request.doing = "running the method on " + DrawPhrase(timed->dataset);
    GoResult timed_result;
    if (std::optional<CallFailure> failure = Go(worker, timed_request, rules.draw.test, &timed_result)) {
      return fail(*failure);
    }
    if (timed_result.ms > rules.limits.max_call_ms) {
      return fail(CallFailure{"timeout", "a call took " + FormatFixed(timed_result.ms, 0, true) +
                                             " ms; the limit is " +
                                             FormatGrouped(static_cast<int64_t>(rules.limits.max_call_ms)) +
                                             " ms"});
    }
    // The inputs' sha256 goes into the evidence; taken after the call, so that the draw is as
    // cold in memory at the window's opening as it was made.
    record.inputs_sha256 = InputsSha256(*timed);
    record.ms = timed_result.ms;
    record.parent_ms = timed_result.parent_ms;
    for (size_t i = 0; i < timed_result.labels.size(); ++i) {
      if (static_cast<int64_t>(static_cast<uint8_t>(timed_result.labels[i])) == timed->test_y[i]) {
        ++record.correct;
      }
    }
    record.labels = std::move(timed_result.labels);
    worker.Close();
    record.log = worker.log();
    record.log_total_bytes = worker.log_total_bytes();
    record.worker_exit = worker.exit_description();
    say("  call " + std::string(index + 1 < 10 ? " " : "") + std::to_string(index + 1) + "/" +
        std::to_string(count) + ": " + FormatFixed(record.ms, 3, true) + " ms, scorer's clock " +
        FormatFixed(std::max(0.0, record.parent_ms - record.overhead_ms), 3, true) + " ms");
    outcome.calls.push_back(std::move(record));
  }

  std::vector<Call> calls;
  for (const CallRecord& record : outcome.calls) {
    calls.push_back(Call{record.dataset, record.ms, record.parent_ms, record.correct, record.total,
                         record.overhead_ms});
  }
  Result<Judgement> judgement = Judge(calls, inputs.band_bp, rules);
  if (!judgement.ok()) return judgement.status();
  outcome.judgement = *judgement;
  return outcome;
}

}  // namespace ratchet
