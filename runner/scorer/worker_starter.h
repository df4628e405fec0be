// Where a scoring run's workers come from, and what the run asks of the machine around them:
// clearing the worker uids, the processes a killed worker leaves dying, the memory a method
// uses. The run loop (scorer/run_loop.h) is written against this seam: a real run starts
// WorkerProcess under the sandbox (SandboxWorkerStarter); the loop's tests start fakes and check
// the order of a run (workers ahead, pairs, teardown, interruption) without a process.
#ifndef RATCHET_SCORER_WORKER_STARTER_H_
#define RATCHET_SCORER_WORKER_STARTER_H_

#include <sys/types.h>

#include <memory>
#include <string>
#include <vector>

#include "core/status.h"
#include "scorer/call_worker.h"
#include "scorer/compile_step.h"
#include "scorer/headroom.h"
#include "scorer/worker_process.h"

namespace ratchet {

class WorkerStarter {
 public:
  virtual ~WorkerStarter() = default;

  // Whether each worker runs as a uid of its own (the full sandbox). Only then are workers
  // started ahead, frozen, and torn down beside the next call; otherwise each is killed and
  // gone before the next window.
  virtual bool isolated() const = 0;
  // Before the run's first worker: whatever an older run or another scorer left of the worker
  // uids goes.
  virtual Status ClearWorkerUids() = 0;
  // A worker for one call, running as `uid`, once whatever an earlier call left of that uid is
  // gone or exiting. Errors are the harness's.
  virtual Result<std::unique_ptr<CallWorker>> Start(uid_t uid) = 0;
  // The caches a dead worker left in its folder (the compile step's, scorer/compile_step.h).
  virtual Result<CacheSet> ReadCaches(CallWorker& worker) = 0;
  // Every worker started from now on gets a copy of `caches` in its folder.
  virtual void SeedCaches(CacheSet caches) = 0;
  // Every process of `uid` now: what a worker about to be killed leaves dying.
  virtual std::vector<pid_t> ProcessesOf(uid_t uid) = 0;
  // Waits until none of `pids` is alive (gone, or a zombie), or `timeout_s` passes; false on the
  // timeout.
  virtual bool AwaitGone(const std::vector<pid_t>& pids, double timeout_s) = 0;
  // When the run ends: every process of every worker uid killed.
  virtual void KillWorkerUids() = 0;
  // The memory a method uses: the machine's (`gpu` false) or the board `board_uuid` names.
  virtual Result<std::unique_ptr<MemoryGauge>> OpenMemoryGauge(bool gpu,
                                                               const std::string& board_uuid) = 0;
};

// Workers as `launch` says, under the sandbox this process has (DescribeSandbox).
class SandboxWorkerStarter : public WorkerStarter {
 public:
  explicit SandboxWorkerStarter(WorkerLaunch launch);

  bool isolated() const override { return isolated_; }
  Status ClearWorkerUids() override;
  Result<std::unique_ptr<CallWorker>> Start(uid_t uid) override;
  Result<CacheSet> ReadCaches(CallWorker& worker) override;
  void SeedCaches(CacheSet caches) override;
  std::vector<pid_t> ProcessesOf(uid_t uid) override;
  bool AwaitGone(const std::vector<pid_t>& pids, double timeout_s) override;
  void KillWorkerUids() override;
  Result<std::unique_ptr<MemoryGauge>> OpenMemoryGauge(bool gpu,
                                                       const std::string& board_uuid) override;

 private:
  WorkerLaunch launch_;
  bool isolated_;
};

}  // namespace ratchet

#endif  // RATCHET_SCORER_WORKER_STARTER_H_
