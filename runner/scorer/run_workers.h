// The workers of a scoring run around the running call: those started ahead for the calls to
// come (WorkersAhead), and those of finished calls still being torn down (FinishedCalls).
// docs/scoring.md, "Workers ahead" and "Warm-ups in pairs", says why each step comes when it does.
#ifndef RATCHET_SCORER_RUN_WORKERS_H_
#define RATCHET_SCORER_RUN_WORKERS_H_

#include <sys/types.h>

#include <cstdint>
#include <deque>
#include <memory>
#include <optional>
#include <string>
#include <thread>
#include <vector>

#include "core/canonical_json.h"
#include "core/status.h"
#include "protocol/worker_channel.h"
#include "rules/rule_set.h"
#include "scorer/call_worker.h"
#include "scorer/run.h"
#include "scorer/worker_starter.h"

namespace ratchet {

// How long a frozen worker's threads may take to stop (one inside a driver call stops only when
// the call returns).
inline constexpr double kFreezeTimeoutS = 10;

// A worker started for a call after the running one.
struct WorkerAhead {
  std::unique_ptr<CallWorker> worker;
  int64_t spawned_ns = 0;
  // The hello could not be sent, or (a worker given back, closed, by a pair that was not made)
  // its start failed: the worker is started again when its call comes.
  std::optional<CallFailure> not_sent;
  std::optional<Frame> hello;  // its reply, when a pair that was not made read it already
};

// Workers for the calls after the running one, started ahead so that their start-up (exec,
// loading torch, the device context) overlaps the running call's untimed steps; `hello` is sent
// at once and its reply read when the call comes. Each has a uid of its own (WorkerUids() in
// turn), so no process of another call can reach it, and no method is loaded into it before
// every process of the calls before it is gone or exiting. All of them are frozen (SIGSTOP, every
// thread confirmed stopped) while a window of the running call is open.
class WorkersAhead {
 public:
  WorkersAhead(WorkerStarter& starter, const RuleSet& rules) : starter_(starter), rules_(rules) {}

  // Calls whose worker is started so far (the running one's and those ahead).
  size_t started() const { return started_; }
  bool empty() const { return ahead_.empty(); }
  // The next call's worker.
  WorkerAhead& front() { return ahead_.front(); }
  // Starts the worker of call `started()` (from 0), as the next worker uid, and sends its hello.
  Status StartNext();
  // Takes the next call's worker out, or puts one back in front.
  WorkerAhead TakeFront();
  void PutFront(WorkerAhead worker);
  // Freezes (or thaws) every worker started ahead; a freeze returns once each has stopped. A
  // worker ahead runs ratchet's code only, in the one process ratchet started (its group).
  Status Freeze(bool stop);
  // The workers ahead that are running (not one given back closed).
  size_t Live() const;
  // Kills each and waits for it.
  void Clear() { ahead_.clear(); }

 private:
  WorkerStarter& starter_;
  const RuleSet& rules_;
  std::deque<WorkerAhead> ahead_;
  size_t started_ = 0;
};

// A finished call whose worker is not gone yet.
struct FinishedCall {
  std::unique_ptr<CallWorker> worker;
  CallRecord record;
  int64_t call_started_ns = 0;
  bool killed = false;
  std::vector<pid_t> pids;  // every process of its uid when it was killed
  std::thread reaper;
  ~FinishedCall() {
    if (reaper.joinable()) reaper.join();
  }
};

// A finished call's worker dies in the background (its GPU context takes about 0.1 s to tear
// down, and a teardown slows the device's other work) while the next call runs; the call is
// complete, its log and exit kept, once that worker is gone. Under the full sandbox the worker is
// frozen after its timed call (every process of its uid stopped) and killed only after the next
// calibration, so that its teardown overlaps that call's import and warm-up, never a window; it
// is gone, with every process of its uid, before that call's priming. A pair's first call's
// worker stays stopped through the second call's priming and timed call, and is killed with the
// second's. The last call's worker, one that cannot be stopped, and every worker under a partial
// sandbox are killed at once and gone before the next window.
class FinishedCalls {
 public:
  // `done`: where each call goes once its worker is gone, in call order.
  FinishedCalls(WorkerStarter& starter, std::function<void(CallRecord)> done)
      : starter_(starter), done_(std::move(done)) {}

  bool empty() const { return finishing_.empty(); }
  void Add(std::unique_ptr<FinishedCall> call) { finishing_.push_back(std::move(call)); }
  // Whether a finished call's worker is stopped, not yet killed; whether one was killed (it could
  // not be stopped, or was the last call's).
  bool AnyStopped() const;
  bool AnyKilled() const;
  // Kills the finished calls' workers not killed yet, and lets each die on a thread: it is gone
  // once the worker and every other process of its uid at the kill (what the method started)
  // are. The status is that of stopping them (a process that did not begin to exit).
  Status Release();
  // Releases them, waits until each is gone, and hands each call on.
  void Finish();
  // Waits until every thread of the stopped finished workers is stopped; one that is not in time
  // is finished, with the others (noted in `noted` as "waited"), and false returned.
  bool AwaitStopped(Json* noted);

 private:
  WorkerStarter& starter_;
  std::function<void(CallRecord)> done_;
  // In call order: the last call's, and, after a pair, both of the pair's.
  std::deque<std::unique_ptr<FinishedCall>> finishing_;
};

}  // namespace ratchet

#endif  // RATCHET_SCORER_RUN_WORKERS_H_
