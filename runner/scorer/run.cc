#include "scorer/run.h"

#include <cstdlib>

#include "contract/workers.h"
#include "core/file.h"
#include "sandbox/policy.h"
#include "sandbox/view.h"
#include "scorer/draw_source.h"
#include "scorer/run_loop.h"
#include "scorer/worker_starter.h"

namespace ratchet {

std::vector<Problem> RunOutcome::problems() const {
  if (failure) return {Problem{failure->rule, failure->message}};
  if (judgement) return judgement->problems;
  return {};
}

std::string SubmissionEntry(const Submission& submission) {
  return submission.native ? kNativeSubmissionFile : kPythonSubmissionFile;
}

Result<WorkerLaunch> LaunchFor(const Submission& submission, const RuleSet& rules,
                               const std::vector<std::string>& covered, const std::string& python) {
  WorkerLaunch launch;
  // The submission lies under a fixed name in a folder of its own: no name a submitter chooses
  // reaches a path of the harness (a method file called worker.py replaces nothing).
  if (submission.native) {
    Result<std::string> worker = NativeWorkerPath();
    if (!worker.ok()) return worker.status();
    // The worker runs from a copy in its own folder, like everything else it is given: the build
    // tree may be out of the sandbox user's reach.
    launch.argv = {std::string(kWorkerFolderToken) + "/" + BaseName(*worker)};
    launch.copies = {*worker};
    if (!submission.library.empty()) {
      Result<std::string> library = ReadFile(submission.library);
      if (!library.ok()) return library.status();
      launch.files = {{kNativeSubmissionFile, std::move(*library)}};
    }
    // Where the loader finds libtorch when the worker was built against a copy outside /usr
    // (on a GPU machine, the interpreter's torch package).
    launch.view_folders = ElfRunpath(*worker);
    for (const std::string& folder : InterpreterFolders(python)) {
      launch.view_folders.push_back(folder);
    }
  } else {
    Result<std::string> worker = PythonWorkerFile("worker.py");
    if (!worker.ok()) return worker.status();
    launch.copies = {*worker};
    launch.files = {{kPythonSubmissionFile, submission.source}};
    // -I: isolated, so that neither the worker's folder nor the submission's is on sys.path: a
    // file named like a module the worker imports (json.py) is never imported in its place.
    // -B: no __pycache__ written into the folder while `load` is timed.
    launch.argv = {python, "-u", "-I", "-B", std::string(kWorkerFolderToken) + "/worker.py"};
    launch.view_folders = InterpreterFolders(python);
    launch.path_first = DirName(python);
  }
  launch.covered = covered;
  launch.train = rules.draw.train;
  launch.test = rules.draw.test;
  launch.dims = rules.draw.dims;
  launch.max_header = static_cast<uint32_t>(rules.limits.max_header);
  launch.max_reply_bytes = static_cast<uint32_t>(rules.limits.max_reply_bytes);
  launch.log_bytes = static_cast<size_t>(rules.limits.worker_log_bytes);
  launch.limits = rules.sandbox;
  return launch;
}

Result<Pairing> PairingFromEnvironment() {
  const char* value = std::getenv("RATCHET_PAIR_WARMUPS");
  if (value == nullptr || *value == '\0') return Pairing::kNever;
  if (std::string(value) == "never") return Pairing::kNever;
  if (std::string(value) == "on-gpu") return Pairing::kOnGpu;
  if (std::string(value) == "always") return Pairing::kAlways;
  return Status::Usage(std::string("RATCHET_PAIR_WARMUPS is \"") + value +
                       "\": leave it unset, or set it to never, on-gpu or always");
}

Result<CompileStepWhen> CompileStepFromEnvironment() {
  const char* value = std::getenv("RATCHET_COMPILE_STEP");
  if (value == nullptr || *value == '\0') return CompileStepWhen::kOnGpu;
  if (std::string(value) == "never") return CompileStepWhen::kNever;
  if (std::string(value) == "always") return CompileStepWhen::kAlways;
  return Status::Usage(std::string("RATCHET_COMPILE_STEP is \"") + value +
                       "\": leave it unset, or set it to never or always");
}

Result<RunOutcome> ScoreRun(const RunInputs& inputs) {
  const RuleSet& rules = *inputs.rules;
  std::vector<std::string> foreign_present;
  for (const std::string& name : rules.datasets.foreign) {
    for (const LocatedDataset& located : inputs.datasets) {
      if (located.name == name && located.present) foreign_present.push_back(name);
    }
  }
  Result<RunPlan> plan = MakeRunPlan(inputs.seed, rules, foreign_present);
  if (!plan.ok()) return plan.status();
  Result<WorkerLaunch> launch = LaunchFor(inputs.submission, rules, inputs.covered, inputs.python);
  if (!launch.ok()) return launch.status();
  SandboxWorkerStarter starter(std::move(*launch));
  DrawSource draws(inputs.seed, inputs.datasets);
  RunLoop loop(inputs, *plan, starter, [&draws](const std::string& dataset, uint64_t index) {
    return draws.Make(dataset, index);
  });
  Result<RunOutcome> outcome = loop.Run();
  if (!outcome.ok() || outcome->failure || outcome->harness_failure || outcome->interrupted) {
    return outcome;
  }
  std::vector<Call> calls;
  for (const CallRecord& record : outcome->calls) {
    calls.push_back(Call{record.dataset, record.ms, record.parent_ms, record.correct, record.total,
                         record.overhead_ms});
  }
  Result<Judgement> judgement = Judge(calls, inputs.band_bp, rules);
  if (!judgement.ok()) return judgement.status();
  outcome->judgement = *judgement;
  return outcome;
}

}  // namespace ratchet
