#include "energy/telemetry.h"

#include <algorithm>

#include "contract/python.h"
#include "contract/workers.h"
#include "energy/energy_file.h"
#include "energy/windows.h"
#include "rules/judge.h"
#include "scorer/run.h"

namespace ratchet {

Result<WorkerLaunch> TelemetryLaunch(const RuleSet& rules,
                                     const std::optional<std::string>& python) {
  Submission none;
  none.function = "method";
  Result<std::string> native = NativeWorkerPath();
  if (native.ok()) {
    // The worker only (no library): the reference runs before any load.
    none.native = true;
    return LaunchFor(none, rules, {}, "");
  }
  Result<PythonFacts> interpreter = FindPython(python);
  if (!interpreter.ok()) {
    return Status::Unavailable("no worker to run the reference: " + native.status().message() +
                               "; and " + interpreter.status().message());
  }
  // An empty method file, never loaded: worker.py is started as for any Python submission.
  none.path = "telemetry.py";
  return LaunchFor(none, rules, {}, interpreter->path);
}

Result<TelemetryRun> MeasureTelemetryRun(const WorkerLaunch& launch, const RuleSet& rules,
                                         BoardDriver& driver,
                                         const std::atomic<bool>* interrupted) {
  Result<std::unique_ptr<WorkerProcess>> started = StartEnergyWorker(launch);
  if (!started.ok()) return started.status();
  WorkerProcess& worker = **started;
  Result<Json> hello = GreetEnergyWorker(worker, rules);
  if (!hello.ok()) return hello.status();
  const Json uuid = hello->value("uuid", Json());
  Result<std::unique_ptr<Board>> board = driver.Select(
      uuid.is_string() ? std::optional<std::string>(uuid.get<std::string>()) : std::nullopt);
  if (!board.ok()) return board.status();
  TelemetryRun run;
  run.device = (*board)->Describe();
  WindowMeter meter(**board, worker, rules, interrupted);
  RATCHET_RETURN_IF_ERROR(meter.Idle("idle 1"));
  RATCHET_RETURN_IF_ERROR(meter.Reference());
  RATCHET_RETURN_IF_ERROR(meter.Idle("idle 2"));
  run.windows = meter.windows();
  run.reading = ReadReference(run.windows[1], run.windows[0], run.windows[2]);
  const Json name = run.device.value("name", Json());
  const std::string device_name = name.is_string() ? name.get<std::string>() : "None";
  run.problems = TelemetryProblems(run.windows, run.windows[1], run.reading,
                                   rules.ReferenceBandFor(device_name), device_name);
  return run;
}

TelemetrySpread SpreadOf(const std::vector<TelemetryRun>& runs) {
  std::vector<double> tflops, joules;
  for (const TelemetryRun& run : runs) {
    if (!run.problems.empty()) continue;
    tflops.push_back(run.reading.tflops_per_s);
    joules.push_back(run.reading.j_per_tflop);
  }
  TelemetrySpread spread;
  spread.runs = static_cast<int>(tflops.size());
  if (tflops.empty()) return spread;
  spread.tflops_min = *std::min_element(tflops.begin(), tflops.end());
  spread.tflops_max = *std::max_element(tflops.begin(), tflops.end());
  spread.tflops_median = Median(tflops);
  spread.j_min = *std::min_element(joules.begin(), joules.end());
  spread.j_max = *std::max_element(joules.begin(), joules.end());
  spread.j_median = Median(joules);
  return spread;
}

Json TelemetryJson(const std::vector<TelemetryRun>& runs, const RuleSet& rules) {
  Json list = Json::array();
  Json device;
  for (const TelemetryRun& run : runs) {
    Json windows = Json::array();
    for (const EnergyWindow& w : run.windows) windows.push_back(EnergyWindowJson(w));
    list.push_back({{"windows", windows},
                    {"device", run.device},
                    {"tflops_per_s", run.reading.tflops_per_s},
                    {"j_per_tflop", run.reading.j_per_tflop},
                    {"problems", run.problems}});
    if (device.is_null()) device = run.device;
  }
  const TelemetrySpread spread = SpreadOf(runs);
  const Json name = device.is_object() ? device.value("name", Json()) : Json();
  const ReferenceBand* band =
      rules.ReferenceBandFor(name.is_string() ? name.get<std::string>() : "None");
  Json spread_json;
  if (spread.runs > 0) {
    spread_json = {{"runs", spread.runs},
                   {"tflops_per_s",
                    {{"min", spread.tflops_min},
                     {"median", spread.tflops_median},
                     {"max", spread.tflops_max}}},
                   {"j_per_tflop",
                    {{"min", spread.j_min}, {"median", spread.j_median}, {"max", spread.j_max}}}};
  }
  return {{"schema", "ratchet.telemetry/1"},
          {"rules", rules.id},
          {"reference_s", rules.energy.reference_s},
          {"dim", rules.energy.reference_dim},
          {"device", device},
          {"band", BandJson(band)},
          {"runs", list},
          {"spread", spread_json}};
}

}  // namespace ratchet
