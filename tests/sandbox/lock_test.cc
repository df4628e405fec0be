// The sandbox lock: a second holder is refused (or waits, saying so, until it is interrupted)
// until the first lets go.
#include "sandbox/lock.h"

#include <gtest/gtest.h>
#include <unistd.h>

#include <atomic>
#include <chrono>
#include <future>
#include <optional>
#include <set>
#include <sstream>
#include <utility>

#include "core/file.h"
#include "sandbox/policy.h"
#include "support/temp_dir.h"

namespace ratchet {
namespace {

TEST(SandboxLockTest, SecondHolderIsRefusedUntilTheFirstLetsGo) {
  TempDir dir;
  std::string path = dir / "sandbox.lock";
  {
    Result<SandboxLock> first = SandboxLock::Acquire(/*wait=*/false, path);
    ASSERT_TRUE(first.ok()) << first.status().ToString();
    Result<SandboxLock> second = SandboxLock::Acquire(/*wait=*/false, path);
    ASSERT_FALSE(second.ok());
    EXPECT_EQ(second.status().code(), Status::Code::kUnavailable);
    EXPECT_NE(second.status().message().find("(pid " + std::to_string(getpid()) + ")"),
              std::string::npos)
        << second.status().message();
    SandboxLock moved = std::move(first).value();  // still held after a move
    EXPECT_FALSE(SandboxLock::Acquire(/*wait=*/false, path).ok());
  }
  EXPECT_TRUE(SandboxLock::Acquire(/*wait=*/false, path).ok());
}

TEST(SandboxLockTest, RefusesALinkInsteadOfTheFile) {
  TempDir dir;
  std::string path = dir / "sandbox.lock";
  ASSERT_EQ(symlink((dir / "elsewhere").c_str(), path.c_str()), 0);
  Result<SandboxLock> lock = SandboxLock::Acquire(/*wait=*/false, path);
  ASSERT_FALSE(lock.ok());
  EXPECT_NE(lock.status().message().find("open the sandbox lock " + path), std::string::npos)
      << lock.status().message();
}

// A wait for the lock on its own thread, as `ratchet-scorer` waits for it.
struct Waiter {
  std::ostringstream said;
  std::atomic<bool> interrupted{false};
  std::future<Result<SandboxLock>> lock;

  explicit Waiter(const std::string& path) {
    lock = std::async(std::launch::async, [this, path] {
      return SandboxLock::AcquireWaiting("score", said, &interrupted, path);
    });
  }
  bool Done(std::chrono::milliseconds within) {
    return lock.wait_for(within) == std::future_status::ready;
  }
};

TEST(SandboxLockTest, AWaiterSaysWhoHoldsItOnceAndTakesItWhenFreed) {
  TempDir dir;
  const std::string path = dir / "sandbox.lock";
  std::optional<SandboxLock> first(SandboxLock::Acquire(/*wait=*/false, path).value());
  Waiter waiter(path);
  EXPECT_FALSE(waiter.Done(std::chrono::milliseconds(500))) << "it took a held lock";
  first.reset();
  ASSERT_TRUE(waiter.Done(std::chrono::seconds(5))) << "it still waits for a lock let go";
  Result<SandboxLock> taken = waiter.lock.get();
  ASSERT_TRUE(taken.ok()) << taken.status().ToString();
  EXPECT_EQ(waiter.said.str(),
            "ratchet score: another ratchet process (pid " + std::to_string(getpid()) +
                ") is using the sandbox; its lock is " + path + "; waiting for it\n");
  EXPECT_FALSE(SandboxLock::Acquire(/*wait=*/false, path).ok()) << "the waiter does not hold it";
}

TEST(SandboxLockTest, AnInterruptedWaiterGivesUpAtOnce) {
  TempDir dir;
  const std::string path = dir / "sandbox.lock";
  std::optional<SandboxLock> first(SandboxLock::Acquire(/*wait=*/false, path).value());
  Waiter waiter(path);
  EXPECT_FALSE(waiter.Done(std::chrono::milliseconds(300)));
  waiter.interrupted.store(true);
  const bool gave_up = waiter.Done(std::chrono::seconds(2));
  first.reset();  // so that a waiter that did not give up ends, and the test with it
  ASSERT_TRUE(gave_up) << "it still waited 2 s after the interrupt";
  Result<SandboxLock> taken = waiter.lock.get();
  ASSERT_FALSE(taken.ok());
  EXPECT_EQ(taken.status().code(), Status::Code::kUnavailable);
  EXPECT_NE(taken.status().message().find("interrupted"), std::string::npos)
      << taken.status().message();
}

TEST(SandboxLockTest, AWaiterForAFreeLockTakesItWithoutAWord) {
  TempDir dir;
  std::ostringstream said;
  Result<SandboxLock> taken = SandboxLock::AcquireWaiting("score", said, nullptr, dir / "lock");
  ASSERT_TRUE(taken.ok()) << taken.status().ToString();
  EXPECT_EQ(said.str(), "");
}

// Slots: each holder takes the first free slot's lock and makes it its own; with every slot held
// the next one waits, says so once, and takes the first slot let go. The uids of two slots never
// meet.
TEST(SandboxSlotTest, EachHolderTakesTheFirstFreeSlot) {
  TempDir dir;
  std::ostringstream said;
  Result<SandboxLock> first = SandboxLock::AcquireSlot("run", said, nullptr, 2, dir.path());
  ASSERT_TRUE(first.ok()) << first.status().message();
  EXPECT_EQ(first->slot(), 0);
  EXPECT_EQ(SandboxSlot(), 0);
  std::optional<SandboxLock> second(
      SandboxLock::AcquireSlot("run", said, nullptr, 2, dir.path()).value());
  EXPECT_EQ(second->slot(), 1);
  EXPECT_EQ(SandboxSlot(), 1);
  EXPECT_EQ(WorkerUids(), SlotWorkerUids(1));
  EXPECT_TRUE(PathExists(dir / "ratchet-sandbox.lock"));
  EXPECT_TRUE(PathExists(dir / "ratchet-sandbox-1.lock"));
  EXPECT_EQ(said.str(), "");

  std::atomic<bool> interrupted{false};
  std::future<Result<SandboxLock>> third = std::async(std::launch::async, [&] {
    return SandboxLock::AcquireSlot("run", said, &interrupted, 2, dir.path());
  });
  EXPECT_EQ(third.wait_for(std::chrono::milliseconds(300)), std::future_status::timeout);
  second.reset();  // slot 1 let go
  ASSERT_EQ(third.wait_for(std::chrono::seconds(5)), std::future_status::ready);
  Result<SandboxLock> taken = third.get();
  ASSERT_TRUE(taken.ok()) << taken.status().message();
  EXPECT_EQ(taken->slot(), 1);
  EXPECT_NE(said.str().find("every one of the sandbox's 2 slots is in use"), std::string::npos)
      << said.str();
  SetSandboxSlot(0);
}

TEST(SandboxSlotTest, SlotsHoldEightUidsEachAndNoneTwice) {
  std::set<uid_t> seen;
  for (int slot = 0; slot < kSandboxSlotCount; ++slot) {
    const std::vector<uid_t> uids = SlotWorkerUids(slot);
    ASSERT_EQ(uids.size(), kWorkerUidCount);
    for (uid_t uid : uids) {
      EXPECT_TRUE(seen.insert(uid).second) << uid;
      EXPECT_TRUE(IsSandboxWorkerUid(uid)) << uid;
    }
  }
  EXPECT_EQ(SlotWorkerUids(0).front(), kSandboxUid);
  EXPECT_EQ(SlotWorkerUids(0).back(), 65527u);
  EXPECT_EQ(SlotWorkerUids(7).back(), 65471u);
  EXPECT_FALSE(IsSandboxWorkerUid(65470));
  EXPECT_FALSE(IsSandboxWorkerUid(65535));
  EXPECT_FALSE(IsSandboxWorkerUid(0));
}

}  // namespace
}  // namespace ratchet
