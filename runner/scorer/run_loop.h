// The calls of one scoring run, in the order the protocol sets (docs/scoring.md, "One call"):
// for each planned call a worker of its own (started ahead, WorkersAhead), its hello, the
// calibration of the empty round trip, the method loaded and warmed up (beside the next call's
// worker when the two make a pair), the priming calls and the timed window; then the worker
// stopped and torn down while the next call runs (FinishedCalls). Workers come from a
// WorkerStarter, so the order of a run is tested with fake workers.
#ifndef RATCHET_SCORER_RUN_LOOP_H_
#define RATCHET_SCORER_RUN_LOOP_H_

#include <chrono>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "core/status.h"
#include "data/draw.h"
#include "protocol/copy_threads.h"
#include "rules/rule_set.h"
#include "scorer/headroom.h"
#include "scorer/plan.h"
#include "scorer/run.h"
#include "scorer/run_workers.h"
#include "scorer/window.h"
#include "scorer/worker_starter.h"

namespace ratchet {

// Makes the draw of `dataset` at `index` (DrawSource::Make in a run).
using DrawMaker = std::function<Result<Draw>(const std::string& dataset, uint64_t index)>;

class RunLoop {
 public:
  // `plan` and everything `inputs` points to outlive the loop.
  RunLoop(const RunInputs& inputs, const RunPlan& plan, WorkerStarter& starter,
          DrawMaker make_draw);
  // Its callbacks and the running call point into it: it stays where it was made.
  RunLoop(const RunLoop&) = delete;
  RunLoop& operator=(const RunLoop&) = delete;

  // Runs every call of the plan; the judgement is the caller's. A harness failure before the
  // first call is an error Status; later, the outcome's harness_failure.
  Result<RunOutcome> Run();

 private:
  // What one call holds while it runs.
  struct CallState;
  // The next call's worker, calibrated, loaded and warmed up beside this call's (a pair).
  struct Prepared {
    std::unique_ptr<CallWorker> worker;
    CallRecord record;  // its planned call, hello and calibrated overhead
    std::vector<Json> calibration_phases;
    Json steps = Json::object();     // on its own clock, from when this call began preparing it
    Json previous = Json::object();  // what its calibration made of the last call's worker
    int64_t call_started_ns = 0;
    int64_t spawned_ns = 0;
    size_t leader = 0;  // the call (from 1) whose warm-up it shared
    Result<Draw> timed = Status::Internal("the timed draw was not made");
  };
  // The next call's load and warm-up beside this one's, on a thread of its own.
  struct JoinedWarmUp;
  // What a step of a call leads to: the next step, the end of the run (outcome_ or error_ says
  // how), or the same call again (its pair failed).
  enum class Flow { kGoOn, kEnded, kAgain };

  // Before the first call, when the run has one: the compile step (run_compile.cc), whose
  // caches every later worker is given a copy of. It fails no call: without its caches each
  // call's warm-up compiles what it needs, as it would without the step.
  bool WantsCompileStep() const;
  void CompileStep();

  Flow ScoreCall(size_t index);
  // This call's worker: the one a pair prepared, or one started ahead, its hello read (started
  // again, once, when the one started ahead failed).
  Flow TakeWorker(CallState& call);
  // A pair's second call: the first one's worker stopped, this one thawed.
  Flow ResumePrepared(CallState& call);
  // The hello checked; what it says of the board sets the pace of the run.
  Flow MeetWorker(CallState& call);
  Flow CalibrateCall(CallState& call);
  // Joins the next call's worker to this call's warm-up when it may.
  void TryPair(CallState& call, std::optional<Result<MemoryReading>>* memory);
  // The last call's worker killed while this call's method loads, unless memory is short.
  void ReleasePreviousBeforeWarmUp(CallState& call, std::optional<Result<MemoryReading>>* memory);
  Flow LoadAndWarmUp(CallState& call);
  // While the method warms up: the next call's warm-up (a pair), the draws, the workers ahead.
  void WhileWarming(CallState& call, JoinedWarmUp* joined, const WindowRequest& warm_request);
  // After a pair's failure, each call is given back to start a worker again, alone.
  Flow AfterPairFailed(CallState& call, std::optional<CallFailure> warm_failed,
                       std::optional<CallFailure> joined_failed, JoinedWarmUp* joined);
  Flow TimedCall(CallState& call);
  // The call done: its worker stopped (torn down beside the next call) or killed.
  void Retire(CallState& call);

  // The run ends with `failure` of this call, kept with what the call did.
  Flow Fail(CallState& call, CallFailure failure);
  // The harness could not go on: the command's error before any call, else harness_failure.
  Flow HarnessError(CallState& call, const Status& status);
  // Nothing of the sandbox users left behind, dying or not.
  void EndRun();

  std::optional<CallFailure> Freeze(bool stop);
  std::optional<CallFailure> Calibrate(CallWorker& worker, double* overhead_ms,
                                       std::vector<Json>* phases);
  std::optional<CallFailure> CalibrateClean(CallWorker& worker, double* overhead_ms,
                                            std::vector<Json>* phases, Json* noted, Json* steps_of,
                                            int64_t started_ns);
  WindowRequest EmptyCall(const char* doing);
  // Loads the method file into `worker`, from its own folder, once the worker is in its method's
  // group (CallWorker::EnterMethod).
  std::optional<CallFailure> Load(CallWorker& worker, Frame* reply);
  Result<MemoryReading> ReadMemory();
  void StopPairing();
  void CallDone(CallRecord record);

  const RunInputs& inputs_;
  const RuleSet& rules_;
  WorkerStarter& starter_;
  DrawMaker make_draw_;
  const std::chrono::steady_clock::time_point run_started_;
  const EmptyInputs empty_;
  EmptyInputs staging_;
  const bool isolated_;
  const size_t count_;
  RunOutcome outcome_;
  Status error_;  // a harness error before the first call completed

  WorkersAhead ahead_;
  FinishedCalls finishing_;
  // How many calls ahead of the running one workers are started (see run_loop.cc).
  size_t workers_ahead_ = 0;
  std::optional<Prepared> prepared_;  // the next call's, when this call leads a pair
  bool may_pair_ = false;
  bool pairing_failed_ = false;  // a pair failed in this run: none is made again
  // On a GPU, the threads that share each window's write of the inputs (made at the first call's
  // hello, which says where the method runs); on the CPU the write is this thread's alone.
  std::unique_ptr<CopyThreads> copy_threads_;
  // The memory a method uses, read before a method is loaded while the last call's worker is
  // still dying (scorer/headroom.h); opened during the first call's warm-up. Without it the run
  // waits for every teardown.
  std::unique_ptr<MemoryGauge> gauge_;
  std::string gauge_missing_ = "the memory was not read";
  // The slowest calibrated overhead of the run's calibrations made with no earlier method alive
  // (the first call's, and each one made again): a calibration made beside the last call's
  // stopped worker is made again, once that worker is gone, when it is slower than this by more
  // than the floor's slack. What that worker had queued on the device still runs beside it and
  // would raise the overhead, which lowers the scorer's-clock floor of the call.
  std::optional<double> clean_overhead_ms_;
  // The next call's warm-up draw, made during this call's warm-up.
  std::optional<Result<Draw>> next_warm_;
  // Whether the board is a GPU (from the first hello): the parent then waits for each reply of
  // the calibration and the timed call without sleeping; on the CPU its core is the method's.
  bool spin_ = false;
  std::string board_uuid_;
};

}  // namespace ratchet

#endif  // RATCHET_SCORER_RUN_LOOP_H_
