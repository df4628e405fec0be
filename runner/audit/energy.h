// The energy column re-derived from its windows: the same arithmetic, in the same order, as the
// rule set's protocol uses to compute it, so that every figure a record gives compares to the
// bit; the telemetry reference is judged against the rule set's bands, not the record's.
#ifndef RATCHET_AUDIT_ENERGY_H_
#define RATCHET_AUDIT_ENERGY_H_

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "audit/fields.h"
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

// The column from the windows (in the order measured), the device's name, the median reported
// time of the timed MNIST calls and the band. Windows missing a name the arithmetic needs, or
// a method window without calls, are BadInput.
Result<EnergyColumn> RecomputeEnergy(const std::vector<EnergyWindow>& windows,
                                     const std::string& device_name, double timed_mnist_ms_median,
                                     int64_t band_bp, const RuleSet& rules);

// Audits a record's energy object at `path` of `reader`'s document: parses its windows, checks
// them against the protocol (names and order, lengths, counts), recomputes the column and
// compares every figure and the problems. A column that was not measured (mj_per_call null
// with a reason) is a note. Returns the recomputed column when the record's agrees with it.
std::optional<EnergyColumn> AuditEnergy(const Json& energy, const std::string& path,
                                        FieldReader& reader, double timed_mnist_ms_median,
                                        int64_t band_bp, const RuleSet& rules);

}  // namespace ratchet

#endif  // RATCHET_AUDIT_ENERGY_H_
