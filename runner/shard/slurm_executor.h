// The Slurm executor of the shard scheduler: the shards started since the last look are submitted
// together as one job array (`sbatch --array`), each task running one shard's command; the tasks
// are followed with `squeue` (Slurm keeps a finished task's state and exit code for MinJobAge)
// and cancelled with `scancel`. Every attempt keeps its job and task ids and its node.
#ifndef RATCHET_SHARD_SLURM_EXECUTOR_H_
#define RATCHET_SHARD_SLURM_EXECUTOR_H_

#include <chrono>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "shard/local_executor.h"
#include "shard/shards.h"

namespace ratchet {

struct SlurmOptions {
  std::string folder;     // shared by every node: job scripts and the tasks' Slurm logs
  std::string partition;  // "" for the cluster's default
  std::string account;
  int time_minutes = 0;   // a task's time limit; 0 for the partition's
  int gpus = 0;           // GPUs per shard (--gpus-per-task); 0 on a CPU lane
  size_t capacity = 64;   // shards submitted and not yet ended, at most
  std::chrono::milliseconds poll{1000};  // how often squeue is asked
};

// How a task Slurm reports ended, as an attempt's end: COMPLETED, or FAILED with exit 1 (the
// scorer's outcome, disqualified), is scored; any other state that has ended (FAILED with another
// exit, CANCELLED, TIMEOUT, NODE_FAIL, OUT_OF_MEMORY, PREEMPTED, BOOT_FAIL, DEADLINE) is a fault,
// or cancelled when this run cancelled it. nullopt while the task has not ended. `exit_code` is
// squeue's raw wait status.
std::optional<AttemptEnd> SlurmTaskEnd(const std::string& state, int exit_code, bool cancelled,
                                       std::string* why);

class SlurmExecutor : public ShardExecutor {
 public:
  SlurmExecutor(SlurmOptions options, ShardCommandMaker maker);
  // Cancels what it submitted and has not ended.
  ~SlurmExecutor() override;

  size_t Capacity() const override { return options_.capacity; }
  Status Start(const Shard& shard, int attempt) override;
  std::optional<std::pair<std::string, ShardAttempt>> Wait(
      std::chrono::milliseconds timeout) override;
  // scancel of every job array with a task not ended; each such task is then reported as
  // cancelled.
  void CancelAll() override;
  void KillAll() override;

 private:
  struct Task {
    Shard shard;
    ShardAttempt attempt;
    ShardCommand command;
    std::string job;  // "<array job id>_<task>" once submitted
    bool cancelled = false;
    int unseen = 0;   // looks at squeue that did not list it
  };
  // Submits every task not yet submitted as one array. An error fails those tasks' attempts.
  void Submit();
  // One look at squeue: the tasks that ended move to ended_.
  void Look();

  SlurmOptions options_;
  ShardCommandMaker maker_;
  std::vector<Task> tasks_;  // started and not yet reported
  std::vector<std::pair<std::string, ShardAttempt>> ended_;
  int arrays_ = 0;
  std::chrono::steady_clock::time_point last_look_{};
};

}  // namespace ratchet

#endif  // RATCHET_SHARD_SLURM_EXECUTOR_H_
