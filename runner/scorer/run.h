// One scoring run of one submission, step for step as the rule set's protocol: the plan from the
// run seed, then per timed call a fresh sandboxed worker (hello, calibration of the empty round
// trip, load, an untimed warm-up on a foreign draw, garbage collection, the timed call whose
// inputs are written only inside the timed window), killed after; then judge on the calls.
#ifndef RATCHET_SCORER_RUN_H_
#define RATCHET_SCORER_RUN_H_

#include <atomic>
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "core/status.h"
#include "evidence/run_files.h"
#include "data/keyed_stream.h"
#include "data/locate.h"
#include "rules/judge.h"
#include "rules/rule_set.h"
#include "scorer/plan.h"
#include "scorer/worker_process.h"

namespace ratchet {

struct Submission {
  std::string path;      // the file as given
  std::string source;    // its bytes, read once: what was checked, what runs, what is kept
  std::string function;  // Python: the function's name; native: "method"
  bool native = false;   // a .cpp file, built into `library`
  std::string library;   // native: the built shared object
};

// When two calls' workers warm up side by side (docs/scoring.md, "Warm-ups in pairs"): never
// (the default: both calls' methods would be alive at once, sharing the machine and its page
// cache); on a GPU under the full sandbox, when the next call's worker is ready and the memory
// ample; or at every call that has a next one under the full sandbox, waiting for that worker
// and whatever the memory (for tests: the CPU lane's warm-ups share its cores).
enum class Pairing { kOnGpu, kNever, kAlways };

// The pairing $RATCHET_PAIR_WARMUPS asks for: unset or empty, never; "never"; "on-gpu";
// "always". Another value is an error that names the variable.
Result<Pairing> PairingFromEnvironment();

// When a run begins with the compile step (docs/scoring.md, "The compile step"): for a Python
// submission on a board the contract found to be a GPU (the default); never; or for every
// submission.
enum class CompileStepWhen { kOnGpu, kNever, kAlways };

// What $RATCHET_COMPILE_STEP asks for: unset or empty, the default; "never"; "always". Another
// value is an error that names the variable.
Result<CompileStepWhen> CompileStepFromEnvironment();

struct CallRecord;

// What a run tells its caller while it goes; the caller decides what a person sees. Every call
// comes from the run's own thread.
class RunObserver {
 public:
  virtual ~RunObserver() = default;
  // Once, with the first worker's hello, before the first window: work of the caller's that may
  // overlap the worker's start-up but must be done before any call is made (the contract, which
  // takes the board's facts from the hello). An error ends the run with it. When the first call
  // fails before it has a hello to give (or one from a worker that is not its sandbox user), it
  // is called with null before the call is recorded, its error ignored.
  virtual Status BeforeFirstWindow(const Json* hello) = 0;
  // The first worker's hello: where the method runs.
  virtual void FirstWorker(const Json& hello) = 0;
  // A call is complete, its worker gone: `number` (from 1) of `count`.
  virtual void CallComplete(size_t number, size_t count, const CallRecord& record) = 0;
};

struct RunInputs {
  Submission submission;
  int64_t band_bp = 0;
  RunSeed seed;
  std::vector<LocatedDataset> datasets;
  std::vector<std::string> covered;  // dataset folders hidden from every worker
  std::string python;                // the interpreter for worker.py (Python submissions)
  const RuleSet* rules = nullptr;
  // Set by a signal handler; checked between calls. A run that sees it stops as interrupted.
  const std::atomic<bool>* interrupted = nullptr;
  // Told what happens as the run goes (may be null).
  RunObserver* observer = nullptr;
  Pairing pairing = Pairing::kNever;
  CompileStepWhen compile_step = CompileStepWhen::kOnGpu;
  // The contract's board is a GPU (found through NVML before any worker starts).
  bool board_is_gpu = false;
};

struct CallRecord {
  std::string dataset;
  uint64_t draw_index = 0;
  std::string warmup_dataset;
  uint64_t warmup_draw_index = 0;
  double ms = 0, parent_ms = 0, overhead_ms = 0;
  int64_t correct = 0, total = 0;
  std::string worker_exit;
  std::string inputs_sha256;  // of the timed call's inputs, as laid out in the input buffer
  std::string labels;         // the predicted labels, one byte each
  std::string log;            // the tail of the worker's output
  uint64_t log_total_bytes = 0;
  Json hello;  // what the worker said of itself (device, versions, sandbox)
  // Where the window's time went, in ms: the timed call's phases and the calibration's medians
  // (docs/scoring.md, "One call"). A diagnostic; the judge never reads it.
  Json phases;
};

struct RunOutcome {
  RunPlan plan;
  std::vector<CallRecord> calls;       // the calls that completed
  std::optional<CallFailure> failure;  // a call that could not be scored (disqualifies)
  // The harness could not run a call (a worker that would not start): no verdict; the caller
  // keeps the calls and finishes the evidence as failed.
  std::optional<CallFailure> harness_failure;
  std::optional<Judgement> judgement;  // when every call completed
  bool interrupted = false;
  // The compile step, when the run began with one, and the tail of its worker's output.
  std::optional<CompileEntry> compile;
  std::string compile_log;

  bool qualified() const {
    return !failure && !harness_failure && judgement && judgement->problems.empty();
  }
  // Every problem as {rule, message}: the failure, or judge's problems.
  std::vector<Problem> problems() const;
};

// Where a worker finds the submission, relative to its folder: a fixed name in a folder of its
// own, whatever the file was called.
inline constexpr char kPythonSubmissionFile[] = "submission/method.py";
inline constexpr char kNativeSubmissionFile[] = "submission/method.so";
std::string SubmissionEntry(const Submission& submission);

// How a worker for `submission` is started: ratchet-worker with the built library for a native
// submission, worker.py under `python` otherwise; `covered` folders hidden from it.
Result<WorkerLaunch> LaunchFor(const Submission& submission, const RuleSet& rules,
                               const std::vector<std::string>& covered, const std::string& python);

// Scores one run of the submission: its plan, its calls (scorer/run_loop.h), the judge. A
// harness failure before any call (a missing dataset, a worker program that is absent) is an
// error Status; one during a call is the outcome's harness_failure; anything the method does is
// in the outcome.
Result<RunOutcome> ScoreRun(const RunInputs& inputs);

}  // namespace ratchet

#endif  // RATCHET_SCORER_RUN_H_
