// The scripts a user runs from a checkout, run where they cannot do their work: they must say
// why and exit 2, not fail halfway with another tool's message.
#include <gtest/gtest.h>
#include <sys/wait.h>

#include <cstdlib>
#include <filesystem>
#include <string>

#include "core/file.h"
#include "support/temp_dir.h"

namespace ratchet {
namespace {

struct ScriptRun {
  int exit_code = -1;
  std::string output;
};

// Runs `command` under /bin/sh with stdout and stderr captured in one file of `dir`.
ScriptRun RunShell(const TempDir& dir, const std::string& command) {
  const std::string log = dir / "output.log";
  int status = std::system((command + " >'" + log + "' 2>&1 </dev/null").c_str());
  ScriptRun run;
  run.exit_code = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
  Result<std::string> output = ReadFile(log);
  run.output = output.ok() ? *output : "";
  return run;
}

TEST(ScriptsTest, CheckReproducibleOutsideAGitCheckoutSaysSo) {
  const char* source = std::getenv("RATCHET_SOURCE_DIR");
  ASSERT_NE(source, nullptr) << "RATCHET_SOURCE_DIR is not set";
  TempDir dir;
  // A copy of the script in a folder that is not a checkout; git must not find one above it.
  std::filesystem::create_directories(dir / "tree/scripts");
  std::filesystem::copy_file(std::string(source) + "/scripts/check-reproducible",
                             dir / "tree/scripts/check-reproducible");
  ScriptRun run =
      RunShell(dir, "env -u GIT_DIR -u GIT_WORK_TREE GIT_CEILING_DIRECTORIES='" + dir.path() +
                        "' bash '" + (dir / "tree/scripts/check-reproducible") + "'");
  EXPECT_EQ(run.exit_code, 2) << run.output;
  EXPECT_NE(run.output.find("check-reproducible: error: "), std::string::npos) << run.output;
  EXPECT_NE(run.output.find("needs a git checkout"), std::string::npos) << run.output;
  EXPECT_EQ(run.output.find("fatal:"), std::string::npos) << run.output;
  EXPECT_EQ(run.output.find("cp:"), std::string::npos) << run.output;
}

}  // namespace
}  // namespace ratchet
