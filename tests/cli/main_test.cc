// Black-box tests of the ratchet binary's dispatch: help, version, unknown commands and options.
#include <gtest/gtest.h>
#include <signal.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstdio>
#include <filesystem>
#include <string>
#include <vector>

#include "cli/commands.h"
#include "support/checkout.h"
#include "support/run_binary.h"
#include "support/temp_dir.h"

namespace ratchet {
namespace {

bool Contains(const std::string& text, const std::string& part) {
  return text.find(part) != std::string::npos;
}

TEST(MainTest, HelpListsEveryCommandAndExitsZero) {
  BinaryRun run = RunRatchet({"--help"});
  EXPECT_EQ(run.exit_code, 0);
  for (const Command& command : Commands()) {
    EXPECT_TRUE(Contains(run.out, command.name)) << command.name;
  }
  EXPECT_TRUE(Contains(run.out, "exit codes"));
}

TEST(MainTest, NoCommandIsAUsageError) {
  BinaryRun run = RunRatchet({});
  EXPECT_EQ(run.exit_code, 2);
  EXPECT_TRUE(Contains(run.err, "usage: ratchet COMMAND"));
}

TEST(MainTest, UnknownCommandIsAUsageError) {
  BinaryRun run = RunRatchet({"frobnicate"});
  EXPECT_EQ(run.exit_code, 2);
  EXPECT_TRUE(Contains(run.err, "unknown command 'frobnicate'"));
}

TEST(MainTest, VersionPrintsTheHarnessVersion) {
  BinaryRun run = RunRatchet({"--version"});
  EXPECT_EQ(run.exit_code, 0);
  EXPECT_EQ(run.out.rfind("ratchet ", 0), 0u);
}

TEST(MainTest, EveryCommandHasHelpThatNamesIt) {
  for (const Command& command : Commands()) {
    BinaryRun run = RunRatchet({command.name, "--help"});
    EXPECT_EQ(run.exit_code, 0) << command.name;
    EXPECT_TRUE(Contains(run.out, std::string("ratchet ") + command.name)) << run.out;
  }
}

TEST(MainTest, EveryCommandRefusesAnUnknownOption) {
  for (const Command& command : Commands()) {
    BinaryRun run = RunRatchet({command.name, "--no-such-option"});
    EXPECT_EQ(run.exit_code, 2) << command.name;
    EXPECT_TRUE(Contains(run.err, "--no-such-option")) << command.name << ": " << run.err;
  }
}

// A method file or baseline that is a device or a FIFO, or a method file that is missing, is bad
// input before any evidence: the tool does not open it (a FIFO would block it, a device never
// end).
TEST(MainTest, AnInputThatIsNoRegularFileIsRefusedBeforeAnyEvidence) {
  TempDir dir;
  std::filesystem::create_symlink("/dev/zero", dir / "zero.py");
  BinaryRun run = RunRatchet({"score", dir / "zero.py", "--out", dir / "evidence"});
  EXPECT_EQ(run.exit_code, 2) << run.out << run.err;
  EXPECT_TRUE(Contains(run.err, "is a character device, not a regular file")) << run.err;
  EXPECT_FALSE(std::filesystem::exists(dir / "evidence"));
  // So is one that is missing (a dangling symlink too): nothing to score, no evidence begun.
  std::filesystem::create_symlink(dir / "absent.py", dir / "dangling.py");
  for (const char* name : {"absent.py", "dangling.py"}) {
    run = RunRatchet({"score", dir / name, "--out", dir / "evidence"});
    EXPECT_EQ(run.exit_code, 2) << run.out << run.err;
    EXPECT_TRUE(Contains(run.err, "no method file at " + (dir / name))) << run.err;
    EXPECT_FALSE(std::filesystem::exists(dir / "evidence")) << name;
  }
  std::filesystem::create_symlink("/dev/zero", dir / "records.json");
  run = RunRatchet({"run", "--baseline", dir / "records.json", "--out", dir / "evidence"});
  EXPECT_EQ(run.exit_code, 2) << run.out << run.err;
  EXPECT_TRUE(
      Contains(run.err, "the baseline " + (dir / "records.json") + " is a character device"))
      << run.err;
  EXPECT_FALSE(std::filesystem::exists(dir / "evidence"));
}

// --rules FILE and --data DIR are checked before any command reads them (RealMain), and a
// directory a user names is walked before any file in it is opened: a FIFO in any of them is
// refused at once (exit 2, naming it), where it had blocked the command forever.
// `ratchet args...`, killed if it has not ended within 60 s (exit 137): a command blocked on a
// FIFO fails the test instead of hanging it.
BinaryRun RunWithin60s(const std::vector<std::string>& args) {
  StartedRatchet started = StartRatchet(args, {});
  for (int tenth = 0; tenth < 600 && started.pid > 0; ++tenth) {
    int status = 0;
    if (waitpid(started.pid, &status, WNOHANG) == started.pid) {
      BinaryRun run;
      started.pid = -1;
      run = FinishRatchet(started);
      run.exit_code = WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
      return run;
    }
    usleep(100000);
  }
  if (started.pid > 0) kill(started.pid, SIGKILL);
  return FinishRatchet(started);
}

TEST(MainTest, AFifoAmongTheInputsIsRefusedBeforeAnyReaderBlocksOnIt) {
  TempDir dir;
  const std::string fifo = dir / "rules.json";
  ASSERT_EQ(mkfifo(fifo.c_str(), 0600), 0);
  std::filesystem::create_directories(dir / "data/mnist");
  ASSERT_EQ(mkfifo((dir / "data/mnist/train-images-idx3-ubyte").c_str(), 0600), 0);
  std::filesystem::create_directories(dir / "evidence");
  ASSERT_EQ(mkfifo((dir / "evidence/run.json").c_str(), 0600), 0);
  const std::string method = SourceDir() + "/baselines/submissions/ncm.py";
  const std::string data_fifo = "--data holds " + (dir / "data/mnist/train-images-idx3-ubyte") +
                                ", a FIFO (a named pipe)";
  const std::string rules_fifo = "--rules " + fifo + " is a FIFO (a named pipe)";
  const std::string tree_fifo = "holds " + (dir / "evidence/run.json") + ", a FIFO (a named pipe)";
  struct Case {
    std::vector<std::string> args;
    std::string said;
  };
  for (const Case& c : std::vector<Case>{
           {{"contract", "--rules", fifo}, rules_fifo},
           {{"contract", "--rules=" + fifo}, rules_fifo},
           {{"score", method, "--rules", fifo}, rules_fifo},
           {{"audit", dir / "evidence", "--rules", fifo}, rules_fifo},
           {{"datasets", "--data", dir / "data"}, data_fifo},
           {{"draw", "--dataset", "mnist", "--seed", std::string(64, '0'), "--index", "0", "--out",
             dir / "draw", "--data", dir / "data"},
            data_fifo},
           {{"audit", dir / "evidence"}, tree_fifo},
           {{"compare", dir / "evidence", dir / "evidence"}, tree_fifo},
           {{"report", dir / "evidence", "--markdown"}, tree_fifo},
           {{"promote", "--baseline", dir / "records.json", "--evidence", dir / "evidence",
             "--all-changed", "--reason", "r"},
            tree_fifo},
           {{"run", "--resume", dir / "evidence"}, tree_fifo},
       }) {
    BinaryRun run = RunWithin60s(c.args);
    EXPECT_EQ(run.exit_code, 2) << c.args[0] << ": " << run.out << run.err;
    EXPECT_TRUE(Contains(run.err, c.said)) << c.args[0] << ": " << run.err;
  }
  EXPECT_FALSE(std::filesystem::exists(dir / "draw"));
}

// The tool reads what the scorer wrote; it never scores, so it links none of the sandbox (whose
// filter needs libseccomp): ratchet-scorer, beside it, does. Read from the dynamic section of
// each binary, as `ldd` lists it.
std::string SharedLibrariesOf(const std::string& binary) {
  std::string text;
  FILE* pipe = popen(("ldd '" + binary + "' 2>&1").c_str(), "r");
  if (pipe == nullptr) return text;
  char buffer[512];
  while (fgets(buffer, sizeof buffer, pipe) != nullptr) text += buffer;
  pclose(pipe);
  return text;
}

TEST(MainTest, TheToolLinksNoSandboxAndTheScorerDoes) {
  const std::filesystem::path tool = std::filesystem::absolute(RatchetBinary());
  const std::filesystem::path scorer = tool.parent_path() / "ratchet-scorer";
  ASSERT_TRUE(std::filesystem::exists(scorer)) << scorer;
  const std::string scorer_libraries = SharedLibrariesOf(scorer);
  ASSERT_TRUE(Contains(scorer_libraries, "libseccomp")) << scorer_libraries;
  const std::string tool_libraries = SharedLibrariesOf(tool);
  ASSERT_TRUE(Contains(tool_libraries, "libc.so")) << tool_libraries;
  EXPECT_FALSE(Contains(tool_libraries, "libseccomp")) << tool_libraries;
}

}  // namespace
}  // namespace ratchet
