// The sandbox lock: a second holder is refused (or waits) until the first lets go.
#include "sandbox/lock.h"

#include <gtest/gtest.h>
#include <unistd.h>

#include <utility>

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

}  // namespace
}  // namespace ratchet
