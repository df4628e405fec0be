// The shard scheduler with a fake executor: which shard starts when, what an attempt's end means
// (a fault is retried up to the limit, a scored shard never again), interruption, resumption and
// the progress it reports.
#include "shard/shards.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <deque>
#include <functional>
#include <set>
#include <sstream>

namespace ratchet {
namespace {

// Runs nothing: each started attempt ends, in the order started, as `ends` says (scored when it
// says nothing), one per Wait.
class FakeExecutor : public ShardExecutor {
 public:
  explicit FakeExecutor(size_t capacity) : capacity_(capacity) {}

  size_t Capacity() const override { return capacity_; }
  Status Start(const Shard& shard, int attempt) override {
    starts.push_back(shard.record + "/" + std::to_string(shard.run) + "#" + std::to_string(attempt));
    if (refuse.count(starts.back())) return Status::Unavailable("no node");
    running_.push_back({shard, attempt});
    most_at_once = std::max(most_at_once, running_.size());
    return Status::Ok();
  }
  std::optional<std::pair<std::string, ShardAttempt>> Wait(std::chrono::milliseconds) override {
    ++waits;
    if (running_.empty()) return std::nullopt;
    // SIGTERM is not enough (for 50 waits: a scheduler that never kills fails, not hangs).
    if (ignores_cancel && cancelled_ && kills == 0 && ++ignored_waits_ < 50) return std::nullopt;
    auto [shard, n] = running_.front();
    running_.pop_front();
    ShardAttempt attempt;
    attempt.attempt = n;
    attempt.executor = "fake";
    attempt.seconds = 10;
    attempt.folder = "shards/" + shard.id;
    const std::string key = shard.record + "/" + std::to_string(shard.run) + "#" + std::to_string(n);
    if (cancelled_) {
      attempt.end = AttemptEnd::kCancelled;
      attempt.why = "the run was interrupted";
    } else if (faults.count(key)) {
      attempt.end = AttemptEnd::kFault;
      attempt.why = "the scorer was killed by signal 9";
    }
    return std::make_pair(shard.id, attempt);
  }
  void CancelAll() override {
    ++cancels;
    cancelled_ = true;
  }
  void KillAll() override {
    ++kills;
    if (on_kill) on_kill();
  }

  std::vector<std::string> starts;  // "record/run#attempt"
  std::set<std::string> faults;     // attempts that end as faults
  std::set<std::string> refuse;     // attempts whose Start fails
  size_t most_at_once = 0;
  int waits = 0;
  int cancels = 0;
  int kills = 0;
  bool ignores_cancel = false;  // an attempt ends on KillAll, not on CancelAll
  std::function<void()> on_kill;

 private:
  size_t capacity_;
  std::deque<std::pair<Shard, int>> running_;
  bool cancelled_ = false;
  int ignored_waits_ = 0;
};

Shard MakeShard(const std::string& record, int run) {
  return Shard{record + "-" + std::to_string(run), record, "sha", run};
}

class Recorder : public ShardProgress {
 public:
  void Counts(const ShardCounts& c) override { counts.push_back(c); }
  void Line(const std::string& line) override { lines.push_back(line); }
  void Finish() override { ++finished; }
  std::vector<ShardCounts> counts;
  std::vector<std::string> lines;
  int finished = 0;
};

Status Verified(const Shard&, const ShardAttempt&) { return Status::Ok(); }

TEST(ShardSchedulerTest, EveryShardIsScoredOnceAndNoMoreAtOnceThanTheExecutorTakes) {
  FakeExecutor executor(2);
  ShardScheduler scheduler(&executor, 3, Verified);
  for (int run = 1; run <= 3; ++run) ASSERT_TRUE(scheduler.Add(MakeShard("a", run)).ok());
  for (int run = 1; run <= 4; ++run) ASSERT_TRUE(scheduler.Add(MakeShard("b", run)).ok());
  EXPECT_FALSE(scheduler.Add(MakeShard("a", 1)).ok());  // the same id twice
  Recorder progress;
  EXPECT_EQ(scheduler.Run([] { return false; }, &progress), ShardScheduler::End::kDone);
  EXPECT_EQ(executor.starts, (std::vector<std::string>{"a/1#1", "a/2#1", "a/3#1", "b/1#1",
                                                       "b/2#1", "b/3#1", "b/4#1"}));
  EXPECT_EQ(executor.most_at_once, 2u);
  for (const auto& [id, entry] : scheduler.entries()) {
    EXPECT_EQ(entry.state, ShardScheduler::State::kDone) << id;
    ASSERT_EQ(entry.attempts.size(), 1u) << id;
    EXPECT_EQ(entry.attempts[0].end, AttemptEnd::kScored);
  }
  ASSERT_FALSE(progress.counts.empty());
  EXPECT_EQ(progress.counts.front().queued, 7);
  EXPECT_EQ(progress.counts.back().done, 7);
  EXPECT_EQ(progress.finished, 1);
  EXPECT_TRUE(progress.lines.empty());
}

TEST(ShardSchedulerTest, AFaultIsRetriedAndEveryAttemptIsKept) {
  FakeExecutor executor(1);
  executor.faults = {"a/2#1", "a/2#2"};
  ShardScheduler scheduler(&executor, 3, Verified);
  for (int run = 1; run <= 3; ++run) ASSERT_TRUE(scheduler.Add(MakeShard("a", run)).ok());
  Recorder progress;
  EXPECT_EQ(scheduler.Run(nullptr, &progress), ShardScheduler::End::kDone);
  const ShardScheduler::Entry& retried = scheduler.entries().at("a-2");
  ASSERT_EQ(retried.attempts.size(), 3u);
  EXPECT_EQ(retried.attempts[0].end, AttemptEnd::kFault);
  EXPECT_EQ(retried.attempts[1].end, AttemptEnd::kFault);
  EXPECT_EQ(retried.attempts[2].end, AttemptEnd::kScored);
  EXPECT_EQ(retried.attempts[2].attempt, 3);
  EXPECT_EQ(std::count(executor.starts.begin(), executor.starts.end(), "a/1#1"), 1);
  ASSERT_EQ(progress.lines.size(), 2u);
  EXPECT_EQ(progress.lines[0],
            "shard a-2 (a, run 2): attempt 1 failed: the scorer was killed by signal 9; trying "
            "again");
}

TEST(ShardSchedulerTest, AShardOutOfAttemptsFailsTheRunAndTheOthersFinish) {
  FakeExecutor executor(2);
  executor.faults = {"a/1#1", "a/1#2"};
  ShardScheduler scheduler(&executor, 2, Verified);
  ASSERT_TRUE(scheduler.Add(MakeShard("a", 1)).ok());
  ASSERT_TRUE(scheduler.Add(MakeShard("a", 2)).ok());
  Recorder progress;
  EXPECT_EQ(scheduler.Run(nullptr, &progress), ShardScheduler::End::kFailed);
  EXPECT_EQ(scheduler.entries().at("a-1").state, ShardScheduler::State::kFailed);
  EXPECT_EQ(scheduler.entries().at("a-1").attempts.size(), 2u);
  EXPECT_EQ(scheduler.entries().at("a-2").state, ShardScheduler::State::kDone);
  EXPECT_EQ(progress.counts.back().failed, 1);
  EXPECT_NE(progress.lines.back().find("no attempt left (2 made)"), std::string::npos)
      << progress.lines.back();
}

// A scored attempt whose folder does not verify is a fault like any other; one that cannot even
// start is too.
TEST(ShardSchedulerTest, AFolderThatDoesNotVerifyAndAStartThatFailsAreFaults) {
  FakeExecutor executor(2);
  executor.refuse = {"b/1#1"};
  int verified = 0;
  ShardScheduler scheduler(&executor, 3, [&](const Shard& shard, const ShardAttempt& attempt) {
    ++verified;
    if (shard.record == "a" && attempt.attempt == 1) return Status::BadInput("MANIFEST.json: 1 file differs");
    return Status::Ok();
  });
  ASSERT_TRUE(scheduler.Add(MakeShard("a", 1)).ok());
  ASSERT_TRUE(scheduler.Add(MakeShard("b", 1)).ok());
  Recorder progress;
  EXPECT_EQ(scheduler.Run(nullptr, &progress), ShardScheduler::End::kDone);
  const auto& a = scheduler.entries().at("a-1").attempts;
  ASSERT_EQ(a.size(), 2u);
  EXPECT_EQ(a[0].end, AttemptEnd::kFault);
  EXPECT_EQ(a[0].why, "its folder fails verification: MANIFEST.json: 1 file differs");
  const auto& b = scheduler.entries().at("b-1").attempts;
  ASSERT_EQ(b.size(), 2u);
  EXPECT_EQ(b[0].why, "it could not be started: no node");
  EXPECT_EQ(b[1].end, AttemptEnd::kScored);
  EXPECT_EQ(verified, 3);  // every scored attempt, and only those
}

// Interrupted: every running attempt is cancelled and waited for, nothing queued starts, and the
// cancelled shards are left to score again.
TEST(ShardSchedulerTest, AnInterruptCancelsWhatRunsAndStartsNothingMore) {
  FakeExecutor executor(2);
  ShardScheduler scheduler(&executor, 3, Verified);
  for (int run = 1; run <= 6; ++run) ASSERT_TRUE(scheduler.Add(MakeShard("a", run)).ok());
  int polls = 0;
  Recorder progress;
  // Three polls see no interrupt (three shards end meanwhile); the fourth does.
  EXPECT_EQ(scheduler.Run([&] { return ++polls > 3; }, &progress),
            ShardScheduler::End::kInterrupted);
  EXPECT_EQ(executor.cancels, 1);
  const ShardCounts counts = scheduler.Counts();
  EXPECT_EQ(counts.running, 0);
  EXPECT_EQ(counts.done + counts.queued, 6);
  EXPECT_GE(counts.done, 1);
  int cancelled = 0;
  for (const auto& [id, entry] : scheduler.entries()) {
    for (const ShardAttempt& attempt : entry.attempts) cancelled += attempt.end == AttemptEnd::kCancelled;
    if (entry.state == ShardScheduler::State::kQueued && !entry.attempts.empty()) {
      EXPECT_EQ(entry.attempts.back().end, AttemptEnd::kCancelled) << id;
    }
  }
  EXPECT_GE(cancelled, 1);  // those running when it came
  EXPECT_EQ(executor.starts.size(), static_cast<size_t>(counts.done + cancelled));
}

// An attempt that does not stop when cancelled is killed: at a second interrupt, not before; or
// once the grace after the first has passed.
TEST(ShardSchedulerTest, AShardThatDoesNotStopIsKilledAtASecondInterruptOrAfterTheGrace) {
  {
    FakeExecutor executor(2);
    executor.ignores_cancel = true;
    ShardScheduler scheduler(&executor, 3, Verified);
    scheduler.set_cancel_grace(std::chrono::hours(1));
    for (int run = 1; run <= 4; ++run) ASSERT_TRUE(scheduler.Add(MakeShard("a", run)).ok());
    int polls = 0, killed_at = 0;
    executor.on_kill = [&] { killed_at = polls; };
    Recorder progress;
    // Polls 1-2 see nothing, 3-9 one interrupt (the attempts keep running), 10 on a second.
    EXPECT_EQ(scheduler.Run([&] { return ++polls <= 2 ? 0 : polls < 10 ? 1 : 2; }, &progress),
              ShardScheduler::End::kInterrupted);
    EXPECT_EQ(executor.cancels, 1);
    EXPECT_EQ(executor.kills, 1);
    EXPECT_EQ(killed_at, 10);
    EXPECT_EQ(scheduler.Counts().running, 0);
    EXPECT_NE(std::find(progress.lines.begin(), progress.lines.end(),
                        "interrupted again: killing the running shards"),
              progress.lines.end());
  }
  {
    FakeExecutor executor(2);
    executor.ignores_cancel = true;
    ShardScheduler scheduler(&executor, 3, Verified);
    scheduler.set_cancel_grace(std::chrono::milliseconds(0));
    for (int run = 1; run <= 4; ++run) ASSERT_TRUE(scheduler.Add(MakeShard("a", run)).ok());
    int polls = 0;
    EXPECT_EQ(scheduler.Run([&] { return ++polls <= 2 ? 0 : 1; }, nullptr),
              ShardScheduler::End::kInterrupted);
    EXPECT_EQ(executor.kills, 1);
    EXPECT_EQ(scheduler.Counts().running, 0);
  }
  {
    // Attempts that stop when cancelled are never killed.
    FakeExecutor executor(2);
    ShardScheduler scheduler(&executor, 3, Verified);
    scheduler.set_cancel_grace(std::chrono::hours(1));
    for (int run = 1; run <= 4; ++run) ASSERT_TRUE(scheduler.Add(MakeShard("a", run)).ok());
    int polls = 0;
    EXPECT_EQ(scheduler.Run([&] { return ++polls <= 2 ? 0 : 1; }, nullptr),
              ShardScheduler::End::kInterrupted);
    EXPECT_EQ(executor.kills, 0);
  }
}

// `ratchet run --resume`: what was scored is kept and never started again.
TEST(ShardSchedulerTest, AResumedRunScoresOnlyTheShardsNotDone) {
  FakeExecutor executor(2);
  ShardScheduler scheduler(&executor, 3, Verified);
  ShardAttempt earlier;
  earlier.executor = "local";
  ASSERT_TRUE(scheduler.AddDone(MakeShard("a", 1), {earlier}).ok());
  ASSERT_TRUE(scheduler.AddDone(MakeShard("a", 2), {earlier}).ok());
  ASSERT_TRUE(scheduler.Add(MakeShard("a", 3)).ok());
  EXPECT_EQ(scheduler.Run(nullptr, nullptr), ShardScheduler::End::kDone);
  EXPECT_EQ(executor.starts, std::vector<std::string>{"a/3#1"});
  EXPECT_EQ(scheduler.Counts().done, 3);
}

TEST(ShardSchedulerTest, ShardsAddedAfterARunAreScoredByTheNext) {
  FakeExecutor executor(1);
  ShardScheduler scheduler(&executor, 3, Verified);
  ASSERT_TRUE(scheduler.Add(MakeShard("a", 1)).ok());
  EXPECT_EQ(scheduler.Run(nullptr, nullptr), ShardScheduler::End::kDone);
  ASSERT_TRUE(scheduler.Add(MakeShard("a", 2)).ok());
  EXPECT_EQ(scheduler.Run(nullptr, nullptr), ShardScheduler::End::kDone);
  EXPECT_EQ(executor.starts, (std::vector<std::string>{"a/1#1", "a/2#1"}));
}

TEST(ShardIdTest, TheSameWorkHasTheSameIdAndEveryPartMovesIt) {
  const Json locked = {{"rules", {{"sha256", "r"}}}};
  const std::string id = *ShardId(locked, "ncm", "abc", 1, "c0");
  EXPECT_EQ(id.size(), 64u);
  EXPECT_EQ(*ShardId(locked, "ncm", "abc", 1, "c0"), id);
  EXPECT_NE(*ShardId({{"rules", {{"sha256", "s"}}}}, "ncm", "abc", 1, "c0"), id);
  EXPECT_NE(*ShardId(locked, "ncm2", "abc", 1, "c0"), id);
  EXPECT_NE(*ShardId(locked, "ncm", "abd", 1, "c0"), id);
  EXPECT_NE(*ShardId(locked, "ncm", "abc", 2, "c0"), id);
  EXPECT_NE(*ShardId(locked, "ncm", "abc", 1, "c1"), id);
  EXPECT_FALSE(ShardId(Json(), "ncm", "abc", 1, "c0").ok());
}

TEST(ShardProgressTest, CountsAndTheEstimateReadAsALine) {
  ShardCounts counts{3, 2, 0, 5, std::nullopt};
  EXPECT_EQ(ShardCountsText(counts), "3 done, 2 running, 0 failed, 5 queued");
  counts.seconds_left = 40;
  EXPECT_EQ(ShardCountsText(counts), "3 done, 2 running, 0 failed, 5 queued, about 40 s left");
  counts.seconds_left = 600;
  EXPECT_EQ(ShardCountsText(counts), "3 done, 2 running, 0 failed, 5 queued, about 10 min left");
  counts = {10, 0, 0, 0, 5.0};
  EXPECT_EQ(ShardCountsText(counts), "10 done, 0 running, 0 failed, 0 queued");
}

// The estimate: the mean time of the attempts scored, for each wave of shards left.
TEST(ShardProgressTest, TheEstimateIsTheMeanTimeOfEachWaveLeft) {
  FakeExecutor executor(2);
  ShardScheduler scheduler(&executor, 3, Verified);
  for (int run = 1; run <= 5; ++run) ASSERT_TRUE(scheduler.Add(MakeShard("a", run)).ok());
  Recorder progress;
  ASSERT_EQ(scheduler.Run(nullptr, &progress), ShardScheduler::End::kDone);
  // After the first end: 1 done, 2 running (one started in its place), 2 queued: two waves of
  // 10 s.
  bool seen = false;
  for (const ShardCounts& c : progress.counts) {
    if (c.done == 1 && c.running == 2 && c.queued == 2) {
      ASSERT_TRUE(c.seconds_left.has_value());
      EXPECT_DOUBLE_EQ(*c.seconds_left, 20.0);
      seen = true;
    }
  }
  EXPECT_TRUE(seen);
}

TEST(ShardProgressTest, PlainLinesWhenCountsChangeAndOneLineOnATerminal) {
  std::ostringstream plain_out;
  PlainProgress plain(plain_out);
  plain.Counts({0, 1, 0, 1, std::nullopt});
  plain.Counts({0, 1, 0, 1, std::nullopt});  // the same counts: no line
  plain.Counts({1, 1, 0, 0, 30.0});
  plain.Line("shard x: attempt 1 failed");
  EXPECT_EQ(plain_out.str(),
            "shards: 0 done, 1 running, 0 failed, 1 queued\n"
            "shards: 1 done, 1 running, 0 failed, 0 queued, about 30 s left\n"
            "shard x: attempt 1 failed\n");

  std::ostringstream terminal_out;
  TerminalProgress terminal(terminal_out);
  terminal.Counts({0, 1, 0, 1, std::nullopt});
  terminal.Line("shard x: attempt 1 failed");
  terminal.Counts({1, 0, 0, 0, std::nullopt});
  terminal.Finish();
  EXPECT_EQ(terminal_out.str(),
            "\rshards: 0 done, 1 running, 0 failed, 1 queued\033[K"
            "\r\033[Kshard x: attempt 1 failed\nshards: 0 done, 1 running, 0 failed, 1 queued"
            "\rshards: 1 done, 0 running, 0 failed, 0 queued\033[K\n");
}

}  // namespace
}  // namespace ratchet
