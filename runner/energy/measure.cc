#include "energy/measure.h"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <future>
#include <thread>

#include "core/clock.h"
#include "core/file.h"
#include "data/rerelease.h"
#include "energy/energy_file.h"
#include "energy/windows.h"
#include "rules/pyformat.h"
#include "scorer/draw_source.h"
#include "scorer/plan.h"
#include "scorer/window.h"

namespace ratchet {
namespace {

using Clock = std::chrono::steady_clock;

// Threads for one rerelease (made while the previous call runs): enough to keep it well under a
// fast method's round trip, few enough to leave the machine quiet.
constexpr unsigned kRereleaseThreads = 8;

std::string DeviceName(const Json& device) {
  const Json name = device.is_object() ? device.value("name", Json()) : Json();
  return name.is_string() ? name.get<std::string>() : "None";
}

Status Interrupted() { return Status::Unavailable("interrupted by a signal"); }

// The method back to back on the draws made for it, then on rereleases of them, until the
// window has lasted energy_window_s and made at least energy_min_calls calls.
Status MethodWindow(WorkerProcess& worker, const std::vector<Draw>& draws, const EnergyInputs& in,
                    EnergyWindow* window) {
  const RuleSet& rules = *in.rules;
  const unsigned threads =
      std::max(1u, std::min(kRereleaseThreads, std::thread::hardware_concurrency()));
  auto rerelease = [&](size_t call) {
    return Rerelease(draws[call % draws.size()], in.seed, call, threads);
  };
  std::future<Result<Draw>> next;  // the next call's rerelease, made while this call runs
  std::optional<Draw> again;
  const Clock::time_point start = Clock::now();
  while (static_cast<int64_t>(window->ms.size()) < rules.energy.energy_min_calls ||
         SecondsSince(start) < rules.energy.energy_window_s) {
    if (in.interrupted != nullptr && in.interrupted->load()) return Interrupted();
    const size_t call = window->ms.size();
    const Draw* draw = nullptr;
    if (call < draws.size()) {
      draw = &draws[call];
    } else {
      Result<Draw> made = next.valid() ? next.get() : rerelease(call);
      if (!made.ok()) return made.status();
      again = std::move(made).value();
      draw = &*again;
    }
    if (call + 1 >= draws.size()) next = std::async(std::launch::async, rerelease, call + 1);
    WindowRequest request;
    request.draw = draw;
    request.collect = false;
    request.timeout_s = static_cast<double>(rules.limits.max_call_ms) / 1e3 +
                        static_cast<double>(rules.limits.timed_call_grace_s);
    request.doing = "running the method on a " + draw->dataset + " draw in the energy window";
    WindowResult result;
    if (std::optional<CallFailure> failure = RunWindow(worker, request, rules.draw.test, &result)) {
      return Status::Unavailable(failure->message);
    }
    int64_t correct = 0;
    for (size_t i = 0; i < result.labels.size() && i < draw->test_y.size(); ++i) {
      correct += static_cast<int64_t>(static_cast<uint8_t>(result.labels[i])) == draw->test_y[i];
    }
    window->ms.push_back(result.ms);
    window->correct.push_back(correct);
  }
  window->calls = static_cast<int64_t>(window->ms.size());
  return Status::Ok();
}

// The measurement itself: every window it completes goes into `out`, whatever ends it.
Status Measure(const EnergyInputs& in, const BoardOpener& open, EnergyOutcome* out,
               Json* draws_made) {
  const RuleSet& rules = *in.rules;
  const int64_t timed_calls = rules.calls.mnist_calls + rules.calls.holdout_calls;
  if (kWarmupDrawBase + static_cast<uint64_t>(timed_calls) > kEnergyWarmupDraw) {
    return Status::Internal("the rule set's " + std::to_string(timed_calls) +
                            " timed calls would share draw indices with the energy column's");
  }
  // Before any worker starts, so that a machine without the driver says so at once.
  Result<std::unique_ptr<BoardDriver>> driver = open();
  if (!driver.ok()) return driver.status();
  Result<WorkerLaunch> launch = LaunchFor(in.submission, rules, in.covered, in.python);
  if (!launch.ok()) return launch.status();
  Result<std::unique_ptr<WorkerProcess>> started = StartEnergyWorker(*launch);
  if (!started.ok()) return started.status();
  WorkerProcess& worker = **started;  // closed when `started` goes, however this ends

  // The draws are made while the worker starts; each reaches it only inside the method window.
  DrawSource source(in.seed, in.datasets);
  Result<Draw> warm = source.Make(in.warmup_dataset, kEnergyWarmupDraw);
  if (!warm.ok()) return warm.status();
  const int64_t count = EnergyDrawCount(rules, in.timed_mnist_ms_median);
  std::vector<Draw> draws;
  for (int64_t i = 0; i < count; ++i) {
    if (in.interrupted != nullptr && in.interrupted->load()) return Interrupted();
    Result<Draw> draw =
        source.Make(rules.datasets.mnist, kEnergyDrawBase + static_cast<uint64_t>(i));
    if (!draw.ok()) return draw.status();
    draws.push_back(std::move(draw).value());
  }
  *draws_made = {{"warmup", {{"dataset", in.warmup_dataset}, {"draw_index", kEnergyWarmupDraw}}},
                 {"method",
                  {{"dataset", rules.datasets.mnist},
                   {"first_draw_index", kEnergyDrawBase},
                   {"draws", count}}}};

  Result<Json> hello = GreetEnergyWorker(worker, rules);
  if (!hello.ok()) return hello.status();
  const Json uuid = hello->value("uuid", Json());
  Result<std::unique_ptr<Board>> board = (*driver)->Select(
      uuid.is_string() ? std::optional<std::string>(uuid.get<std::string>()) : std::nullopt);
  if (!board.ok()) return board.status();
  out->device = (*board)->Describe();

  WindowMeter meter(**board, worker, rules, in.interrupted);
  const EmptyInputs empty(rules.draw);
  auto steps = [&]() -> Status {
    RATCHET_RETURN_IF_ERROR(meter.Idle("idle 1"));
    RATCHET_RETURN_IF_ERROR(meter.Reference());
    RATCHET_RETURN_IF_ERROR(meter.Idle("idle 2"));
    RATCHET_RETURN_IF_ERROR(meter.Control(empty));
    // The method, imported and warmed up on a foreign draw as before a timed call.
    const std::string entry = worker.folder() + "/" + SubmissionEntry(in.submission);
    Frame reply;
    if (std::optional<CallFailure> failure = worker.Request(
            Json{{"cmd", "load"}, {"path", entry}, {"function", in.submission.function}},
            static_cast<double>(rules.limits.import_s), "importing the method file", &reply)) {
      return Status::Unavailable(failure->message);
    }
    WindowRequest warm_request;
    warm_request.draw = &*warm;
    warm_request.timeout_s = static_cast<double>(rules.limits.later_warmup_max_call_ms) / 1e3;
    warm_request.stage_s = static_cast<double>(rules.limits.stage_s);
    warm_request.doing =
        "running the method on the untimed warm-up on a " + warm->dataset + " draw";
    WindowResult warm_result;
    if (std::optional<CallFailure> failure =
            RunWindow(worker, warm_request, rules.draw.test, &warm_result)) {
      return Status::Unavailable(failure->message);
    }
    RATCHET_RETURN_IF_ERROR(meter.Idle("idle 3"));
    RATCHET_RETURN_IF_ERROR(meter.Measure(
        "method", [&](EnergyWindow* window) { return MethodWindow(worker, draws, in, window); }));
    return meter.Idle("idle 4");
  };
  Status done = steps();
  out->windows = meter.windows();
  return done;
}

}  // namespace

int64_t EnergyDrawCount(const RuleSet& rules, double timed_mnist_ms_median) {
  const double wanted =
      static_cast<double>(rules.energy.energy_min_calls) +
      std::ceil(rules.energy.energy_window_s * 1e3 / std::max(timed_mnist_ms_median, 1.0));
  if (!(wanted < static_cast<double>(rules.energy.energy_draws))) return rules.energy.energy_draws;
  return static_cast<int64_t>(wanted);
}

Json EnergyOutcome::ReportJson() const {
  return EnergySummaryJson(evidence);
}

EnergyOutcome MeasureEnergyColumn(const EnergyInputs& in, const BoardOpener& open) {
  EnergyOutcome out;
  auto not_measured = [&](const std::string& reason) {
    out.column.reset();
    out.reason = reason;
    out.evidence = EnergyNotMeasuredJson(reason);
    return out;
  };
  Json draws;
  Status measured = Measure(in, open, &out, &draws);
  if (in.interrupted != nullptr && in.interrupted->load()) {
    out.interrupted = true;
    return not_measured("interrupted by a signal");
  }
  if (!measured.ok()) return not_measured(measured.message());
  Result<EnergyColumn> column = RecomputeEnergy(out.windows, DeviceName(out.device),
                                                in.timed_mnist_ms_median, in.band_bp, *in.rules);
  if (!column.ok()) return not_measured("the windows give no column: " + column.status().message());
  Json evidence = EnergyColumnJson(*column, out.windows, out.device, Json{{"draws", draws}});
  if (!AllFinite(evidence)) {
    return not_measured(
        "the windows give a figure that is not a finite number (a window of no "
        "time, or a reference of no work)");
  }
  out.column = std::move(column).value();
  out.evidence = std::move(evidence);
  return out;
}

std::string EnergyIntroLine(const RuleSet& rules) {
  return "energy: one more fresh process runs the method back to back on fresh MNIST draws for " +
         FormatGeneral(rules.energy.energy_window_s) +
         " s, between idle windows in which it is frozen";
}

std::vector<std::string> EnergyLines(const EnergyOutcome& outcome) {
  if (!outcome.column) return {"energy not measured: " + outcome.reason};
  const EnergyColumn& c = *outcome.column;
  const std::string name = DeviceName(outcome.device);
  const std::string check = c.band != nullptr ? "a healthy " + name + " reads " +
                                                    FormatGeneral(c.band->j_per_tflop.low) + "-" +
                                                    FormatGeneral(c.band->j_per_tflop.high)
                                              : "unchecked on this GPU";
  std::vector<std::string> lines = {
      "  " + name + ": idle " + FormatFixed(c.idle_w, 1) +
          " W with the method frozen; telemetry reference " + FormatFixed(c.tflops_per_s, 1) +
          " TFLOP/s at " + FormatFixed(c.j_per_tflop, 2) + " J/TFLOP above idle (" + check + ")",
      "  the round trip alone: " + FormatFixed(c.control_mj_per_call, 1, true) +
          " mJ per call over " + FormatGrouped(c.control_calls) + " empty calls, subtracted",
      "  the method: " + FormatGrouped(c.calls) + " calls in " + FormatFixed(c.seconds, 1) +
          " s, MNIST " +
          FormatPercent(static_cast<double>(c.correct) / static_cast<double>(c.total), 2) + ", " +
          FormatFixed(c.ms_median, 3, true) + " ms per call, " + FormatFixed(c.active_w, 1) +
          " W on average"};
  for (const std::string& problem : c.problems) lines.push_back("energy not measured: " + problem);
  if (c.mj_per_call) {
    lines.push_back("energy " + FormatFixed(*c.mj_per_call, 3) + " mJ per call above idle");
  }
  return lines;
}

}  // namespace ratchet
