#include "scorer/run.h"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <deque>
#include <fstream>
#include <thread>

#include "contract/workers.h"
#include "core/file.h"
#include "core/sha256.h"
#include "rules/pyformat.h"
#include "sandbox/policy.h"
#include "sandbox/reap.h"
#include "sandbox/spawn.h"
#include "sandbox/view.h"
#include "scorer/draw_source.h"
#include "scorer/go.h"
#include "scorer/headroom.h"

namespace ratchet {
namespace {

// Empty calls made right before each timed call, after the warm-up (see ScoreOnce).
constexpr int kPrimingCalls = 3;
// Workers of later calls started while a call runs: each takes its own uid and is frozen during
// every window of the calls before its own (see ScoreOnce). Workers are started only during a
// warm-up, once every finished call's worker has been killed, and never more than
// kWorkerUidCount - 1 calls ahead of the running one (a call joined to it counted), so that no
// two workers alive and not exiting share a uid: the ones that reuse a uid take those of
// finished calls whose workers are exiting. A Python worker takes about four calls' untimed
// time to import torch; ratchet-worker starts in less than two on a CPU (0.4 s) and about three
// on a GPU (0.7 s, with its device context), where it is started three calls ahead once the
// first worker has said that it runs on one. With warm-ups in pairs on a GPU calls come faster,
// and more are started ahead, until a pair fails.
constexpr size_t kPythonWorkersAhead = 4;
constexpr size_t kNativeWorkersAhead = 2;
constexpr size_t kNativeWorkersAheadOnGpu = 3;
constexpr size_t kPythonWorkersAheadPaired = 6;
constexpr size_t kNativeWorkersAheadPaired = 5;
// How long a call that could lead a pair waits for the next call's worker to answer hello.
constexpr double kPairHelloWaitS = 0.1;
// The running call, the one joined to it and those ahead each hold a uid of their own.
static_assert(kPythonWorkersAheadPaired + 1 <= kWorkerUidCount - 1);
static_assert(kNativeWorkersAheadPaired + 1 <= kWorkerUidCount - 1);
// How long a frozen worker's threads may take to stop (one inside a driver call stops only when
// the call returns).
constexpr double kFreezeTimeoutS = 10;
// How long the last call's worker, frozen after its timed call, may take to stop before the next
// calibration; past it, that worker is killed and its teardown waited for instead.
constexpr double kPreviousFreezeTimeoutS = 1;
// How long the processes of a killed worker may take to be gone before the run goes on without
// waiting for them (a process whose exit the kernel cannot finish).
constexpr double kGoneTimeoutS = 10;

// Waits until none of `pids` is alive (gone, or a zombie: its memory, files and device context
// released), or `timeout_s` passes; false on the timeout.
bool AwaitGone(const std::vector<pid_t>& pids, double timeout_s) {
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::duration<double>(timeout_s);
  for (pid_t pid : pids) {
    for (;;) {
      std::ifstream stat("/proc/" + std::to_string(pid) + "/stat");
      std::string text((std::istreambuf_iterator<char>(stat)), std::istreambuf_iterator<char>());
      const size_t paren = text.rfind(')');
      if (!stat || paren == std::string::npos || paren + 2 >= text.size()) break;  // gone
      const char state = text[paren + 2];
      if (state == 'Z' || state == 'X') break;
      if (std::chrono::steady_clock::now() > deadline) return false;
      std::this_thread::sleep_for(std::chrono::milliseconds(1));
    }
  }
  return true;
}

double Seconds(std::chrono::steady_clock::time_point since) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - since).count();
}

std::string DrawPhrase(const std::string& dataset, const char* which = "a") {
  return std::string(which) + " " + dataset + " draw";
}

// sha256 over train_x, train_y and test_x, in the input buffer's order and byte layout.
std::string InputsSha256(const Draw& draw) {
  Sha256 hash;
  hash.Update(draw.train_x.data(), draw.train_x.size() * sizeof(float));
  hash.Update(draw.train_y.data(), draw.train_y.size() * sizeof(int64_t));
  hash.Update(draw.test_x.data(), draw.test_x.size() * sizeof(float));
  return hash.HexDigest();
}

}  // namespace

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
  if (value == nullptr || *value == '\0') return Pairing::kOnGpu;
  if (std::string(value) == "never") return Pairing::kNever;
  if (std::string(value) == "always") return Pairing::kAlways;
  return Status::Usage(std::string("RATCHET_PAIR_WARMUPS is \"") + value +
                       "\": leave it unset, or set it to never or always");
}

Result<RunOutcome> ScoreOnce(const RunInputs& inputs, const ProgressSink& say) {
  const RuleSet& rules = *inputs.rules;
  const auto run_started = std::chrono::steady_clock::now();
  std::vector<std::string> foreign_present;
  for (const std::string& name : rules.datasets.foreign) {
    for (const LocatedDataset& located : inputs.datasets) {
      if (located.name == name && located.present) foreign_present.push_back(name);
    }
  }
  Result<RunPlan> plan = MakeRunPlan(inputs.seed, rules, foreign_present);
  if (!plan.ok()) return plan.status();
  RunOutcome outcome;
  outcome.plan = *plan;
  DrawSource draws(inputs.seed, inputs.datasets);

  Result<WorkerLaunch> launched =
      LaunchFor(inputs.submission, rules, inputs.covered, inputs.python);
  if (!launched.ok()) return launched.status();
  const WorkerLaunch& launch = *launched;
  const EmptyInputs empty(rules.draw);
  EmptyInputs staging(rules.draw);
  const bool sandbox_full = DescribeSandbox().full;
  const size_t count = outcome.plan.calls.size();

  // A finished call's worker dies in the background (its GPU context takes about 0.1 s to tear
  // down, and a teardown slows the device's other work) while the next call runs; the call is
  // complete, its log and exit kept, once that worker is gone. Under the full sandbox the worker
  // is frozen after its timed call (every process of its uid stopped) and killed only after the
  // next calibration, so that its teardown overlaps that call's import and warm-up, never a
  // window (what it queued on the device before it stopped may still run beside that
  // calibration: see clean_overhead_ms); it is gone, with every process of its uid, before that
  // call's priming. A pair's first call's worker stays stopped through the second call's
  // priming and timed call, and is killed with the second's (see Prepared). The last call's
  // worker, one that cannot be stopped, and every worker under a partial sandbox are killed at
  // once and gone before the next window.
  struct Finishing {
    std::unique_ptr<WorkerProcess> worker;
    CallRecord record;
    int64_t call_started_ns = 0;
    bool killed = false;
    std::vector<pid_t> pids;  // every process of its uid when it was killed
    std::thread reaper;
    ~Finishing() {
      if (reaper.joinable()) reaper.join();
    }
  };
  // The finished calls whose workers are not gone yet, in call order: the last call's, and,
  // after a pair (see Prepared), both of the pair's.
  std::deque<std::unique_ptr<Finishing>> finishing;
  const bool defer_teardown = sandbox_full;
  // Whether a finished call's worker is stopped, not yet killed.
  auto previous_stopped = [&] {
    return std::any_of(finishing.begin(), finishing.end(),
                       [](const std::unique_ptr<Finishing>& done) { return !done->killed; });
  };
  // Whether a finished call's worker was killed (it could not be stopped, or was the last call's).
  auto previous_killed = [&] {
    return std::any_of(finishing.begin(), finishing.end(),
                       [](const std::unique_ptr<Finishing>& done) { return done->killed; });
  };
  // Kills the finished calls' workers, those not killed yet, and lets each die on a thread: it
  // is gone once the worker and every other process of its uid at the kill (what the method
  // started) are. The status is that of stopping them (a process that did not begin to exit).
  auto release_previous = [&]() -> Status {
    Status first;
    for (const std::unique_ptr<Finishing>& owned_done : finishing) {
      Finishing* done = owned_done.get();
      if (done->killed) continue;
      if (sandbox_full) done->pids = ProcessesOfUser(done->worker->uid());
      Status stopped = done->worker->Kill();
      if (first.ok() && !stopped.ok()) first = stopped;
      done->killed = true;
      done->record.phases["steps"]["killed"] = (MonotonicNs() - done->call_started_ns) / 1e6;
      done->reaper = std::thread([done] {
        done->worker->Close();
        if (!AwaitGone(done->pids, kGoneTimeoutS)) {
          done->record.phases["not_gone"] = "a process of the worker's uid was still there " +
                                            std::to_string(static_cast<int>(kGoneTimeoutS)) +
                                            " s after it was killed";
        }
        done->record.phases["steps"]["closed"] = (MonotonicNs() - done->call_started_ns) / 1e6;
      });
    }
    return first;
  };
  auto finish_previous = [&] {
    if (finishing.empty()) return;
    (void)release_previous();  // waited for here in any case
    for (std::unique_ptr<Finishing>& done : finishing) {
      done->reaper.join();
      CallRecord& record = done->record;
      record.log = done->worker->log();
      record.log_total_bytes = done->worker->log_total_bytes();
      record.worker_exit = done->worker->exit_description();
      const size_t number = outcome.calls.size() + 1;
      say("  call " + std::string(number < 10 ? " " : "") + std::to_string(number) + "/" +
          std::to_string(count) + ": " + FormatFixed(record.ms, 3, true) + " ms, scorer's clock " +
          FormatFixed(std::max(0.0, record.parent_ms - record.overhead_ms), 3, true) + " ms");
      outcome.calls.push_back(std::move(record));
    }
    finishing.clear();
  };
  // Waits until every thread of the stopped finished workers is stopped; one that is not in
  // time is killed, with the others, and waited for (noted in `noted` as "waited").
  auto await_previous_stopped = [&](Json* noted) -> bool {
    for (const std::unique_ptr<Finishing>& done : finishing) {
      if (done->killed) continue;
      Status stopped = done->worker->AwaitFrozen(kPreviousFreezeTimeoutS, /*whole_uid=*/true);
      if (!stopped.ok()) {
        (*noted)["waited"] = "not stopped in time: " + stopped.message();
        finish_previous();
        return false;
      }
    }
    return true;
  };
  // Workers for the calls after the running one, started ahead so that their start-up (exec,
  // loading torch, the device context) overlaps the running call's untimed steps; `hello` is
  // sent at once and its reply read when the call comes. Each has a uid of its own
  // (kWorkerUids in turn), so no process of another call can reach it, and no method is loaded
  // into it before every process of the calls before it is gone or exiting. All of them are
  // frozen (SIGSTOP, every thread confirmed stopped) while a window of the running call is open:
  // its calibration, and its priming and timed call.
  struct Ahead {
    std::unique_ptr<WorkerProcess> worker;
    int64_t spawned_ns = 0;
    // The hello could not be sent, or (a worker given back by a pair that was not made, below)
    // its start failed: the worker is started again when its call comes.
    std::optional<CallFailure> not_sent;
    std::optional<Frame> hello;  // its reply, when a pair that was not made read it already
  };
  std::deque<Ahead> ahead;
  // Under a partial sandbox every worker has ratchet's own uid, and nothing would keep a method
  // from the workers ahead: none is started ahead there.
  size_t workers_ahead = !sandbox_full              ? 0
                         : inputs.submission.native ? kNativeWorkersAhead
                                                    : kPythonWorkersAhead;
  size_t started = 0;  // calls whose worker is started
  // On a GPU, the threads that share each window's write of the inputs (made at the first
  // call's hello, which says where the method runs); on the CPU the write is this thread's alone.
  std::unique_ptr<CopyCrew> crew;
  auto start_worker = [&]() -> Status {
    const uid_t uid = kWorkerUids[started % kWorkerUidCount];
    // Whatever of this uid an earlier call left is gone or exiting before another worker takes it.
    if (sandbox_full) RATCHET_RETURN_IF_ERROR(StopSandboxProcesses(uid));
    Ahead next;
    next.spawned_ns = MonotonicNs();
    Result<std::unique_ptr<WorkerProcess>> worker = WorkerProcess::Start(launch, uid);
    if (!worker.ok()) return worker.status();
    next.worker = std::move(*worker);
    next.not_sent = next.worker->Send(HelloCommand(rules, *next.worker),
                                      rules.limits.worker_start_s, "starting the worker");
    ahead.push_back(std::move(next));
    ++started;
    return Status::Ok();
  };
  // Freezes (or thaws) every worker started ahead; a freeze returns once each has stopped. A
  // worker ahead runs ratchet's code only, in the one process ratchet started (its group).
  auto freeze_ahead = [&](bool stop) -> Status {
    Status first;
    for (Ahead& next : ahead) {
      Status status = next.worker->Freeze(stop, /*whole_uid=*/false);
      if (first.ok() && !status.ok()) first = status;
    }
    for (Ahead& next : ahead) {
      if (!stop || !first.ok()) break;
      first = next.worker->AwaitFrozen(kFreezeTimeoutS, /*whole_uid=*/false);
    }
    return first.Annotate(stop ? "freezing the workers started ahead"
                               : "thawing the workers started ahead");
  };
  // The workers ahead that are running (not one given back closed by a pair that failed).
  auto live_ahead = [&] {
    return static_cast<size_t>(std::count_if(ahead.begin(), ahead.end(), [](const Ahead& next) {
      return next.worker && next.worker->pid() != -1;
    }));
  };
  // Warm-ups in pairs (docs/scoring.md, "Warm-ups in pairs"): a call may calibrate the next
  // call's worker right after its own, load the method into both and run both warm-ups side by
  // side; that worker is then stopped (every process of its uid) until its own call, which
  // thaws it and goes on with the priming and the timed call. The warm-up is most of a call's
  // untimed time on a GPU, and those of two processes there do not slow each other.
  struct Prepared {
    std::unique_ptr<WorkerProcess> worker;
    CallRecord record;  // its planned call, hello and calibrated overhead
    std::vector<Json> calibration_phases;
    Json steps = Json::object();     // on its own clock, from when this call began preparing it
    Json previous = Json::object();  // what its calibration made of the last call's worker
    int64_t call_started_ns = 0;
    int64_t spawned_ns = 0;
    size_t leader = 0;  // the call (from 1) whose warm-up it shared
    Result<Draw> timed = Status::Internal("the timed draw was not made");
  };
  std::optional<Prepared> prepared;  // the next call's, when this call leads a pair
  const bool may_pair = defer_teardown && inputs.pairing != Pairing::kNever;
  // On a board the contract found to be a GPU, the first call starts as many workers ahead as
  // pairs need at once (its worker's hello, which says where the method runs, comes later).
  if (inputs.board_is_gpu && may_pair) {
    workers_ahead =
        inputs.submission.native ? kNativeWorkersAheadPaired : kPythonWorkersAheadPaired;
  }
  bool pairing_failed = false;  // a pair failed in this run: none is made again
  // When the run ends, nothing of the sandbox users is left behind, dying or not.
  auto finish_run = [&] {
    finish_previous();
    prepared.reset();  // its worker killed and waited for
    ahead.clear();     // each is killed and waited for
    if (sandbox_full) KillWorkerUids();
  };
  // The memory a method uses (the board's, or the machine's), read before a method is loaded
  // while the last call's worker is still dying (scorer/headroom.h); opened during the first
  // call's warm-up. Without it the run waits for every teardown.
  std::unique_ptr<MemoryGauge> gauge;
  std::string gauge_missing = "the memory was not read";
  // The slowest calibrated overhead of the run's calibrations made with no earlier method alive
  // (the first call's, and each one made again): a calibration made beside the last call's
  // stopped worker is made again, once that worker is gone, when it is slower than this by more
  // than the floor's slack. What that worker had queued on the device still runs beside it and
  // would raise the overhead, which lowers the scorer's-clock floor of the call.
  std::optional<double> clean_overhead_ms;
  // The next call's warm-up draw, made during this call's warm-up.
  std::optional<Result<Draw>> next_warm;
  // Whether the board is a GPU (from the first hello): the parent then waits for each reply of
  // the calibration and the timed call without sleeping; on the CPU its core is the method's.
  bool spin = false;
  // After a pair's failure: no pair again, and the calls come at the pace of single ones.
  auto stop_pairing = [&] {
    pairing_failed = true;
    if (workers_ahead > 0) {
      workers_ahead = !inputs.submission.native ? kPythonWorkersAhead
                      : spin                    ? kNativeWorkersAheadOnGpu
                                                : kNativeWorkersAhead;
    }
  };

  for (size_t index = 0; index < count; ++index) {
    const PlannedCall& planned = outcome.plan.calls[index];
    if (inputs.interrupted && inputs.interrupted->load()) {
      finish_run();
      outcome.interrupted = true;
      return outcome;
    }
    if (Seconds(run_started) > rules.limits.run_max_s) {
      finish_run();
      outcome.failure =
          CallFailure{"run-time", "the run took more than " +
                                      std::to_string(rules.limits.run_max_s / 60) + " minutes"};
      return outcome;
    }
    // Before the first worker, whatever an older run or another scorer left of the worker uids
    // goes; later, each worker's uid is cleared before the worker starts (start_worker).
    // A harness error once calls have been made ends the run as the harness's failure, with every
    // completed call kept; before the first one it is the command's error.
    auto harness_error = [&](const Status& status) -> Result<RunOutcome> {
      if (index == 0 && finishing.empty()) return status;
      finish_run();
      outcome.harness_failure = CallFailure{
          "crash",
          "the harness could not run call " + std::to_string(index + 1) + ": " + status.message(),
          /*harness=*/true};
      return std::move(outcome);
    };
    if (sandbox_full && index == 0) {
      Status reaped = ReapWorkerUids();
      if (!reaped.ok()) return harness_error(reaped);
    }
    // This call's worker, calibrated, loaded and warmed up during the last call, if it led a pair.
    std::optional<Prepared> mine = std::move(prepared);
    prepared.reset();
    const bool follower = mine.has_value();
    // The steps of this call on the parent's clock (ms since the call began: for a call whose
    // worker was prepared during the last one, since that began to prepare it), kept with the
    // phases: where a run's wall time goes.
    const int64_t call_started_ns = follower ? mine->call_started_ns : MonotonicNs();
    Json steps = follower ? std::move(mine->steps) : Json::object();
    // What happened to the last call's worker during this call (for the evidence).
    Json previous = follower ? std::move(mine->previous) : Json::object();
    auto step = [&](const char* name) { steps[name] = (MonotonicNs() - call_started_ns) / 1e6; };
    std::unique_ptr<WorkerProcess> owned;
    int64_t spawned_ns = 0;  // when this call's worker was started
    CallRecord record;
    std::vector<Json> calibration_phases;
    Result<Draw> warm = Status::Internal("the warm-up draw was not made");
    Result<Draw> timed = Status::Internal("the timed draw was not made");
    Frame reply;
    std::optional<CallFailure> hello_failure;
    std::string restarted_because;
    size_t paired_with = 0;  // the call (from 1) whose warm-up this call's shared
    if (follower) {
      owned = std::move(mine->worker);
      record = std::move(mine->record);
      calibration_phases = std::move(mine->calibration_phases);
      timed = std::move(mine->timed);
      paired_with = mine->leader;
      mine.reset();
    } else {
      record.dataset = planned.dataset;
      record.draw_index = planned.draw_index;
      record.warmup_dataset = planned.warmup_dataset;
      record.warmup_draw_index = planned.warmup_draw_index;
      record.total = rules.draw.test;
      // This call's worker, unless it was started ahead; for the first call, the next ones too
      // (later calls start theirs while their method's warm-up runs, below).
      while (started < count && started <= (index == 0 ? workers_ahead : index)) {
        Status status = start_worker();
        if (!status.ok()) {
          return harness_error(
              status.Annotate("starting the worker of call " + std::to_string(started + 1)));
        }
      }
      Ahead current = std::move(ahead.front());
      ahead.pop_front();
      owned = std::move(current.worker);
      spawned_ns = current.spawned_ns;
      steps["spawned"] = (current.spawned_ns - call_started_ns) / 1e6;
      // The warm-up's draw was made during the last call's warm-up (the first call's is made
      // now), the timed one is made during the warm-up; each reaches the worker only inside its
      // window.
      warm = next_warm ? std::move(*next_warm)
                       : draws.Make(planned.warmup_dataset, planned.warmup_draw_index);
      next_warm.reset();
      if (!warm.ok()) return harness_error(warm.status());

      if (current.not_sent) {
        hello_failure = current.not_sent;
      } else if (current.hello) {
        reply = std::move(*current.hello);
      } else {
        hello_failure = owned->Receive(rules.limits.worker_start_s, "starting the worker", &reply);
      }
      // A worker started during an earlier call shared the machine with that call's method,
      // which may have taken what the start needed (the device's memory): it starts again now,
      // when nothing of the earlier calls runs, and only a second failure is the harness's.
      if (hello_failure && current.spawned_ns < call_started_ns) {
        const uid_t uid = owned->uid();
        owned->Close();
        restarted_because = hello_failure->message;
        const std::string said = owned->log();
        if (!said.empty()) restarted_because += "\nworker output:\n" + said;
        if (!finishing.empty()) previous["waited"] = "this call's worker started ahead had failed";
        finish_previous();  // the last call's worker gone, its device memory released
        Result<std::unique_ptr<WorkerProcess>> again = WorkerProcess::Start(launch, uid);
        if (!again.ok()) {
          return harness_error(again.status().Annotate(
              "starting the worker again (the one started ahead had failed: " + restarted_because +
              ")"));
        }
        owned = std::move(*again);
        steps["restarted"] = (MonotonicNs() - call_started_ns) / 1e6;
        hello_failure = owned->Request(HelloCommand(rules, *owned), rules.limits.worker_start_s,
                                       "starting the worker", &reply);
      }
    }
    WorkerProcess& worker = *owned;
    const std::string folder = worker.folder();
    bool first_window_ready = false;  // before_first_window was called

    auto fail = [&](CallFailure failure) -> Result<RunOutcome> {
      // A limit the worker reached is what ended the call, whatever failed with it (a malformed
      // result, a deadline, a step of the harness): read before Close() removes its folder.
      if (failure.rule != "memory" && failure.rule != "processes" && failure.rule != "disk") {
        if (std::optional<CallFailure> limit = worker.LimitHit()) {
          limit->message += "\n(then: " + failure.message + ")";
          failure = *limit;
        }
      }
      worker.Close();
      // The contract comes before every file of the run, even when the first worker never gave
      // a hello it could take facts from (its error, if any, comes again when the run ends).
      if (index == 0 && !first_window_ready && inputs.before_first_window) {
        first_window_ready = true;
        (void)inputs.before_first_window(Json());
      }
      // What the machine held beside the failed call: its steps, and the workers started ahead
      // (each with its own device context and memory).
      record.phases["steps"] = steps;
      record.phases["alive_ahead"] = live_ahead() + (prepared ? 1 : 0);
      if (crew) {
        record.phases["write_threads"] = crew->threads();
        record.phases["write_stores"] = StoresName(crew->stores());
      }
      if (!previous.empty()) record.phases["previous"] = previous;
      if (paired_with) record.phases["paired_with"] = paired_with;
      finish_run();  // the last call completed, the workers ahead and every worker uid killed
      if (!restarted_because.empty()) record.phases["restarted_because"] = restarted_because;
      record.log = worker.log();
      record.log_total_bytes = worker.log_total_bytes();
      record.worker_exit = worker.exit_description();
      if (failure.harness) {
        // Not the method's doing: the run ends without a verdict, but what it did is kept.
        failure.message = "the harness could not run call " + std::to_string(index + 1) + ": " +
                          failure.message +
                          (record.log.empty() ? "" : "\nworker output:\n" + record.log);
        outcome.harness_failure = std::move(failure);
      } else {
        outcome.failure = std::move(failure);
      }
      outcome.calls.push_back(std::move(record));
      return std::move(outcome);
    };
    // Every field of a hello is checked for its type before it is used.
    auto text_of = [](const Json& header, const char* key, const std::string& otherwise) {
      auto it = header.find(key);
      return it != header.end() && it->is_string() ? it->get<std::string>() : otherwise;
    };
    // The worker's own instants of its start (the loader done, torch imported, hello read and
    // answered) on the same clock, for where a start's time goes.
    auto worker_steps = [](const Json& header, Json* steps_of, int64_t started_ns) {
      auto clock = header.find("clock_ns");
      if (clock == header.end() || !clock->is_object()) return;
      for (const auto& [name, ns] : clock->items()) {
        if (ns.is_number_integer()) {
          (*steps_of)["worker_" + name] = (ns.get<int64_t>() - started_ns) / 1e6;
        }
      }
    };
    // Whether a hello comes from a worker that runs as the uid it was given.
    auto runs_as_its_uid = [&](const Json& header, const WorkerProcess& of) {
      const Json sandbox = header.value("sandbox", Json());
      const Json uid = sandbox.is_object() ? sandbox.value("uid", Json()) : Json();
      return !sandbox_full ||
             (uid.is_number_integer() && uid.get<int64_t>() == static_cast<int64_t>(of.uid()));
    };
    // An empty call as the calibration makes it (and the empty calls before the timed one).
    auto empty_call = [&](const char* doing) {
      GoRequest request;
      request.empty = &empty;
      request.staging = &staging;
      request.null_method = true;
      request.timeout_s = rules.limits.null_call_s;
      request.stage_s = rules.limits.stage_s;
      request.doing = doing;
      request.spin = spin;
      request.crew = crew.get();
      return request;
    };
    // Nothing of a later call's start-up runs during a window of this one.
    auto freeze = [&](bool stop) -> std::optional<CallFailure> {
      Status status = freeze_ahead(stop);
      if (status.ok()) return std::nullopt;
      return CallFailure{"crash", status.message(), /*harness=*/true};
    };
    // The method file as the worker `of` loads it, from its own folder.
    auto load_command = [&](const WorkerProcess& of) {
      const std::string entry = of.folder() + "/" + SubmissionEntry(inputs.submission);
      return Json{{"cmd", "load"}, {"path", entry}, {"function", inputs.submission.function}};
    };
    const double warm_limit_s =
        (index == 0 ? rules.limits.warmup_max_call_ms : rules.limits.later_warmup_max_call_ms) /
        1e3;
    Status ahead_started;

    if (follower) {
      // The call before shared this one's warm-up and is stopped, every process of its uid, as
      // this one was through that call's priming and timed call; both are killed after the next
      // call's calibration. One that could not be stopped is gone before this call's priming.
      if (previous_killed()) {
        finish_previous();
        step("previous_closed");
      } else if (!await_previous_stopped(&previous)) {
        step("previous_closed");
      }
      Status thawed = worker.Freeze(false, /*whole_uid=*/true);
      if (!thawed.ok()) {
        return fail(CallFailure{"crash", thawed.Annotate("thawing the worker").message(), true});
      }
      step("thawed");
    } else {
      if (hello_failure) {
        hello_failure->harness = true;
        if (!restarted_because.empty()) {
          hello_failure->message +=
              " (started again: the worker started ahead had failed too: " + restarted_because +
              ")";
        }
        return fail(*hello_failure);
      }
      record.hello = reply.header;
      step("hello");
      worker_steps(reply.header, &steps, call_started_ns);
      // A last call's worker that was killed at once (a partial sandbox, or one that could not
      // be stopped) is gone before this call's calibration.
      if (!finishing.empty() && (!defer_teardown || previous_killed())) finish_previous();
      if (!runs_as_its_uid(reply.header, worker)) {
        return fail(CallFailure{"crash",
                                "the worker does not run as its sandbox user (uid " +
                                    std::to_string(worker.uid()) + ")",
                                true});
      }
      if (index == 0 && inputs.before_first_window) {
        first_window_ready = true;
        Status done = inputs.before_first_window(reply.header);
        if (!done.ok()) return harness_error(done);
      }
      if (index == 0) {
        say("  " + text_of(reply.header, "device_name", "?") + ", torch " +
            text_of(reply.header, "torch", "?") + ", sandbox " +
            (sandbox_full
                 ? "on"
                 : "partial (" + DescribeSandbox().partial_reason + "): not an official time"));
      }
      spin = text_of(reply.header, "device", "") == "cuda";
      const std::string board_uuid = text_of(reply.header, "uuid", "");
      if (spin && workers_ahead == kNativeWorkersAhead && inputs.submission.native) {
        workers_ahead = kNativeWorkersAheadOnGpu;
      }
      if (spin && index == 0 && may_pair) {
        workers_ahead =
            inputs.submission.native ? kNativeWorkersAheadPaired : kPythonWorkersAheadPaired;
      } else if (!spin && index == 0 && sandbox_full) {
        // A board found to be a GPU whose worker runs on the CPU: the single calls' counts.
        workers_ahead = inputs.submission.native ? kNativeWorkersAhead : kPythonWorkersAhead;
      }
      if (spin && !crew) {
        // The board's copy engine reads what the crew writes: streaming stores (copy_crew.h).
        crew = std::make_unique<CopyCrew>(CopyCrew::HelpersFor(CopyCrew::UsableCores()),
                                          Stores::kStreaming);
      }
      if (std::optional<CallFailure> failure = freeze(true)) return fail(*failure);
      if (previous_stopped() && !await_previous_stopped(&previous)) step("previous_closed");
      step("froze");
      // Calibration: the empty method's round trip, before the method is imported.
      auto calibrate = [&](WorkerProcess& of, double* overhead_ms,
                           std::vector<Json>* phases) -> std::optional<CallFailure> {
        std::vector<double> samples;
        phases->clear();
        for (int64_t i = 0; i < rules.timing.calibration_calls; ++i) {
          GoResult result;
          const GoRequest request = empty_call("calibrating the protocol");
          if (std::optional<CallFailure> failure = Go(of, request, rules.draw.test, &result)) {
            failure->harness = true;
            return failure;
          }
          if (i >= rules.timing.calibration_discard) {
            samples.push_back(result.parent_ms - result.ms);
            phases->push_back(result.phases);
          }
        }
        *overhead_ms = Median(samples);
        return std::nullopt;
      };
      // Calibrates `of` as above; one made beside the last call's stopped worker and slower than
      // every calibration made with no method alive is made again with that worker gone.
      auto calibrate_clean = [&](WorkerProcess& of, double* overhead_ms, std::vector<Json>* phases,
                                 Json* noted, Json* steps_of,
                                 int64_t started_ns) -> std::optional<CallFailure> {
        if (std::optional<CallFailure> failure = calibrate(of, overhead_ms, phases)) {
          return failure;
        }
        const bool beside_previous = previous_stopped();
        if (beside_previous && (!clean_overhead_ms ||
                                *overhead_ms > *clean_overhead_ms + rules.timing.floor_slack_ms)) {
          (*noted)["recalibrated"] =
              Json{{"overhead_ms", *overhead_ms},
                   {"clean_overhead_ms", clean_overhead_ms ? Json(*clean_overhead_ms) : Json()}};
          finish_previous();
          (*steps_of)["previous_closed"] = (MonotonicNs() - started_ns) / 1e6;
          if (std::optional<CallFailure> failure = calibrate(of, overhead_ms, phases)) {
            return failure;
          }
        }
        if (finishing.empty()) {  // made with no earlier method alive
          clean_overhead_ms = std::max(clean_overhead_ms.value_or(0), *overhead_ms);
        }
        return std::nullopt;
      };
      if (std::optional<CallFailure> failure =
              calibrate_clean(worker, &record.overhead_ms, &calibration_phases, &previous, &steps,
                              call_started_ns)) {
        return fail(*failure);
      }
      step("calibrated");
      auto read_memory = [&]() {
        return gauge ? gauge->Read() : Result<MemoryReading>(Status::Unavailable(gauge_missing));
      };
      std::optional<Result<MemoryReading>> memory;
      // The next call's worker joins this call's warm-up when it has said hello (or, under
      // Pairing::kAlways, once it does) and the memory is ample with the last call's method
      // still holding its own: two methods like it then fit beside it.
      const bool could_pair = may_pair && !pairing_failed &&
                              (spin || inputs.pairing == Pairing::kAlways) && index > 0 &&
                              index + 1 < count && !ahead.empty() && !ahead.front().not_sent;
      bool pair = could_pair && (inputs.pairing == Pairing::kAlways || ahead.front().hello ||
                                 ahead.front().worker->ReplyWaiting());
      if (could_pair && !pair) {
        // A worker about to answer is worth a short wait (a pair saves about a warm-up): it is
        // thawed (it runs ratchet's code only, and no window is open) and given kPairHelloWaitS.
        if (ahead.front().worker->Freeze(false, /*whole_uid=*/false).ok()) {
          pair = ahead.front().worker->ReplyWaiting(kPairHelloWaitS);
        }
        step("next_hello_awaited");
      }
      if (pair && inputs.pairing != Pairing::kAlways) {
        memory = read_memory();
        pair = memory->ok() && Ample(**memory);
      }
      if (pair) {
        Ahead next = std::move(ahead.front());
        ahead.pop_front();
        Prepared joined;
        joined.call_started_ns = MonotonicNs();
        joined.spawned_ns = next.spawned_ns;
        joined.leader = index + 1;
        joined.steps["spawned"] = (next.spawned_ns - joined.call_started_ns) / 1e6;
        const PlannedCall& its = outcome.plan.calls[index + 1];
        joined.record.dataset = its.dataset;
        joined.record.draw_index = its.draw_index;
        joined.record.warmup_dataset = its.warmup_dataset;
        joined.record.warmup_draw_index = its.warmup_draw_index;
        joined.record.total = rules.draw.test;
        // Stopped with the other workers ahead for this call's calibration; thawed for its own.
        Status thawed = next.worker->Freeze(false, /*whole_uid=*/false);
        std::optional<CallFailure> failure;
        Frame hello;
        if (!thawed.ok()) {
          failure = CallFailure{"crash", thawed.message(), true};
        } else if (next.hello) {
          hello = std::move(*next.hello);
        } else {
          failure =
              next.worker->Receive(rules.limits.worker_start_s, "starting the worker", &hello);
        }
        if (!failure && !runs_as_its_uid(hello.header, *next.worker)) {
          // Its own call fails it, as any worker that does not run as its sandbox user.
          next.hello = std::move(hello);
          pair = false;
        } else if (!failure) {
          joined.record.hello = hello.header;
          joined.steps["hello"] = (MonotonicNs() - joined.call_started_ns) / 1e6;
          worker_steps(hello.header, &joined.steps, joined.call_started_ns);
          joined.worker = std::move(next.worker);
          // Should the last call's worker have to go first, that is this call's step.
          failure = calibrate_clean(*joined.worker, &joined.record.overhead_ms,
                                    &joined.calibration_phases, &joined.previous, &steps,
                                    call_started_ns);
          if (!failure) {
            joined.steps["calibrated"] = (MonotonicNs() - joined.call_started_ns) / 1e6;
            prepared = std::move(joined);
          } else {
            next.worker = std::move(joined.worker);
          }
        }
        if (failure) {
          // Not its method's doing (none is loaded): its call starts a worker again, alone, and
          // the run makes no pair again.
          next.worker->Close();
          next.not_sent = failure;
          pair = false;
          stop_pairing();
        }
        if (!pair) ahead.push_front(std::move(next));
      }
      // The last call's worker dies while this call's method is imported and warms up, unless
      // the memory that method needs may not be free enough yet.
      if (previous_stopped()) {
        Status killed = release_previous();
        step("previous_killed");
        if (!memory) memory = read_memory();
        if (memory->ok()) {
          previous["memory"] = Json{{"of", gauge->Name()},
                                    {"free_mib", (*memory)->free_bytes >> 20},
                                    {"total_mib", (*memory)->total_bytes >> 20}};
        }
        if (!killed.ok() || !memory->ok() || !Ample(**memory)) {
          previous["waited"] = !killed.ok() ? killed.message()
                               : !memory->ok()
                                   ? memory->status().message()
                                   : "less than " + std::string(kAmpleText) + " of the memory free";
          finish_previous();
          step("previous_closed");
        }
      }
      if (std::optional<CallFailure> failure = freeze(false)) return fail(*failure);

      if (std::optional<CallFailure> failure = worker.Request(
              load_command(worker), rules.limits.import_s, "importing the method file", &reply)) {
        return fail(*failure);
      }
      step("loaded");
      // A pair's failure (the next call's worker could not load its method, warm up or stop
      // beside this one; or this call's warm-up failed beside it) is charged to neither call:
      // each starts a worker again, alone, where the same failure, if it comes again, is that
      // call's; and no pair is made again in this run, so that a method gets that second chance
      // once at most.
      std::optional<CallFailure> joined_failed;
      const bool paired_now = prepared.has_value();
      GoRequest warm_request;
      warm_request.draw = &*warm;
      warm_request.timeout_s = warm_limit_s;
      warm_request.stage_s = rules.limits.stage_s;
      warm_request.doing =
          "running the method on the untimed warm-up on " + DrawPhrase(warm->dataset);
      // The next call's load and warm-up, beside this one's warm-up, its warm-up on a thread of
      // its own (joined before anything else once this one's returns, or on the way out).
      std::optional<Result<Draw>> joined_warm;
      GoRequest joined_request;
      GoResult joined_result;
      std::thread joined_thread;
      struct JoinOnExit {
        std::thread& thread;
        ~JoinOnExit() {
          if (thread.joinable()) thread.join();
        }
      } join_on_exit{joined_thread};
      // While the method warms up: the draws, and the workers of the next calls.
      warm_request.while_waiting = [&] {
        if (prepared) {
          Frame loaded;
          joined_failed =
              prepared->worker->Request(load_command(*prepared->worker), rules.limits.import_s,
                                        "importing the method file", &loaded);
          if (!joined_failed) {
            prepared->steps["loaded"] = (MonotonicNs() - prepared->call_started_ns) / 1e6;
            const PlannedCall& its = outcome.plan.calls[index + 1];
            joined_warm = draws.Make(its.warmup_dataset, its.warmup_draw_index);
            if (!joined_warm->ok()) {
              joined_failed = CallFailure{"crash", joined_warm->status().message(), true};
            }
          }
          if (!joined_failed) {
            joined_request = warm_request;
            joined_request.while_waiting = nullptr;
            joined_request.draw = &**joined_warm;
            joined_request.doing = "running the method on the untimed warm-up on " +
                                   DrawPhrase((*joined_warm)->dataset) +
                                   " (beside the last call's)";
            joined_thread = std::thread([&] {
              joined_failed =
                  Go(*prepared->worker, joined_request, rules.draw.test, &joined_result);
            });
          }
        }
        timed = draws.Make(planned.dataset, planned.draw_index);
        const size_t after = prepared ? index + 2 : index + 1;  // the next call warmed up alone
        if (prepared) {
          const PlannedCall& its = outcome.plan.calls[index + 1];
          prepared->timed = draws.Make(its.dataset, its.draw_index);
        }
        if (after < count) {
          const PlannedCall& next = outcome.plan.calls[after];
          next_warm = draws.Make(next.warmup_dataset, next.warmup_draw_index);
        }
        if (index == 0 && defer_teardown && !gauge) {
          if (!spin) {
            gauge = HostMemoryGauge();
          } else if (board_uuid.empty()) {
            gauge_missing = "the worker named no board";
          } else if (Result<NvmlApi> api = BindNvml(); !api.ok()) {
            gauge_missing = api.status().message();
          } else if (Result<std::unique_ptr<MemoryGauge>> board =
                         BoardMemoryGauge(*api, board_uuid);
                     !board.ok()) {
            gauge_missing = board.status().message();
          } else {
            gauge = std::move(*board);
          }
        }
        // The workers of the calls to come; never more alive and not exiting than there are
        // worker uids (this call's, a prepared one, and those ahead).
        const size_t last =
            std::min(index + (prepared ? 1 : 0) + workers_ahead, index + kWorkerUidCount - 1);
        while (ahead_started.ok() && started < count && started <= last) {
          ahead_started =
              start_worker().Annotate("starting the worker of call " + std::to_string(started + 1));
        }
      };
      GoResult warm_result;
      std::optional<CallFailure> warm_failed =
          Go(worker, warm_request, rules.draw.test, &warm_result);
      if (joined_thread.joinable()) joined_thread.join();
      step("warmed");
      if (prepared && !joined_failed && !warm_failed) {
        prepared->steps["warmed"] = (MonotonicNs() - prepared->call_started_ns) / 1e6;
        // Stopped, every process of its uid, until its own call.
        Status stopped = prepared->worker->Freeze(true, /*whole_uid=*/true);
        if (stopped.ok()) stopped = prepared->worker->AwaitFrozen(kFreezeTimeoutS, true);
        if (!stopped.ok()) joined_failed = CallFailure{"crash", stopped.message(), true};
      }
      // Gives a worker back to the calls to come as one whose start failed: its call starts a
      // worker again, alone (the restart above, which keeps why and what the worker said).
      auto give_back = [&](std::unique_ptr<WorkerProcess> of, int64_t spawned_ns,
                           const CallFailure& why, const std::string& because) {
        Ahead back;
        back.spawned_ns = spawned_ns;
        back.worker = std::move(of);
        back.worker->Close();
        back.not_sent = CallFailure{why.rule, because + why.message, true};
        ahead.push_front(std::move(back));
      };
      if (paired_now && (joined_failed || warm_failed)) {
        stop_pairing();
        if (prepared) {
          const CallFailure why = joined_failed ? *joined_failed : CallFailure{"crash", "", true};
          give_back(std::move(prepared->worker), prepared->spawned_ns, why,
                    joined_failed
                        ? "it could not warm up beside call " + std::to_string(index + 1) + "'s: "
                        : "call " + std::to_string(index + 1) + "'s warm-up beside it failed");
          prepared.reset();
        }
        if (warm_failed) {
          // This call again, from a worker of its own, warmed up on its own warm-up draw.
          give_back(std::move(owned), spawned_ns, *warm_failed,
                    "its warm-up failed beside call " + std::to_string(index + 2) + "'s: ");
          next_warm = std::move(warm);
          --index;
          continue;
        }
        // The next call warms up on its own draw, as if it had never been joined.
        if (joined_warm && joined_warm->ok()) {
          next_warm = std::move(*joined_warm);
        } else {
          next_warm.reset();
        }
      }
      if (warm_failed) return fail(*warm_failed);
      if (!finishing.empty()) {
        finish_previous();  // gone before any window of this call's method
        step("previous_closed");
      }
      if (prepared) paired_with = index + 2;
    }
    // The harness's failures from here on keep this call as attempted, its log with it.
    if (!timed.ok()) return fail(CallFailure{"crash", timed.status().message(), /*harness=*/true});
    if (!ahead_started.ok()) {
      return fail(CallFailure{"crash", ahead_started.message(), /*harness=*/true});
    }
    // The inputs' sha256 goes into the evidence.
    record.inputs_sha256 = InputsSha256(*timed);
    // One more than in the calibration, when started since.
    const size_t frozen_ahead = live_ahead() + (prepared ? 1 : 0);
    if (std::optional<CallFailure> failure = freeze(true)) return fail(*failure);
    step("refroze");
    // The timed window is entered as each calibration call's was: right after empty calls of the
    // same kind, so that the processor's and the device's state (clocks, caches, the copy path)
    // is the one the calibration measured, not the one a pause after the warm-up leaves.
    for (int i = 0; i < kPrimingCalls; ++i) {
      const GoRequest request = empty_call("priming the protocol before the timed call");
      GoResult result;
      // The method is loaded by now: whatever stops an empty call is counted against it.
      if (std::optional<CallFailure> failure = Go(worker, request, rules.draw.test, &result)) {
        return fail(*failure);
      }
    }
    step("primed");
    GoRequest timed_request;
    timed_request.draw = &*timed;
    timed_request.staging = &staging;
    timed_request.timeout_s = rules.limits.max_call_ms / 1e3 + rules.limits.timed_call_grace_s;
    timed_request.stage_s = rules.limits.stage_s;
    timed_request.doing = "running the method on " + DrawPhrase(timed->dataset);
    timed_request.spin = spin;
    timed_request.crew = crew.get();
    GoResult timed_result;
    if (std::optional<CallFailure> failure =
            Go(worker, timed_request, rules.draw.test, &timed_result)) {
      return fail(*failure);
    }
    // A limit hit during the call disqualifies it even when the method recovered (caught the
    // refused fork, the full folder); read after the clock stopped.
    if (std::optional<CallFailure> limit = worker.LimitHit()) return fail(*limit);
    if (timed_result.ms > rules.limits.max_call_ms) {
      return fail(CallFailure{
          "timeout", "a call took " + FormatFixed(timed_result.ms, 0, true) + " ms; the limit is " +
                         FormatGrouped(static_cast<int64_t>(rules.limits.max_call_ms)) + " ms"});
    }
    record.ms = timed_result.ms;
    record.parent_ms = timed_result.parent_ms;
    step("timed");
    if (std::optional<CallFailure> failure = freeze(false)) return fail(*failure);
    for (size_t i = 0; i < timed_result.labels.size(); ++i) {
      if (static_cast<int64_t>(static_cast<uint8_t>(timed_result.labels[i])) == timed->test_y[i]) {
        ++record.correct;
      }
    }
    record.labels = std::move(timed_result.labels);
    record.phases = Json{{"timed", timed_result.phases},
                         {"calibration", MedianPhases(calibration_phases)},
                         {"frozen_ahead", frozen_ahead},
                         {"write_threads", crew ? crew->threads() : 1},
                         {"write_stores", StoresName(crew ? crew->stores() : Stores::kCached)},
                         {"group", worker.GroupUsageJson()}};
    if (paired_with) record.phases["paired_with"] = paired_with;
    if (!previous.empty()) record.phases["previous"] = previous;
    if (!restarted_because.empty()) record.phases["restarted_because"] = restarted_because;
    finishing.push_back(std::make_unique<Finishing>());
    Finishing& done = *finishing.back();
    done.worker = std::move(owned);
    done.record = std::move(record);
    done.call_started_ns = call_started_ns;
    done.record.phases["steps"] = steps;
    // The method's processes are stopped now (the parent confirms it before the next window;
    // what they queued on the device still runs, see clean_overhead_ms) and killed after the
    // next calibration (see Finishing): a pair's first call's stays stopped through the second
    // call's priming and timed call, and both are killed after the calibration after them. Or
    // killed now, with any other finished one: the last call's, under a partial sandbox, or when
    // they cannot be stopped.
    const bool stopped =
        defer_teardown && index + 1 < count && done.worker->Freeze(true, /*whole_uid=*/true).ok();
    if (stopped) {
      done.record.phases["steps"]["stopped"] = (MonotonicNs() - call_started_ns) / 1e6;
    } else {
      (void)release_previous();  // waited for before the next window
    }
  }
  finish_run();

  std::vector<Call> calls;
  for (const CallRecord& record : outcome.calls) {
    calls.push_back(Call{record.dataset, record.ms, record.parent_ms, record.correct, record.total,
                         record.overhead_ms});
  }
  Result<Judgement> judgement = Judge(calls, inputs.band_bp, rules);
  if (!judgement.ok()) return judgement.status();
  outcome.judgement = *judgement;
  return outcome;
}

}  // namespace ratchet
