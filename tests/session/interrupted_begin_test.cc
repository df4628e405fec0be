// A signal while a scoring session begins, here while it waits for the sandbox lock that this
// test holds: the scorer's handlers are in place from the start of begin, so the wait ends, the
// scorer answers and exits 130, and no evidence folder exists, whole or partial. A signal sent to
// the tool alone reaches its scorer the same way: the tool passes it on.
#include <fcntl.h>
#include <gtest/gtest.h>
#include <signal.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <filesystem>
#include <optional>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

#include "core/canonical_json.h"
#include "sandbox/lock.h"
#include "sandbox/spawn.h"
#include "session/request.h"
#include "session/scorer_binary.h"
#include "support/checkout.h"
#include "support/fast_rules.h"
#include "support/run_binary.h"
#include "support/temp_dir.h"

extern char** environ;

namespace ratchet {
namespace {

// Starts `args` with stdin, stdout and stderr from and to files; -1 when it cannot.
pid_t Start(std::vector<std::string> args, const std::string& in, const std::string& out,
            const std::string& err) {
  std::vector<char*> argv;
  for (std::string& arg : args) argv.push_back(arg.data());
  argv.push_back(nullptr);
  posix_spawn_file_actions_t actions;
  posix_spawn_file_actions_init(&actions);
  posix_spawn_file_actions_addopen(&actions, 0, in.c_str(), O_RDONLY, 0);
  posix_spawn_file_actions_addopen(&actions, 1, out.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
  posix_spawn_file_actions_addopen(&actions, 2, err.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
  pid_t pid = -1;
  if (posix_spawn(&pid, argv[0], &actions, nullptr, argv.data(), environ) != 0) pid = -1;
  posix_spawn_file_actions_destroy(&actions);
  return pid;
}

// Waits up to `seconds` for `ready`, looking every 50 ms.
template <typename Ready>
bool WaitFor(Ready ready, int seconds) {
  const auto end = std::chrono::steady_clock::now() + std::chrono::seconds(seconds);
  while (!ready()) {
    if (std::chrono::steady_clock::now() > end) return false;
    std::this_thread::sleep_for(std::chrono::milliseconds(50));
  }
  return true;
}

// The exit status of `pid` once it has exited within `seconds`; nullopt if it has not (it is
// then killed and reaped, so that no test leaves it behind).
std::optional<int> ExitWithin(pid_t pid, int seconds) {
  int status = 0;
  const bool exited = WaitFor([&] { return waitpid(pid, &status, WNOHANG) == pid; }, seconds);
  if (exited) return status;
  kill(pid, SIGKILL);
  waitpid(pid, &status, 0);
  return std::nullopt;
}

// Nothing of an evidence folder named `name` in `dir`: neither it nor its partial folder.
bool NoEvidence(const TempDir& dir, const std::string& name) {
  for (const auto& entry : std::filesystem::directory_iterator(dir.path())) {
    const std::string file = entry.path().filename();
    if (file == name || file.rfind("." + name + ".partial", 0) == 0) return false;
  }
  return true;
}

// Every sandbox slot's lock, held by this test, when the scorer takes one (a full sandbox:
// root): the scorer then waits for a slot.
std::optional<std::vector<SandboxLock>> HoldTheSandboxLock() {
  if (!DescribeSandbox().full) return std::nullopt;
  std::vector<SandboxLock> held;
  std::ostringstream said;
  for (int slot = 0; slot < kSandboxSlotCount; ++slot) {
    Result<SandboxLock> lock = SandboxLock::AcquireSlot("test", said, nullptr);
    EXPECT_TRUE(lock.ok()) << lock.status().ToString();
    if (!lock.ok()) return std::nullopt;
    held.push_back(std::move(lock).value());
  }
  SetSandboxSlot(0);
  return held;
}

TEST(InterruptedBegin, ASignalWhileTheScorerWaitsForTheLockEndsItWithoutEvidence) {
  std::optional<std::vector<SandboxLock>> lock = HoldTheSandboxLock();
  if (!lock) GTEST_SKIP() << "no full sandbox here: the scorer takes no lock";
  TempDir dir;
  SessionOptions options;
  options.rules_path = FastRules(dir);
  options.out = dir / "e";
  options.energy = false;
  ASSERT_TRUE(
      WriteFileAtomic(dir / "requests", Request("begin", SessionOptionsToJson(options))).ok());
  const pid_t scorer =
      Start({Scorer(), "serve"}, dir / "requests", dir / "answers", dir / "stderr");
  ASSERT_GT(scorer, 0);
  const bool waiting = WaitFor(
      [&] {
        return TextAnswers(TextOf(dir / "answers"), "err").find("waiting for one") !=
               std::string::npos;
      },
      60);
  EXPECT_TRUE(waiting) << TextOf(dir / "answers") << TextOf(dir / "stderr");
  kill(scorer, SIGINT);
  const std::optional<int> status = ExitWithin(scorer, 10);
  ASSERT_TRUE(status) << "the scorer still waited 10 s after SIGINT";
  ASSERT_TRUE(WIFEXITED(*status)) << "the scorer was ended by signal " << WTERMSIG(*status);
  EXPECT_EQ(WEXITSTATUS(*status), 130);
  auto answers = Answers(TextOf(dir / "answers"));
  ASSERT_EQ(answers["error"].size(), 1u) << TextOf(dir / "answers");
  EXPECT_NE(answers["error"][0]["message"].get<std::string>().find("interrupted"),
            std::string::npos)
      << answers["error"][0];
  EXPECT_EQ(answers.count("begun"), 0u);
  EXPECT_TRUE(NoEvidence(dir, "e"));
}

TEST(InterruptedBegin, ASignalToTheToolAloneReachesItsWaitingScorer) {
  std::optional<std::vector<SandboxLock>> lock = HoldTheSandboxLock();
  if (!lock) GTEST_SKIP() << "no full sandbox here: the scorer takes no lock";
  TempDir dir;
  const pid_t tool =
      Start({RatchetBinary(), "score", SourceDir() + "/baselines/submissions/ncm.cpp", "--rules",
             FastRules(dir), "--out", dir / "e", "--no-energy"},
            "/dev/null", dir / "stdout", dir / "stderr");
  ASSERT_GT(tool, 0);
  const bool waiting = WaitFor(
      [&] { return TextOf(dir / "stderr").find("waiting for one") != std::string::npos; }, 60);
  EXPECT_TRUE(waiting) << TextOf(dir / "stderr");
  kill(tool, SIGTERM);
  const std::optional<int> status = ExitWithin(tool, 10);
  ASSERT_TRUE(status) << "the tool still waited 10 s after SIGTERM: its scorer was not told";
  ASSERT_TRUE(WIFEXITED(*status)) << "the tool was ended by signal " << WTERMSIG(*status);
  EXPECT_EQ(WEXITSTATUS(*status), 130) << TextOf(dir / "stderr");
  EXPECT_NE(TextOf(dir / "stderr").find("ratchet score: interrupted"), std::string::npos)
      << TextOf(dir / "stderr");
  EXPECT_TRUE(NoEvidence(dir, "e"));
}

}  // namespace
}  // namespace ratchet
