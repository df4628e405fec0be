// Black-box tests of the ratchet binary's dispatch: help, version, unknown commands and options.
#include <gtest/gtest.h>

#include "cli/commands.h"
#include "support/run_binary.h"

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

}  // namespace
}  // namespace ratchet
