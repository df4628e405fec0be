// Black-box tests of the ratchet binary's dispatch: help, version, unknown commands and options.
#include <gtest/gtest.h>

#include <filesystem>

#include "cli/commands.h"
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

}  // namespace
}  // namespace ratchet
