// The compiled-in source hash of the scorer equals a recomputation over the checkout by the
// framing docs/contract.md documents, done here in C++ and by the documented shell command; and on
// a copy of the tree, an edit of a tool's file leaves the scorer's hash as it was while an edit
// of a scorer's file changes it.
#include "contract/source_sha256.h"

#include <gtest/gtest.h>
#include <stdio.h>
#include <unistd.h>

#include <algorithm>
#include <cctype>
#include <cstdlib>
#include <filesystem>
#include <set>
#include <sstream>
#include <string>
#include <vector>

#include "core/file.h"
#include "core/sha256.h"
#include "support/temp_dir.h"
#include "source_dir.h"

namespace ratchet {
namespace {

namespace fs = std::filesystem;

// The tool's folders: every other file under runner/ is the scorer's.
bool OfTheTool(const std::string& path) {
  for (const char* folder :
       {"runner/audit/", "runner/baseline/", "runner/cli/", "runner/compare/", "runner/shard/"}) {
    if (path.rfind(folder, 0) == 0) return true;
  }
  return false;
}

// Paths relative to the root: the top-level CMakeLists.txt and every file under runner/ but the
// tool's, leaving out any path with a component that starts with "." or is "__pycache__".
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
    const std::string path = fs::relative(it->path(), root).string();
    if (!OfTheTool(path)) files.push_back(path);
  }
  std::sort(files.begin(), files.end());
  return files;
}

TEST(ContractSourceHash, IsSixtyFourLowercaseHex) {
  const std::string digest = ScorerSourceSha256();
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
  EXPECT_EQ(static_cast<int>(files.size()), ScorerSourceFileCount());
  EXPECT_EQ(Sha256Hex(lines), ScorerSourceSha256())
      << "the checkout differs from the sources this test was built from; rebuild";
}

TEST(ContractSourceHash, MatchesTheShellCommandInTheDocs) {
  if (std::system("command -v sha256sum >/dev/null 2>&1") != 0) GTEST_SKIP() << "no sha256sum";
  // The command docs/contract.md gives, word for word.
  const std::string command =
      "cd '" + TestSourceDir() +
      "' && find CMakeLists.txt runner -name '.*' -prune -o -name __pycache__ -prune -o "
      "-type f -print | grep -Ev '^runner/(audit|baseline|cli|compare|shard)/' "
      "| LC_ALL=C sort | xargs -d '\\n' sha256sum | sha256sum";
  FILE* pipe = popen(command.c_str(), "r");
  ASSERT_NE(pipe, nullptr);
  char buffer[128] = {};
  std::string output;
  while (fgets(buffer, sizeof buffer, pipe) != nullptr) output += buffer;
  ASSERT_EQ(pclose(pipe), 0) << output;
  EXPECT_EQ(output.substr(0, 64), ScorerSourceSha256());
}

// The hash source_sha256.cmake writes for `part` of the tree at `root`, as the build computes it.
std::string BuildHash(const fs::path& root, const std::string& part) {
  const fs::path header = root / ("hash-" + part + ".h");
  const std::string command = "cmake -DROOT='" + root.string() + "' -DPART=" + part +
                              " -DPREFIX=H -DOUTPUT='" + header.string() + "' -P '" +
                              (root / "runner/contract/source_sha256.cmake").string() + "'";
  if (std::system(command.c_str()) != 0) return "cmake failed: " + command;
  Result<std::string> text = ReadFile(header.string());
  if (!text.ok()) return text.status().ToString();
  const size_t at = text->find("#define H_SHA256 \"");
  return at == std::string::npos ? *text : text->substr(at + 18, 64);
}

void Append(const fs::path& file, const std::string& text) {
  Result<std::string> old = ReadFile(file.string());
  ASSERT_TRUE(old.ok()) << old.status().ToString();
  ASSERT_TRUE(WriteFileAtomic(file.string(), *old + text).ok());
}

// What issue-level promise the split keeps: a change to the tool does not re-open any record.
TEST(ContractSourceHash, AToolEditLeavesTheScorerHashAndAScorerEditChangesIt) {
  if (std::system("command -v cmake >/dev/null 2>&1") != 0) GTEST_SKIP() << "no cmake";
  TempDir dir;
  const fs::path root = dir.path();
  fs::copy(fs::path(TestSourceDir()) / "CMakeLists.txt", root / "CMakeLists.txt");
  fs::copy(fs::path(TestSourceDir()) / "runner", root / "runner", fs::copy_options::recursive);
  fs::remove_all(root / "runner/worker/__pycache__");

  const std::string scorer = BuildHash(root, "scorer");
  const std::string tool = BuildHash(root, "tool");
  EXPECT_EQ(scorer, ScorerSourceSha256()) << "the copy hashes as the checkout";

  // A comment in compare (the tool): the scorer's hash stays, the tool's moves.
  Append(root / "runner/compare/compare.cc", "// a reworded comment\n");
  EXPECT_EQ(BuildHash(root, "scorer"), scorer);
  EXPECT_NE(BuildHash(root, "tool"), tool);
  // The same in audit, baseline and the commands.
  Append(root / "runner/audit/audit.cc", "// another\n");
  Append(root / "runner/baseline/baseline.cc", "// another\n");
  Append(root / "runner/cli/promote_command.cc", "// another\n");
  EXPECT_EQ(BuildHash(root, "scorer"), scorer);

  // A file of the scorer, each of the kinds that decide outcomes: the hash moves every time.
  std::string last = scorer;
  for (const char* file : {"runner/rules/judge.cc", "runner/rules/mnist-a100-1.5.0.json",
                           "runner/sandbox/policy.cc", "runner/worker/worker.py",
                           "runner/scorer/run.cc", "runner/session/serve.cc",
                           "runner/CMakeLists.txt"}) {
    Append(root / file, "\n");  // one byte more: as small as a change can be
    const std::string now = BuildHash(root, "scorer");
    EXPECT_NE(now, last) << file;
    last = now;
  }
  // A folder nobody has named yet is the scorer's: locked by default.
  fs::create_directories(root / "runner/newpart");
  ASSERT_TRUE(WriteFileAtomic((root / "runner/newpart/x.cc").string(), "int x;\n").ok());
  EXPECT_NE(BuildHash(root, "scorer"), last);
}

// The line holds in the code too: no file of the scorer includes a header of the tool's folders,
// whose files the scorer's hash does not cover, and no build file of the scorer links a library
// of the tool's.
TEST(ContractSourceHash, NoFileOfTheScorerIncludesOrLinksOneOfTheTool) {
  const fs::path root = TestSourceDir();
  for (const std::string& path : HashedFiles(root)) {
    Result<std::string> text = ReadFile((root / path).string());
    ASSERT_TRUE(text.ok()) << path;
    for (const char* folder : {"cli", "baseline", "compare", "audit", "shard"}) {
      EXPECT_EQ(text->find(std::string("#include \"") + folder + "/"), std::string::npos)
          << path << " includes a header of runner/" << folder << "/";
      if (fs::path(path).filename() == "CMakeLists.txt") {
        const std::string library = std::string("ratchet_") + folder;
        for (size_t at = text->find(library); at != std::string::npos;
             at = text->find(library, at + 1)) {
          const size_t end = at + library.size();
          const bool whole = end == text->size() || !(std::isalnum(static_cast<unsigned char>(
                                                          (*text)[end])) || (*text)[end] == '_');
          EXPECT_FALSE(whole) << path << " names the tool's library " << library;
        }
      }
    }
  }
}

// The files the compiler read to build a target, from the depfiles the build leaves beside its
// objects (`*.o.d`, make syntax): every path, as written.
std::vector<std::string> DepfilePaths(const fs::path& object_dir, int* depfiles) {
  std::vector<std::string> paths;
  for (const auto& entry : fs::recursive_directory_iterator(object_dir)) {
    const std::string name = entry.path().filename().string();
    if (!entry.is_regular_file() || name.size() < 4 || name.substr(name.size() - 4) != ".o.d") {
      continue;
    }
    ++*depfiles;
    Result<std::string> text = ReadFile(entry.path().string());
    EXPECT_TRUE(text.ok()) << entry.path();
    if (!text.ok()) continue;
    std::string word;
    auto flush = [&] {
      if (!word.empty() && word != "\\" && word.back() != ':') paths.push_back(word);
      word.clear();
    };
    for (char c : *text) {
      if (c == ' ' || c == '\n' || c == '\t') {
        flush();
      } else {
        word += c;
      }
    }
    flush();
  }
  return paths;
}

// The object folders of an executable and of every static library its link line names.
std::vector<fs::path> ObjectFolders(const fs::path& target_dir) {
  std::vector<fs::path> folders = {target_dir};
  Result<std::string> link = ReadFile((target_dir / "link.txt").string());
  EXPECT_TRUE(link.ok()) << target_dir;
  if (!link.ok()) return folders;
  // The link runs in the folder above CMakeFiles/; a library libNAME.a has its objects in
  // CMakeFiles/NAME.dir beside it.
  const fs::path runs_in = target_dir.parent_path().parent_path();
  std::string word;
  std::istringstream words(*link);
  while (words >> word) {
    const fs::path library = fs::path(word).is_absolute() ? fs::path(word) : runs_in / word;
    const std::string name = library.filename().string();
    if (name.size() < 6 || name.rfind("lib", 0) != 0 || name.substr(name.size() - 2) != ".a") {
      continue;
    }
    folders.push_back(library.parent_path() / "CMakeFiles" /
                      (name.substr(3, name.size() - 5) + ".dir"));
  }
  return folders;
}

// Lock by binary: every file of the checkout that the compiler read to build ratchet-scorer and
// ratchet-worker (their sources, the headers they include, those of every library they link, as
// the build's depfiles list them) is one the scorer's source hash covers. A scorer header moved
// into a tool's folder, or a tool's file compiled into the scorer, fails here.
TEST(ContractSourceHash, EveryFileTheScorerBinariesWereCompiledFromIsHashed) {
  const fs::path root = fs::weakly_canonical(TestSourceDir());
  const fs::path build = fs::weakly_canonical(RATCHET_CONTRACT_TEST_BINARY_DIR);
  std::vector<std::string> hashed_list = HashedFiles(root);
  const std::set<std::string> hashed(hashed_list.begin(), hashed_list.end());
  int depfiles = 0;
  std::set<std::string> read;
  for (const char* target : {"runner/session/CMakeFiles/ratchet-scorer.dir",
                             "runner/worker/CMakeFiles/ratchet-worker.dir"}) {
    ASSERT_TRUE(fs::exists(build / target / "link.txt")) << build / target;
    for (const fs::path& folder : ObjectFolders(build / target)) {
      ASSERT_TRUE(fs::is_directory(folder)) << folder;
      for (const std::string& path : DepfilePaths(folder, &depfiles)) {
        const fs::path file = fs::weakly_canonical(fs::path(path).is_absolute()
                                                       ? fs::path(path)
                                                       : build / path);
        const std::string relative = fs::relative(file, root).string();
        const bool in_checkout = relative.rfind("..", 0) != 0;
        const bool in_build = fs::relative(file, build).string().rfind("..", 0) != 0;
        if (in_checkout && !in_build) read.insert(relative);
      }
    }
  }
  ASSERT_GT(depfiles, 50) << "the build left no depfiles to read";
  ASSERT_TRUE(read.count("runner/sandbox/spawn.cc")) << "the depfiles were not read";
  ASSERT_TRUE(read.count("runner/core/status.h")) << "the depfiles were not read";
  for (const std::string& file : read) {
    EXPECT_TRUE(hashed.count(file)) << file << " is compiled into the scorer, not hashed";
  }
}

}  // namespace
}  // namespace ratchet
