// The energy column: the windows a measurement records (the board's counter and the steady clock
// read at each window's edges) and the one function that turns them into the column, with every
// reason not to trust it. The scorer that measures the column and the audit that checks a
// published one both call RecomputeEnergy, so their figures compare to the bit (docs/energy.md).
#ifndef RATCHET_ENERGY_COLUMN_H_
#define RATCHET_ENERGY_COLUMN_H_

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "core/canonical_json.h"
#include "core/status.h"
#include "rules/rule_set.h"

namespace ratchet {

// One measured window: an idle one (the method frozen), the telemetry reference, the empty
// method's control window, or the method's own.
struct EnergyWindow {
  std::string name;  // "idle 1".."idle 4", "reference", "control", "method"
  double seconds = 0;
  double joules = 0;
  // idle windows
  int64_t utilization_max = 0;
  std::optional<int64_t> contexts;
  // reference
  int64_t matmuls = 0, dim = 0;
  bool exact = false;
  // control and method
  int64_t calls = 0;
  // method
  std::vector<double> ms;
  std::vector<int64_t> correct;
};

struct EnergyColumn {
  std::optional<double> mj_per_call;  // nullopt when a problem makes the column untrustworthy
  std::vector<std::string> problems;
  double net_mj_before_control = 0, control_mj_per_call = 0;
  int64_t control_calls = 0;
  double gross_mj_per_call = 0, idle_w = 0, active_w = 0;
  int64_t calls = 0;
  double seconds = 0, ms_median = 0, timed_mnist_ms_median = 0;
  int64_t correct = 0, total = 0;
  double tflops_per_s = 0, j_per_tflop = 0;
  bool exact = false;
  const ReferenceBand* band = nullptr;  // the rule set's band for the device, if it has one
};

// The windows a measurement makes, in the order it makes them.
const std::vector<std::string>& EnergyWindowOrder();
bool IsIdleWindow(const std::string& name);

// The window's joules less the mean of the idle power measured before and after it, over its
// seconds.
double JoulesAboveIdle(const EnergyWindow& window, const EnergyWindow& before,
                       const EnergyWindow& after);

// What the telemetry reference read between the idle windows around it: its throughput and its
// joules above idle per 10^12 FLOPs (2 dim^3 FLOPs a matmul).
struct ReferenceReading {
  double tflops_per_s = 0;
  double j_per_tflop = 0;
};
ReferenceReading ReadReference(const EnergyWindow& reference, const EnergyWindow& idle_before,
                               const EnergyWindow& idle_after);

// The reasons not to trust the board's telemetry that `windows` (all of them, or a telemetry
// run's idle, reference, idle) show, in this order: a counter that went backwards, a wrong
// product, a reading outside the device's band (when it has one), a busy idle window, another
// process's compute context. Part of RecomputeEnergy's problems, in its words.
std::vector<std::string> TelemetryProblems(const std::vector<EnergyWindow>& windows,
                                           const EnergyWindow& reference,
                                           const ReferenceReading& reading,
                                           const ReferenceBand* band,
                                           const std::string& device_name);

// The column from the windows (in the order measured), the device's name, the median reported
// time of the timed MNIST calls and the band. Windows missing a name the arithmetic needs, or
// a method window without calls, are BadInput.
Result<EnergyColumn> RecomputeEnergy(const std::vector<EnergyWindow>& windows,
                                     const std::string& device_name, double timed_mnist_ms_median,
                                     int64_t band_bp, const RuleSet& rules);

// Whether every number in `value` is finite (the evidence refuses NaN and the infinities).
bool AllFinite(const Json& value);

}  // namespace ratchet

#endif  // RATCHET_ENERGY_COLUMN_H_
