#include "scorer/run_workers.h"

#include <algorithm>

#include "sandbox/policy.h"
#include "scorer/window.h"

namespace ratchet {
namespace {

// How long the last call's worker, frozen after its timed call, may take to stop before the next
// calibration; past it, that worker is killed and its teardown waited for instead.
constexpr double kPreviousFreezeTimeoutS = 1;
// How long the processes of a killed worker may take to be gone before the run goes on without
// waiting for them (a process whose exit the kernel cannot finish).
constexpr double kGoneTimeoutS = 10;

}  // namespace

Status WorkersAhead::StartNext() {
  const uid_t uid = WorkerUids()[started_ % kWorkerUidCount];
  WorkerAhead next;
  next.spawned_ns = MonotonicNs();
  Result<std::unique_ptr<CallWorker>> worker = starter_.Start(uid);
  if (!worker.ok()) return worker.status();
  next.worker = std::move(*worker);
  next.not_sent = next.worker->Send(HelloCommand(rules_, *next.worker),
                                    rules_.limits.worker_start_s, "starting the worker");
  ahead_.push_back(std::move(next));
  ++started_;
  return Status::Ok();
}

WorkerAhead WorkersAhead::TakeFront() {
  WorkerAhead front = std::move(ahead_.front());
  ahead_.pop_front();
  return front;
}

void WorkersAhead::PutFront(WorkerAhead worker) { ahead_.push_front(std::move(worker)); }

Status WorkersAhead::Freeze(bool stop) {
  Status first;
  for (WorkerAhead& next : ahead_) {
    Status status = next.worker->Freeze(stop, /*whole_uid=*/false);
    if (first.ok() && !status.ok()) first = status;
  }
  for (WorkerAhead& next : ahead_) {
    if (!stop || !first.ok()) break;
    first = next.worker->AwaitFrozen(kFreezeTimeoutS, /*whole_uid=*/false);
  }
  return first.Annotate(stop ? "freezing the workers started ahead"
                             : "thawing the workers started ahead");
}

size_t WorkersAhead::Live() const {
  return static_cast<size_t>(
      std::count_if(ahead_.begin(), ahead_.end(),
                    [](const WorkerAhead& next) { return next.worker && next.worker->running(); }));
}

bool FinishedCalls::AnyStopped() const {
  return std::any_of(finishing_.begin(), finishing_.end(),
                     [](const std::unique_ptr<FinishedCall>& done) { return !done->killed; });
}

bool FinishedCalls::AnyKilled() const {
  return std::any_of(finishing_.begin(), finishing_.end(),
                     [](const std::unique_ptr<FinishedCall>& done) { return done->killed; });
}

Status FinishedCalls::Release() {
  Status first;
  for (const std::unique_ptr<FinishedCall>& owned : finishing_) {
    FinishedCall* done = owned.get();
    if (done->killed) continue;
    done->pids = starter_.ProcessesOf(done->worker->uid());
    Status stopped = done->worker->Kill();
    if (first.ok() && !stopped.ok()) first = stopped;
    done->killed = true;
    if (std::optional<uint64_t> left = done->worker->page_cache_left_bytes()) {
      done->record.phases["group"]["page_cache_left_bytes"] = *left;
    }
    done->record.phases["steps"]["killed"] = (MonotonicNs() - done->call_started_ns) / 1e6;
    done->reaper = std::thread([done, &starter = starter_] {
      done->worker->Close();
      if (!starter.AwaitGone(done->pids, kGoneTimeoutS)) {
        done->record.phases["not_gone"] = "a process of the worker's uid was still there " +
                                          std::to_string(static_cast<int>(kGoneTimeoutS)) +
                                          " s after it was killed";
      }
      done->record.phases["steps"]["closed"] = (MonotonicNs() - done->call_started_ns) / 1e6;
    });
  }
  return first;
}

void FinishedCalls::Finish() {
  if (finishing_.empty()) return;
  (void)Release();  // waited for here in any case
  for (std::unique_ptr<FinishedCall>& done : finishing_) {
    done->reaper.join();
    CallRecord& record = done->record;
    record.log = done->worker->log();
    record.log_total_bytes = done->worker->log_total_bytes();
    record.worker_exit = done->worker->exit_description();
    done_(std::move(record));
  }
  finishing_.clear();
}

bool FinishedCalls::AwaitStopped(Json* noted) {
  for (const std::unique_ptr<FinishedCall>& done : finishing_) {
    if (done->killed) continue;
    Status stopped = done->worker->AwaitFrozen(kPreviousFreezeTimeoutS, /*whole_uid=*/true);
    if (!stopped.ok()) {
      (*noted)["waited"] = "not stopped in time: " + stopped.message();
      Finish();
      return false;
    }
  }
  return true;
}

}  // namespace ratchet
