// The energy column of one run that qualified, measured as the rule set's protocol does: one
// more fresh sandboxed worker and seven windows, in this order: idle 1, the telemetry
// reference, idle 2, the empty method's control window, [load and an untimed warm-up on a
// foreign draw], idle 3, the method back to back on fresh MNIST draws, idle 4. A column that
// cannot be measured says why and never changes the run's outcome (docs/energy.md).
#ifndef RATCHET_ENERGY_MEASURE_H_
#define RATCHET_ENERGY_MEASURE_H_

#include <atomic>
#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "core/canonical_json.h"
#include "core/status.h"
#include "data/keyed_stream.h"
#include "data/locate.h"
#include "energy/board.h"
#include "energy/column.h"
#include "rules/rule_set.h"
#include "scorer/run.h"

namespace ratchet {

// The energy column's draws, by index, of the run's seed (docs/draws.md): the warm-up on the
// run's warm-up dataset is its draw kEnergyWarmupDraw; the method window's fresh MNIST draws are
// kEnergyDrawBase, kEnergyDrawBase + 1, ... Timed draws are numbered from 0 and warm-ups from
// kWarmupDrawBase (scorer/plan.h), so none of them is ever shown twice.
inline constexpr uint64_t kEnergyWarmupDraw = 2000;
inline constexpr uint64_t kEnergyDrawBase = 2001;

struct EnergyInputs {
  Submission submission;
  std::vector<std::string> covered;  // dataset folders hidden from the worker
  std::string python;
  const RuleSet* rules = nullptr;
  RunSeed seed;  // the run's: the energy draws and their rereleases come from it
  std::vector<LocatedDataset> datasets;
  std::string warmup_dataset;        // the run's plan's
  double timed_mnist_ms_median = 0;  // of the run's timed MNIST calls, as the worker reported
  int64_t band_bp = 0;
  const std::atomic<bool>* interrupted = nullptr;  // set by a signal handler; may be null
};

// How many fresh MNIST draws the method window gets before it opens: as many as it should need
// at the timed calls' pace, energy_min_calls + ceil(energy_window_s * 1000 / max(ms, 1)), at
// most energy_draws. Later calls re-release them (data/rerelease.h).
int64_t EnergyDrawCount(const RuleSet& rules, double timed_mnist_ms_median);

struct EnergyOutcome {
  // Set when the windows were measured; the column may still have problems (mj_per_call empty).
  std::optional<EnergyColumn> column;
  std::vector<EnergyWindow> windows;  // as far as they got
  Json device;                        // as the board described itself
  std::string reason;                 // why the column was not measured
  bool interrupted = false;           // a signal stopped the measurement
  Json evidence;                      // energy.json: the column and its windows, or the reason

  // The evidence without its windows: the run's entry in report.json.
  Json ReportJson() const;
};

using BoardOpener = std::function<Result<std::unique_ptr<BoardDriver>>()>;

// Opens the board's driver with `open` (before any worker starts), then measures. Every failure
// (no driver, a worker that fails, the reference failing) is an outcome with a reason.
EnergyOutcome MeasureEnergyColumn(const EnergyInputs& inputs, const BoardOpener& open);

// The line said before the measurement, and the lines that report it (the seed's words).
std::string EnergyIntroLine(const RuleSet& rules);
std::vector<std::string> EnergyLines(const EnergyOutcome& outcome);

}  // namespace ratchet

#endif  // RATCHET_ENERGY_MEASURE_H_
