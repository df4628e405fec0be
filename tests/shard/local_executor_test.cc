// The local executor under the shard scheduler, with shell scripts standing in for the scorer:
// one process a device at a time, the device in CUDA_VISIBLE_DEVICES, the scorer's exit read as
// an attempt's end, and SIGTERM to every process on an interrupt.
#include "shard/local_executor.h"

#include <gtest/gtest.h>
#include <sys/wait.h>

#include <atomic>
#include <chrono>
#include <thread>

#include "core/file.h"
#include "support/temp_dir.h"

namespace ratchet {
namespace {

Shard MakeShard(const std::string& record, int run) {
  return Shard{record + "-" + std::to_string(run), record, "sha", run};
}

// Each attempt runs `script` with sh, its output in <dir>/<shard>.<attempt>.out; the script sees
// SHARD, ATTEMPT and DIR.
ShardCommandMaker Script(const TempDir& dir, const std::string& script) {
  const std::string root = dir.path();
  return [root, script](const Shard& shard, int attempt, const std::string&) {
    ShardCommand command;
    command.argv = {"/bin/sh", "-c", script};
    command.stdout_path = root + "/" + shard.id + "." + std::to_string(attempt) + ".out";
    command.env = {{"SHARD", shard.id}, {"ATTEMPT", std::to_string(attempt)}, {"DIR", root}};
    command.folder = root + "/" + shard.id;
    return Result<ShardCommand>(command);
  };
}

Status Verified(const Shard&, const ShardAttempt&) { return Status::Ok(); }

TEST(LocalExecutorTest, OneShardAtATimeOnEachDeviceWhichItSees) {
  TempDir dir;
  // Each marks the time it ran and which device it saw; the marks of two shards on one device
  // never overlap.
  LocalExecutor executor({"0", "3"},
                         Script(dir, "echo \"$CUDA_VISIBLE_DEVICES\"; mkdir $DIR/running.$SHARD; sleep 0.3; "
                                     "ls -d $DIR/running.* | wc -l; rmdir $DIR/running.$SHARD"));
  ShardScheduler scheduler(&executor, 1, Verified);
  for (int run = 1; run <= 4; ++run) ASSERT_TRUE(scheduler.Add(MakeShard("a", run)).ok());
  EXPECT_EQ(scheduler.Run(nullptr, nullptr), ShardScheduler::End::kDone);
  std::map<std::string, int> devices;
  for (const auto& [id, entry] : scheduler.entries()) {
    ASSERT_EQ(entry.attempts.size(), 1u);
    const ShardAttempt& attempt = entry.attempts[0];
    EXPECT_EQ(attempt.end, AttemptEnd::kScored) << attempt.why;
    EXPECT_EQ(attempt.executor, "local");
    EXPECT_FALSE(attempt.host.empty());
    EXPECT_GT(attempt.seconds, 0.25);
    EXPECT_EQ(attempt.started.size(), 24u) << attempt.started;  // UTC to the millisecond
    EXPECT_EQ(attempt.submitted, attempt.started);
    // The scheduler's mark of when it saw the end: the overhead scripts/bench-shards reports.
    EXPECT_EQ(attempt.collected.size(), 24u) << attempt.collected;
    EXPECT_GE(attempt.collected, attempt.ended);
    const std::string out = *ReadFile(dir / (id + ".1.out"));
    const std::string seen = out.substr(0, out.find('\n'));
    EXPECT_EQ(seen, attempt.device);
    ++devices[seen];
    const int at_once = std::stoi(out.substr(out.find('\n') + 1));
    EXPECT_LE(at_once, 2) << out;
  }
  EXPECT_EQ(devices, (std::map<std::string, int>{{"0", 2}, {"3", 2}}));
}

// Exit 0 or 1 is the scorer's outcome: scored, never retried. Any other exit, or a signal, is a
// fault: retried.
TEST(LocalExecutorTest, AnOutcomeIsScoredAndAScorerThatDiedIsAFault) {
  TempDir dir;
  LocalExecutor executor(
      {"cpu"}, Script(dir, "test -z \"$CUDA_VISIBLE_DEVICES\" || exit 9; case $SHARD$ATTEMPT in "
                           "a-11) exit 1;; a-21) exit 3;; a-31) kill -9 $$;; esac; exit 0"));
  ShardScheduler scheduler(&executor, 3, Verified);
  for (int run = 1; run <= 3; ++run) ASSERT_TRUE(scheduler.Add(MakeShard("a", run)).ok());
  EXPECT_EQ(scheduler.Run(nullptr, nullptr), ShardScheduler::End::kDone);
  const auto& entries = scheduler.entries();
  ASSERT_EQ(entries.at("a-1").attempts.size(), 1u);  // a disqualified outcome: exit 1
  ASSERT_EQ(entries.at("a-2").attempts.size(), 2u);
  EXPECT_EQ(entries.at("a-2").attempts[0].why, "the scorer exited 3 (the harness failed)");
  ASSERT_EQ(entries.at("a-3").attempts.size(), 2u);
  EXPECT_EQ(entries.at("a-3").attempts[0].end, AttemptEnd::kFault);
  EXPECT_EQ(entries.at("a-3").attempts[0].why, "the scorer was killed by signal 9 (Killed)");
}

// Interrupted: each shard's process gets SIGTERM and finishes as interrupted (exit 130); the
// attempts are cancelled, and nothing else starts.
TEST(LocalExecutorTest, AnInterruptSendsSigtermToEveryShardAndStartsNoOther) {
  TempDir dir;
  LocalExecutor executor({"0", "1"},
                         Script(dir, "trap 'echo stopped; kill $!; exit 130' TERM; echo started; "
                                     "sleep 20 & wait"));
  ShardScheduler scheduler(&executor, 3, Verified);
  for (int run = 1; run <= 3; ++run) ASSERT_TRUE(scheduler.Add(MakeShard("a", run)).ok());
  const auto began = std::chrono::steady_clock::now();
  auto interrupted = [&] {
    return std::chrono::steady_clock::now() - began > std::chrono::milliseconds(500);
  };
  EXPECT_EQ(scheduler.Run(interrupted, nullptr), ShardScheduler::End::kInterrupted);
  EXPECT_LT(std::chrono::steady_clock::now() - began, std::chrono::seconds(10));
  int cancelled = 0;
  for (const auto& [id, entry] : scheduler.entries()) {
    for (const ShardAttempt& a : entry.attempts) {
      EXPECT_EQ(a.end, AttemptEnd::kCancelled) << a.why;
      ++cancelled;
      EXPECT_EQ(*ReadFile(dir / (id + ".1.out")), "started\nstopped\n");
    }
  }
  EXPECT_EQ(cancelled, 2);
  EXPECT_EQ(scheduler.Counts().queued, 3);
}

TEST(LocalExecutorTest, ProcessEndsReadAsAttemptEnds) {
  std::string why;
  EXPECT_EQ(ShardProcessEnd(0, false, &why), AttemptEnd::kScored);
  EXPECT_EQ(ShardProcessEnd(1 << 8, false, &why), AttemptEnd::kScored);
  EXPECT_EQ(ShardProcessEnd(2 << 8, false, &why), AttemptEnd::kFault);
  EXPECT_EQ(why, "the scorer exited 2 (bad input)");
  EXPECT_EQ(ShardProcessEnd(130 << 8, false, &why), AttemptEnd::kFault);
  EXPECT_EQ(ShardProcessEnd(130 << 8, true, &why), AttemptEnd::kCancelled);
}

}  // namespace
}  // namespace ratchet
