// The local executor of the shard scheduler: each shard's attempt is one process on this host,
// started with the device it is given (CUDA_VISIBLE_DEVICES), one at a time on each device.
#ifndef RATCHET_SHARD_LOCAL_EXECUTOR_H_
#define RATCHET_SHARD_LOCAL_EXECUTOR_H_

#include <sys/types.h>

#include <chrono>
#include <functional>
#include <map>
#include <string>
#include <vector>

#include "shard/shards.h"

namespace ratchet {

// What one attempt at a shard runs: a command, the file it reads as stdin, and the files its
// stdout and stderr go to ("" for /dev/null).
struct ShardCommand {
  std::vector<std::string> argv;  // argv[0] a path
  std::string stdin_path, stdout_path, stderr_path;
  std::map<std::string, std::string> env;  // set on top of this process's environment
  std::string folder;                      // the shard's evidence directory
};
// Makes the command of attempt `attempt` of `shard` on `device`.
using ShardCommandMaker =
    std::function<Result<ShardCommand>(const Shard& shard, int attempt, const std::string& device)>;

// How a shard's process ended, as an attempt's end: the scorer's exit 0 or 1 is a scored shard
// (whatever its outcome); 130 after CancelAll is a cancelled one; any other exit, or a signal, is
// a fault (the scorer could not finish the shard).
AttemptEnd ShardProcessEnd(int wait_status, bool cancelled, std::string* why);

class LocalExecutor : public ShardExecutor {
 public:
  // One shard at a time on each of `devices` ("0", "2": GPUs by index; "cpu" on a lane without
  // one, where several entries run several shards at once).
  LocalExecutor(std::vector<std::string> devices, ShardCommandMaker maker);
  // Kills what still runs (SIGKILL) and waits for it.
  ~LocalExecutor() override;

  size_t Capacity() const override { return devices_.size(); }
  Status Start(const Shard& shard, int attempt) override;
  std::optional<std::pair<std::string, ShardAttempt>> Wait(
      std::chrono::milliseconds timeout) override;
  // SIGTERM to every shard's process: the scorer finishes its evidence as interrupted.
  void CancelAll() override;
  void KillAll() override;

 private:
  struct Running {
    Shard shard;
    ShardAttempt attempt;
    size_t slot = 0;
    pid_t pid = -1;
    std::chrono::steady_clock::time_point start;
    bool cancelled = false;
  };

  std::vector<std::string> devices_;
  std::vector<bool> busy_;
  ShardCommandMaker maker_;
  std::vector<Running> running_;
  std::string host_;
};


}  // namespace ratchet

#endif  // RATCHET_SHARD_LOCAL_EXECUTOR_H_
