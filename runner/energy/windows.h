// The windows of an energy measurement, as the parent runs them around one fresh sandboxed
// worker: each window the steady clock and the board's counter read at its two edges; an idle
// window with every process of the method frozen (SIGSTOP), after the board settles, its
// utilization sampled; the telemetry reference; the empty method's control window.
#ifndef RATCHET_ENERGY_WINDOWS_H_
#define RATCHET_ENERGY_WINDOWS_H_

#include <atomic>
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "core/canonical_json.h"
#include "core/status.h"
#include "energy/board.h"
#include "energy/column.h"
#include "rules/rule_set.h"
#include "scorer/window.h"
#include "scorer/worker_process.h"

namespace ratchet {

// Sleeps `seconds` in slices, looking at `interrupted` (may be null) between them; false when it
// was set.
bool SleepUnlessInterrupted(double seconds, const std::atomic<bool>* interrupted);

// A fresh worker for the windows: under the full sandbox the sandbox user's processes are
// killed first, as before every timed call. Errors are the harness's.
Result<std::unique_ptr<WorkerProcess>> StartEnergyWorker(const WorkerLaunch& launch);
// The `hello` of a timed call's worker, and its check that the worker runs as the sandbox user
// (under the full sandbox). Returns the worker's reply; a failure is Unavailable, with why.
Result<Json> GreetEnergyWorker(WorkerProcess& worker, const RuleSet& rules);

class WindowMeter {
 public:
  // `interrupted` (may be null) is looked at between steps; once set, the window in progress
  // ends with an error and interrupted() says so.
  WindowMeter(Board& board, WorkerProcess& worker, const RuleSet& rules,
              const std::atomic<bool>* interrupted);

  // An idle window: the worker frozen (WorkerProcess::Freeze), settle_s, then idle_s with the
  // board's utilization read every idle_sample_s (the largest kept) and its compute contexts
  // read at the end; the worker is thawed however the window ends.
  Status Idle(const std::string& name);
  // The telemetry reference: one `reference` of reference_s on reference_dim matrices.
  Status Reference();
  // The empty method, back to back without garbage collection, for control_window_s and at
  // least energy_min_calls calls.
  Status Control(const EmptyInputs& empty);
  // A window around `run`, which fills in the fields of the window's kind.
  Status Measure(const std::string& name, const std::function<Status(EnergyWindow*)>& run);

  const std::vector<EnergyWindow>& windows() const { return windows_; }
  bool interrupted() const;

 private:
  Board& board_;
  WorkerProcess& worker_;
  const RuleSet& rules_;
  const std::atomic<bool>* interrupted_;
  std::vector<EnergyWindow> windows_;
};

}  // namespace ratchet

#endif  // RATCHET_ENERGY_WINDOWS_H_
