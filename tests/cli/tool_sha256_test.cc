// The tool's source hash compiled into ratchet (observed.tool.source_sha256) equals the documented
// shell command over the checkout, and the two parts together are every file under runner/.
#include "cli/tool_sha256.h"

#include <gtest/gtest.h>
#include <stdio.h>

#include <cstdlib>
#include <string>

#include "contract/source_sha256.h"
#include "core/file.h"
#include "support/checkout.h"

namespace ratchet {
namespace {

std::string Output(const std::string& command) {
  FILE* pipe = popen(command.c_str(), "r");
  if (pipe == nullptr) return "";
  char buffer[256] = {};
  std::string output;
  while (fgets(buffer, sizeof buffer, pipe) != nullptr) output += buffer;
  pclose(pipe);
  return output;
}

TEST(ToolSourceHash, MatchesTheShellCommandInTheDocs) {
  if (std::system("command -v sha256sum >/dev/null 2>&1") != 0) GTEST_SKIP() << "no sha256sum";
  // The command docs/contract.md gives for the tool's part, word for word.
  const std::string output = Output(
      "cd '" + SourceDir() +
      "' && find runner/audit runner/baseline runner/cli runner/compare runner/shard "
      "-name '.*' -prune -o -name __pycache__ -prune -o -type f -print "
      "| LC_ALL=C sort | xargs -d '\\n' sha256sum | sha256sum");
  EXPECT_EQ(output.substr(0, 64), ToolSourceSha256())
      << "the checkout differs from the sources this test was built from; rebuild";
}

TEST(ToolSourceHash, TheToolAndTheScorerTogetherAreEveryFileUnderRunner) {
  const std::string all = Output("cd '" + SourceDir() +
                                 "' && find runner -name '.*' -prune -o -name __pycache__ "
                                 "-prune -o -type f -print | wc -l");
  ASSERT_FALSE(all.empty());
  // The scorer's part has the top-level CMakeLists.txt besides its files under runner/.
  EXPECT_EQ(std::stoi(all), ToolSourceFileCount() + ScorerSourceFileCount() - 1);
  EXPECT_GT(ToolSourceFileCount(), 20);
}

// What the lane hashes, the scorer's binary, holds nothing of the tool: neither the tool's source
// hash nor the text of a tool's command. So a new tool leaves the lane as it was.
TEST(ToolSourceHash, TheScorersBinaryHoldsNothingOfTheTool) {
  const char* binary = std::getenv("RATCHET_BINARY");
  if (binary == nullptr) GTEST_SKIP() << "RATCHET_BINARY is not set";
  const std::string scorer = std::string(binary).substr(0, std::string(binary).rfind('/') + 1) +
                             "ratchet-scorer";
  Result<std::string> bytes = ReadFile(scorer);
  ASSERT_TRUE(bytes.ok()) << bytes.status().ToString();
  EXPECT_EQ(bytes->find(ToolSourceSha256()), std::string::npos);
  // Words of compare's, promote's and the run command's output.
  for (const char* text : {"verdict: differs", " (reviewer ", "promoted ", "difference(s) from "}) {
    EXPECT_EQ(bytes->find(text), std::string::npos) << text;
  }
  // ...while the tool's binary holds its own hash.
  Result<std::string> tool = ReadFile(binary);
  ASSERT_TRUE(tool.ok());
  EXPECT_NE(tool->find(ToolSourceSha256()), std::string::npos);
}

}  // namespace
}  // namespace ratchet
