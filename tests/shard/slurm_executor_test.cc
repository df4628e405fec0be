// The Slurm executor under the shard scheduler, against a real single-node Slurm cluster that the
// suite starts (scripts/slurm-test-cluster, from Debian's slurmctld, slurmd and munge) and stops,
// with shell scripts standing in for the scorer: shards submitted as job arrays run at once, an
// outcome is scored, a scorer that failed, a task cancelled by someone else and a slurmd killed
// and restarted end in a complete run, and an interrupt cancels the jobs.
#include "shard/slurm_executor.h"

#include <gtest/gtest.h>
#include <sys/wait.h>
#include <unistd.h>

#include <atomic>
#include <chrono>
#include <cstdlib>
#include <thread>

#include "core/file.h"
#include "core/subprocess.h"
#include "support/checkout.h"
#include "support/slurm_cluster.h"
#include "support/temp_dir.h"

namespace ratchet {
namespace {

Shard MakeShard(const std::string& record, int run) {
  return Shard{record + "-" + std::to_string(run), record, "sha", run};
}

Status Verified(const Shard&, const ShardAttempt&) { return Status::Ok(); }

class SlurmExecutorTest : public SlurmClusterTest {
 protected:
  // Each attempt runs `script` with bash; it sees SHARD, ATTEMPT and DIR, and its output goes to
  // <DIR>/<shard>.<attempt>.out.
  SlurmExecutor Executor(const std::string& script, size_t capacity = 8) {
    SlurmOptions options;
    options.folder = dir_.path();
    options.capacity = capacity;
    options.poll = std::chrono::milliseconds(250);
    const std::string root = dir_.path();
    return SlurmExecutor(options, [root, script](const Shard& shard, int attempt,
                                                 const std::string&) {
      ShardCommand command;
      command.argv = {"/bin/bash", "-c", script};
      command.stdout_path = root + "/" + shard.id + "." + std::to_string(attempt) + ".out";
      command.env = {{"SHARD", shard.id}, {"ATTEMPT", std::to_string(attempt)}, {"DIR", root}};
      command.folder = root + "/" + shard.id;
      return Result<ShardCommand>(command);
    });
  }

  TempDir dir_;
};

// Four shards in one job array, two at once on the two cores; a scorer's exit 1 (disqualified) is
// an outcome, scored once; each attempt keeps its task's id and node.
TEST_F(SlurmExecutorTest, ShardsRunAsOneArrayAndAnOutcomeIsScoredOnce) {
  SlurmExecutor executor = Executor(
      "touch $DIR/running.$SHARD; sleep 2; ls $DIR | grep -c '^running\\.'; rm $DIR/running.$SHARD; "
      "echo $SLURM_ARRAY_JOB_ID $SLURM_ARRAY_TASK_ID; [ $SHARD = a-2 ] && exit 1; exit 0");
  ShardScheduler scheduler(&executor, 3, Verified);
  for (int run = 1; run <= 4; ++run) ASSERT_TRUE(scheduler.Add(MakeShard("a", run)).ok());
  EXPECT_EQ(scheduler.Run(nullptr, nullptr), ShardScheduler::End::kDone);
  std::set<std::string> arrays;
  int most_at_once = 0;
  for (const auto& [id, entry] : scheduler.entries()) {
    ASSERT_EQ(entry.attempts.size(), 1u) << id;
    const ShardAttempt& attempt = entry.attempts[0];
    EXPECT_EQ(attempt.end, AttemptEnd::kScored) << id << ": " << attempt.why;
    EXPECT_EQ(attempt.executor, "slurm");
    EXPECT_FALSE(attempt.host.empty());
    const std::string array = attempt.job.substr(0, attempt.job.find('_'));
    arrays.insert(array);
    const std::string out = *ReadFile(dir_ / (id + ".1.out"));
    most_at_once = std::max(most_at_once, std::stoi(out));
    EXPECT_NE(out.find(array + " " + attempt.job.substr(attempt.job.find('_') + 1)),
              std::string::npos)
        << out;
  }
  EXPECT_EQ(arrays.size(), 1u);
  EXPECT_EQ(most_at_once, 2);
}

// A scorer that failed (exit 3) and a task cancelled by someone else (scancel) are faults: each
// shard is submitted again, and the run completes.
TEST_F(SlurmExecutorTest, AFailedScorerAndACancelledTaskAreRetried) {
  SlurmExecutor executor = Executor(
      "case $SHARD$ATTEMPT in a-11) exit 3;; a-21) scancel ${SLURM_ARRAY_JOB_ID}_${SLURM_ARRAY_TASK_ID}; "
      "sleep 30;; esac; exit 0");
  ShardScheduler scheduler(&executor, 3, Verified);
  for (int run = 1; run <= 3; ++run) ASSERT_TRUE(scheduler.Add(MakeShard("a", run)).ok());
  EXPECT_EQ(scheduler.Run(nullptr, nullptr), ShardScheduler::End::kDone);
  const auto& entries = scheduler.entries();
  ASSERT_EQ(entries.at("a-1").attempts.size(), 2u);
  EXPECT_EQ(entries.at("a-1").attempts[0].why, "the scorer exited 3 (the harness failed)");
  ASSERT_EQ(entries.at("a-2").attempts.size(), 2u);
  EXPECT_EQ(entries.at("a-2").attempts[0].why, "Slurm ended the job CANCELLED");
  EXPECT_NE(entries.at("a-2").attempts[0].job, entries.at("a-2").attempts[1].job);
  EXPECT_EQ(entries.at("a-3").attempts.size(), 1u);
}

// slurmd killed while shards run and started again: the run still completes, every shard scored
// (a task the restart took with it is submitted again).
TEST_F(SlurmExecutorTest, AKilledSlurmdRestartedLeavesACompleteRun) {
  SlurmExecutor executor = Executor("touch $DIR/started.$SHARD; sleep 3; exit 0");
  ShardScheduler scheduler(&executor, 3, Verified);
  for (int run = 1; run <= 2; ++run) ASSERT_TRUE(scheduler.Add(MakeShard("a", run)).ok());
  std::atomic<bool> restarted{false};
  std::thread restart([&] {
    for (int i = 0; i < 300 && !PathExists(dir_ / "started.a-1"); ++i)
      std::this_thread::sleep_for(std::chrono::milliseconds(100));
    std::string error;
    restarted = RestartSlurmd(&error);
  });
  EXPECT_EQ(scheduler.Run(nullptr, nullptr), ShardScheduler::End::kDone);
  restart.join();
  EXPECT_TRUE(restarted);
  EXPECT_EQ(scheduler.Counts().done, 2);
}

// Interrupted: the executor cancels its job arrays; every attempt ends cancelled, and Slurm runs
// none of them after.
TEST_F(SlurmExecutorTest, AnInterruptCancelsTheJobs) {
  SlurmExecutor executor = Executor("touch $DIR/started.$SHARD; sleep 60; exit 0");
  ShardScheduler scheduler(&executor, 3, Verified);
  for (int run = 1; run <= 3; ++run) ASSERT_TRUE(scheduler.Add(MakeShard("a", run)).ok());
  auto interrupted = [&] { return PathExists(dir_ / "started.a-1"); };
  const auto began = std::chrono::steady_clock::now();
  EXPECT_EQ(scheduler.Run(interrupted, nullptr), ShardScheduler::End::kInterrupted);
  EXPECT_LT(std::chrono::steady_clock::now() - began, std::chrono::seconds(40));
  std::string job;
  for (const auto& [id, entry] : scheduler.entries()) {
    ASSERT_EQ(entry.attempts.size(), 1u) << id;
    EXPECT_EQ(entry.attempts[0].end, AttemptEnd::kCancelled) << id << ": " << entry.attempts[0].why;
    job = entry.attempts[0].job;
  }
  Result<ProcessResult> listed = RunProcess(
      {"squeue", "--array", "--noheader", "--states=PENDING,RUNNING", "--jobs=" +
                                                                            job.substr(0, job.find('_'))},
      30);
  ASSERT_TRUE(listed.ok());
  EXPECT_EQ(listed->out, "") << "still queued or running after the interrupt";
}

TEST(SlurmTaskEndTest, StatesReadAsAttemptEnds) {
  std::string why;
  EXPECT_EQ(SlurmTaskEnd("RUNNING", 0, false, &why), std::nullopt);
  EXPECT_EQ(SlurmTaskEnd("PENDING", 0, false, &why), std::nullopt);
  EXPECT_EQ(SlurmTaskEnd("COMPLETED", 0, false, &why), AttemptEnd::kScored);
  EXPECT_EQ(SlurmTaskEnd("FAILED", 1 << 8, false, &why), AttemptEnd::kScored);
  EXPECT_EQ(SlurmTaskEnd("FAILED", 3 << 8, false, &why), AttemptEnd::kFault);
  EXPECT_EQ(SlurmTaskEnd("NODE_FAIL", 0, false, &why), AttemptEnd::kFault);
  EXPECT_EQ(why, "Slurm ended the job NODE_FAIL");
  EXPECT_EQ(SlurmTaskEnd("CANCELLED", 15, false, &why), AttemptEnd::kFault);
  EXPECT_EQ(SlurmTaskEnd("CANCELLED", 15, true, &why), AttemptEnd::kCancelled);
  EXPECT_EQ(SlurmTaskEnd("TIMEOUT", 0, false, &why), AttemptEnd::kFault);
}

}  // namespace
}  // namespace ratchet
