// The telemetry reference alone, for a maintainer measuring a board: fresh sandboxed workers
// with no submission, each running idle 1, the reference, idle 2, and what each read. A
// reference band for a new board is added to a rule set only from readings like these
// (`ratchet telemetry`, docs/energy.md).
#ifndef RATCHET_ENERGY_TELEMETRY_H_
#define RATCHET_ENERGY_TELEMETRY_H_

#include <atomic>
#include <optional>
#include <string>
#include <vector>

#include "core/canonical_json.h"
#include "core/status.h"
#include "energy/board.h"
#include "energy/column.h"
#include "rules/rule_set.h"
#include "scorer/worker_process.h"

namespace ratchet {

struct TelemetryRun {
  std::vector<EnergyWindow> windows;  // idle 1, reference, idle 2
  Json device;                        // as the board described itself
  ReferenceReading reading;
  std::vector<std::string> problems;  // TelemetryProblems, against the rule set's band
};

// A worker that runs no submission: build/ratchet-worker when it is built, else worker.py
// under the interpreter FindPython picks for `python` (contract/python.h).
Result<WorkerLaunch> TelemetryLaunch(const RuleSet& rules,
                                     const std::optional<std::string>& python);

// One fresh worker, greeted as a timed call's, its board selected by its uuid, then idle 1, the
// reference and idle 2. A failure is an error (Unavailable) naming the step.
Result<TelemetryRun> MeasureTelemetryRun(const WorkerLaunch& launch, const RuleSet& rules,
                                         BoardDriver& driver, const std::atomic<bool>* interrupted);

// The figures of several runs: min, median and max of each reading over the runs without a
// problem (null when there is none).
struct TelemetrySpread {
  int runs = 0;  // the runs without a problem
  double tflops_min = 0, tflops_median = 0, tflops_max = 0;
  double j_min = 0, j_median = 0, j_max = 0;
};
TelemetrySpread SpreadOf(const std::vector<TelemetryRun>& runs);

// What --out writes: {"schema": "ratchet.telemetry/1", "rules", "reference_s", "dim", "device",
// "band", "runs": [{"windows", "tflops_per_s", "j_per_tflop", "problems"}], "spread"}.
Json TelemetryJson(const std::vector<TelemetryRun>& runs, const RuleSet& rules);

}  // namespace ratchet

#endif  // RATCHET_ENERGY_TELEMETRY_H_
