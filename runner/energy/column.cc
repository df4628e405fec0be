#include "energy/column.h"

#include <algorithm>
#include <cmath>
#include <map>

#include "rules/judge.h"
#include "rules/pyformat.h"

namespace ratchet {

const std::vector<std::string>& EnergyWindowOrder() {
  static const std::vector<std::string> order = {"idle 1", "reference", "idle 2", "control",
                                                 "idle 3", "method",    "idle 4"};
  return order;
}

bool IsIdleWindow(const std::string& name) { return name.rfind("idle", 0) == 0; }

namespace {

double Watts(const EnergyWindow& window) { return window.joules / window.seconds; }

}  // namespace

double JoulesAboveIdle(const EnergyWindow& window, const EnergyWindow& before,
                       const EnergyWindow& after) {
  return window.joules - (Watts(before) + Watts(after)) / 2 * window.seconds;
}

ReferenceReading ReadReference(const EnergyWindow& reference, const EnergyWindow& idle_before,
                               const EnergyWindow& idle_after) {
  const int64_t flops = 2 * reference.dim * reference.dim * reference.dim * reference.matmuls;
  const double tflop = static_cast<double>(flops) / 1e12;
  ReferenceReading reading;
  reading.j_per_tflop = JoulesAboveIdle(reference, idle_before, idle_after) / tflop;
  reading.tflops_per_s = tflop / reference.seconds;
  return reading;
}

std::vector<std::string> TelemetryProblems(const std::vector<EnergyWindow>& windows,
                                           const EnergyWindow& reference,
                                           const ReferenceReading& reading,
                                           const ReferenceBand* band,
                                           const std::string& device_name) {
  std::vector<std::string> problems;
  if (std::any_of(windows.begin(), windows.end(),
                  [](const EnergyWindow& w) { return w.seconds <= 0 || w.joules < 0; })) {
    problems.push_back("the board's energy counter went backwards");
  }
  if (!reference.exact) problems.push_back("the telemetry reference computed a wrong product");
  if (band != nullptr && !(band->j_per_tflop.Contains(reading.j_per_tflop) &&
                           band->tflops_per_s.Contains(reading.tflops_per_s))) {
    problems.push_back("the board's power telemetry is implausible: the reference read " +
                       FormatFixed(reading.j_per_tflop, 2) + " J/TFLOP above idle at " +
                       FormatFixed(reading.tflops_per_s, 1) + " TFLOP/s, where a healthy " +
                       device_name + " reads " + FormatGeneral(band->j_per_tflop.low) + "-" +
                       FormatGeneral(band->j_per_tflop.high) + " J/TFLOP at " +
                       FormatGeneral(band->tflops_per_s.low) + "-" +
                       FormatGeneral(band->tflops_per_s.high) + " TFLOP/s");
  }
  bool busy = false, shared = false;
  for (const EnergyWindow& w : windows) {
    if (!IsIdleWindow(w.name)) continue;
    busy = busy || w.utilization_max != 0;
    shared = shared || w.contexts.value_or(0) > 1;
  }
  if (busy)
    problems.push_back("the GPU was busy in an idle window, with the method's processes frozen");
  if (shared) problems.push_back("another process held a CUDA context on the GPU");
  return problems;
}

Result<EnergyColumn> RecomputeEnergy(const std::vector<EnergyWindow>& windows,
                                     const std::string& device_name, double timed_mnist_ms_median,
                                     int64_t band_bp, const RuleSet& rules) {
  // By name, the last of a name winning, as a lookup table built from the list would.
  std::map<std::string, const EnergyWindow*> named;
  for (const EnergyWindow& window : windows) named[window.name] = &window;
  for (const std::string& name : EnergyWindowOrder()) {
    if (named.count(name) == 0) return Status::BadInput("no window named \"" + name + "\"");
  }
  const EnergyWindow& ref = *named["reference"];
  const EnergyWindow& empty = *named["control"];
  const EnergyWindow& run = *named["method"];
  if (empty.calls < 1) return Status::BadInput("the control window made no calls");
  if (run.calls < 1 || run.ms.empty() || run.correct.empty()) {
    return Status::BadInput("the method window made no calls");
  }
  auto net_j = [&](const char* name, const char* before, const char* after) {
    return JoulesAboveIdle(*named[name], *named[before], *named[after]);
  };

  EnergyColumn out;
  const ReferenceReading reading = ReadReference(ref, *named["idle 1"], *named["idle 2"]);
  out.j_per_tflop = reading.j_per_tflop;
  out.tflops_per_s = reading.tflops_per_s;
  out.exact = ref.exact;
  out.control_mj_per_call =
      net_j("control", "idle 2", "idle 3") * 1e3 / static_cast<double>(empty.calls);
  out.control_calls = empty.calls;
  out.net_mj_before_control =
      net_j("method", "idle 3", "idle 4") * 1e3 / static_cast<double>(run.calls);
  out.ms_median = Median(run.ms);
  out.timed_mnist_ms_median = timed_mnist_ms_median;
  out.band = rules.ReferenceBandFor(device_name);
  const int64_t test = rules.draw.test;
  const int64_t floor = RequiredCorrect(test, band_bp + rules.accuracy.draw_slack_bp);
  const double factor = rules.dispersion.factor, slack_ms = rules.dispersion.slack_ms;

  std::vector<std::string>& problems = out.problems;
  problems = TelemetryProblems(windows, ref, reading, out.band, device_name);
  const int64_t weakest = *std::min_element(run.correct.begin(), run.correct.end());
  if (weakest < floor) {
    problems.push_back("a draw in the energy window scored " + FormatGrouped(weakest) + "/" +
                       FormatGrouped(test) + "; no timed MNIST draw may fall below " +
                       FormatGrouped(floor));
  }
  if (!(timed_mnist_ms_median / factor - slack_ms <= out.ms_median &&
        out.ms_median <= factor * timed_mnist_ms_median + slack_ms)) {
    problems.push_back("calls in the energy window took " + FormatFixed(out.ms_median, 3, true) +
                       " ms (median) against " + FormatFixed(timed_mnist_ms_median, 3, true) +
                       " ms in the timed calls; every call must do the same work");
  }
  if (out.net_mj_before_control - out.control_mj_per_call <= 0) {
    problems.push_back("the method's window read no energy above idle");
  }
  if (problems.empty()) out.mj_per_call = out.net_mj_before_control - out.control_mj_per_call;
  out.gross_mj_per_call = run.joules * 1e3 / static_cast<double>(run.calls);
  out.idle_w = (Watts(*named["idle 3"]) + Watts(*named["idle 4"])) / 2;
  out.active_w = Watts(run);
  out.calls = run.calls;
  out.seconds = run.seconds;
  for (int64_t c : run.correct) out.correct += c;
  out.total = run.calls * test;
  return out;
}

bool AllFinite(const Json& value) {
  if (value.is_number_float()) return std::isfinite(value.get<double>());
  if (value.is_array() || value.is_object()) {
    for (const Json& item : value) {
      if (!AllFinite(item)) return false;
    }
  }
  return true;
}

}  // namespace ratchet
