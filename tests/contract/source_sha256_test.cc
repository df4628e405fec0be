// The compiled-in source hash equals a recomputation over the checkout by the framing
// docs/contract.md documents, done here in C++ and by the documented shell command.
#include "contract/source_sha256.h"

#include <gtest/gtest.h>
#include <stdio.h>

#include <algorithm>
#include <cstdlib>
#include <filesystem>

#include "core/sha256.h"
#include "source_dir.h"

namespace ratchet {
namespace {

namespace fs = std::filesystem;

// Paths relative to the root: the top-level CMakeLists.txt and every file under runner/,
// leaving out any path with a component that starts with "." or is "__pycache__".
std::vector<std::string> HashedFiles(const fs::path& root) {
  std::vector<std::string> files = {"CMakeLists.txt"};
  for (auto it = fs::recursive_directory_iterator(root / "runner");
       it != fs::recursive_directory_iterator(); ++it) {
    const std::string name = it->path().filename().string();
    if (name.front() == '.' || name == "__pycache__") {
      if (it->is_directory()) it.disable_recursion_pending();
      continue;
    }
    if (it->is_directory()) continue;
    files.push_back(fs::relative(it->path(), root).string());
  }
  std::sort(files.begin(), files.end());
  return files;
}

TEST(ContractSourceHash, IsSixtyFourLowercaseHex) {
  const std::string digest = HarnessSourceSha256();
  EXPECT_EQ(digest.size(), 64u);
  EXPECT_EQ(digest.find_first_not_of("0123456789abcdef"), std::string::npos) << digest;
}

TEST(ContractSourceHash, MatchesTheCheckoutByTheDocumentedFraming) {
  const fs::path root = TestSourceDir();
  std::string lines;
  std::vector<std::string> files = HashedFiles(root);
  for (const std::string& path : files) {
    Result<std::string> digest = Sha256File((root / path).string());
    ASSERT_TRUE(digest.ok()) << digest.status().ToString();
    lines += *digest + "  " + path + "\n";
  }
  EXPECT_EQ(static_cast<int>(files.size()), HarnessSourceFileCount());
  EXPECT_EQ(Sha256Hex(lines), HarnessSourceSha256())
      << "the checkout differs from the sources this test was built from; rebuild";
}

TEST(ContractSourceHash, MatchesTheShellCommandInTheDocs) {
  if (std::system("command -v sha256sum >/dev/null 2>&1") != 0) GTEST_SKIP() << "no sha256sum";
  // The command docs/contract.md gives, word for word.
  const std::string command =
      "cd '" + TestSourceDir() +
      "' && find CMakeLists.txt runner -name '.*' -prune -o -name __pycache__ -prune -o "
      "-type f -print | LC_ALL=C sort | xargs -d '\\n' sha256sum | sha256sum";
  FILE* pipe = popen(command.c_str(), "r");
  ASSERT_NE(pipe, nullptr);
  char buffer[128] = {};
  std::string output;
  while (fgets(buffer, sizeof buffer, pipe) != nullptr) output += buffer;
  ASSERT_EQ(pclose(pipe), 0) << output;
  EXPECT_EQ(output.substr(0, 64), HarnessSourceSha256());
}

}  // namespace
}  // namespace ratchet
