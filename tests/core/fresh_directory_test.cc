#include "core/fresh_directory.h"

#include <gtest/gtest.h>
#include <signal.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <filesystem>
#include <optional>
#include <set>

#include "core/file.h"
#include "support/temp_dir.h"

namespace ratchet {
namespace {

TEST(FreshDirectoryTest, BuildsHiddenThenCommitsIntoPlace) {
  TempDir dir;
  const std::string final_path = dir / "run-1";
  Result<FreshDirectory> fresh = FreshDirectory::Begin(final_path);
  ASSERT_TRUE(fresh.ok()) << fresh.status().message();
  EXPECT_EQ(BaseName(fresh->partial_path()).rfind(".run-1.partial-", 0), 0u);
  ASSERT_TRUE(fresh->MakeSubdirectory("records/a/run-1").ok());
  ASSERT_TRUE(fresh->WriteFile("records/a/run-1/calls.json", "[]").ok());
  EXPECT_FALSE(PathExists(final_path));  // nothing under the final name until complete
  ASSERT_TRUE(fresh->Commit().ok());
  EXPECT_EQ(*ReadFile(final_path + "/records/a/run-1/calls.json"), "[]");
  EXPECT_FALSE(PathExists(fresh->partial_path()));
}

TEST(FreshDirectoryTest, RefusesAnExistingPath) {
  TempDir dir;
  ASSERT_EQ(mkdir((dir / "taken").c_str(), 0755), 0);
  Result<FreshDirectory> fresh = FreshDirectory::Begin(dir / "taken");
  ASSERT_FALSE(fresh.ok());
  EXPECT_EQ(fresh.status().code(), Status::Code::kBadInput);
  EXPECT_NE(fresh.status().message().find("already exists"), std::string::npos);
}

TEST(FreshDirectoryTest, RefusesASymlinkEvenDangling) {
  TempDir dir;
  ASSERT_EQ(symlink((dir / "nowhere").c_str(), (dir / "link").c_str()), 0);
  EXPECT_FALSE(FreshDirectory::Begin(dir / "link").ok());
  EXPECT_FALSE(PathExists(dir / "nowhere"));
}

TEST(FreshDirectoryTest, RefusesASymlinkedParent) {
  TempDir dir;
  ASSERT_EQ(mkdir((dir / "real").c_str(), 0755), 0);
  ASSERT_EQ(symlink((dir / "real").c_str(), (dir / "alias").c_str()), 0);
  Result<FreshDirectory> fresh = FreshDirectory::Begin(dir / "alias/out");
  ASSERT_FALSE(fresh.ok());
  EXPECT_NE(fresh.status().message().find("symlink"), std::string::npos);
  EXPECT_TRUE(std::filesystem::is_empty(dir / "real"));
}

TEST(FreshDirectoryTest, AMissingParentFolderIsBadInput) {
  TempDir dir;
  Result<FreshDirectory> fresh = FreshDirectory::Begin(dir / "absent/out");
  ASSERT_FALSE(fresh.ok());
  EXPECT_EQ(fresh.status().code(), Status::Code::kBadInput);
  EXPECT_EQ(fresh.status().message(),
            "the folder " + (dir / "absent") + " for " + (dir / "absent/out") + " does not exist");
  ASSERT_TRUE(WriteFileAtomic(dir / "file", "x").ok());
  Result<FreshDirectory> through_a_file = FreshDirectory::Begin(dir / "file/sub/out");
  ASSERT_FALSE(through_a_file.ok());
  EXPECT_EQ(through_a_file.status().code(), Status::Code::kBadInput);
}

mode_t ModeOf(const std::string& path) {
  struct stat info;
  EXPECT_EQ(lstat(path.c_str(), &info), 0) << path;
  return info.st_mode & 07777;
}

// What a fresh directory holds may be secret (a draw's hidden labels): only its owner may read
// it, while it is built and after, whatever the umask.
TEST(FreshDirectoryTest, OnlyTheOwnerCanReadIt) {
  TempDir dir;
  const mode_t saved = umask(0);
  Result<FreshDirectory> fresh = FreshDirectory::Begin(dir / "out");
  umask(saved);
  ASSERT_TRUE(fresh.ok());
  EXPECT_EQ(ModeOf(fresh->partial_path()), 0700u);
  ASSERT_TRUE(fresh->MakeSubdirectory("hidden/deeper").ok());
  ASSERT_TRUE(fresh->WriteFile("hidden/deeper/test_y.i64", "secret").ok());
  ASSERT_TRUE(fresh->Commit().ok());
  EXPECT_EQ(ModeOf(dir / "out"), 0700u);
  EXPECT_EQ(ModeOf(dir / "out/hidden"), 0700u);
  EXPECT_EQ(ModeOf(dir / "out/hidden/deeper"), 0700u);
  EXPECT_EQ(ModeOf(dir / "out/hidden/deeper/test_y.i64"), 0600u);
}

TEST(FreshDirectoryTest, CommitNeverReplacesWhatAppearedMeanwhile) {
  TempDir dir;
  Result<FreshDirectory> fresh = FreshDirectory::Begin(dir / "out");
  ASSERT_TRUE(fresh.ok());
  ASSERT_EQ(mkdir((dir / "out").c_str(), 0755), 0);
  ASSERT_TRUE(WriteFileAtomic(dir / "out/theirs", "x").ok());
  EXPECT_FALSE(fresh->Commit().ok());
  EXPECT_EQ(*ReadFile(dir / "out/theirs"), "x");
}

TEST(FreshDirectoryTest, AbandonRemovesThePartialFolder) {
  TempDir dir;
  Result<FreshDirectory> fresh = FreshDirectory::Begin(dir / "out");
  ASSERT_TRUE(fresh.ok());
  ASSERT_TRUE(fresh->WriteFile("half", "written").ok());
  fresh->Abandon();
  EXPECT_TRUE(std::filesystem::is_empty(dir.path()));
}

TEST(FreshDirectoryTest, RejectsEscapingRelativePaths) {
  TempDir dir;
  Result<FreshDirectory> fresh = FreshDirectory::Begin(dir / "out");
  ASSERT_TRUE(fresh.ok());
  EXPECT_FALSE(fresh->WriteFile("../escape", "x").ok());
  EXPECT_FALSE(fresh->WriteFile("/etc/x", "x").ok());
  EXPECT_FALSE(fresh->MakeSubdirectory("a/../..").ok());
  EXPECT_FALSE(PathExists(dir / "escape"));
}

// The partial folders in `dir`, by name.
std::set<std::string> PartialFolders(const std::string& dir) {
  std::set<std::string> names;
  for (const auto& entry : std::filesystem::directory_iterator(dir)) {
    const std::string name = entry.path().filename().string();
    if (name.find(".partial-") != std::string::npos) names.insert(name);
  }
  return names;
}

std::set<std::string> SweptNames(const std::string& dir) {
  Result<std::vector<SweptFolder>> swept = SweepPartialFolders(dir);
  EXPECT_TRUE(swept.ok()) << swept.status().message();
  std::set<std::string> names;
  if (!swept.ok()) return names;
  for (const SweptFolder& one : *swept) {
    EXPECT_TRUE(one.status.ok()) << one.Line();
    EXPECT_EQ(one.folder, dir);
    names.insert(one.name);
  }
  return names;
}

// A child process that begins `final_path`, writes a file into it and ends without committing:
// by _exit(), or, when `killed`, by SIGKILL while it waits. Its partial folder's name.
std::string LeftByAChild(const std::string& final_path, bool killed) {
  const std::set<std::string> before = PartialFolders(DirName(final_path));
  int ready[2];
  EXPECT_EQ(pipe(ready), 0);
  const pid_t child = fork();
  if (child == 0) {
    prctl(PR_SET_PDEATHSIG, SIGKILL);
    close(ready[0]);
    Result<FreshDirectory> fresh = FreshDirectory::Begin(final_path);
    if (!fresh.ok() || !fresh->WriteFile("seed.commit", "half a run").ok()) _exit(1);
    if (write(ready[1], "x", 1) != 1) _exit(1);
    if (killed) pause();
    _exit(0);  // no destructor runs: the folder stays, as after a kill
  }
  close(ready[1]);
  char byte;
  EXPECT_EQ(read(ready[0], &byte, 1), 1);
  close(ready[0]);
  if (killed) kill(child, SIGKILL);
  int status = 0;
  EXPECT_EQ(waitpid(child, &status, 0), child);
  EXPECT_TRUE(killed ? WIFSIGNALED(status) : WIFEXITED(status) && WEXITSTATUS(status) == 0);
  std::set<std::string> after = PartialFolders(DirName(final_path));
  for (const std::string& name : before) after.erase(name);
  EXPECT_EQ(after.size(), 1u);
  return after.empty() ? "" : *after.begin();
}

// A partial folder whose process is gone (it exited without committing, or was killed) is
// removed; one a live process builds is kept, and so is everything not shaped like a partial
// folder.
TEST(SweepPartialFoldersTest, RemovesWhatKilledProcessesLeftAndNothingElse) {
  TempDir dir;
  Result<FreshDirectory> live = FreshDirectory::Begin(dir / "live");
  ASSERT_TRUE(live.ok());
  ASSERT_TRUE(live->WriteFile("seed.commit", "still running").ok());
  const std::string exited = LeftByAChild(dir / "ev", /*killed=*/false);
  const std::string killed = LeftByAChild(dir / "other", /*killed=*/true);
  ASSERT_FALSE(exited.empty());
  ASSERT_FALSE(killed.empty());

  Result<FreshDirectory> done = FreshDirectory::Begin(dir / "done");
  ASSERT_TRUE(done.ok());
  ASSERT_TRUE(done->WriteFile("MANIFEST.json", "{}").ok());
  ASSERT_TRUE(done->Commit().ok());
  ASSERT_TRUE(WriteFileAtomic(dir / ".notes", "x").ok());
  ASSERT_TRUE(WriteFileAtomic(dir / ".a-file.partial-12", "a file, not a folder").ok());
  ASSERT_EQ(mkdir((dir / ".ev.partial-abc").c_str(), 0700), 0);
  ASSERT_EQ(mkdir((dir / "ev.partial-34").c_str(), 0700), 0);
  ASSERT_EQ(mkdir((dir / "elsewhere").c_str(), 0700), 0);
  ASSERT_EQ(symlink((dir / "elsewhere").c_str(), (dir / ".link.partial-56").c_str()), 0);

  EXPECT_EQ(SweptNames(dir.path()), (std::set<std::string>{exited, killed}));
  EXPECT_FALSE(PathExists(dir / exited));
  EXPECT_FALSE(PathExists(dir / killed));
  for (const char* kept : {"done/MANIFEST.json", ".notes", ".a-file.partial-12", ".ev.partial-abc",
                           "ev.partial-34", "elsewhere", ".link.partial-56"}) {
    EXPECT_TRUE(PathExists(dir / kept)) << kept;
  }
  EXPECT_EQ(*ReadFile(live->partial_path() + "/seed.commit"), "still running");
  EXPECT_TRUE(SweptNames(dir.path()).empty());  // nothing more to remove
  ASSERT_TRUE(live->Commit().ok());
  EXPECT_EQ(*ReadFile(dir / "live/seed.commit"), "still running");
}

TEST(SweepPartialFoldersTest, SaysWhatItRemovedInOneLine) {
  TempDir dir;
  const std::string left = LeftByAChild(dir / "ev", /*killed=*/true);
  Result<std::vector<SweptFolder>> swept = SweepPartialFolders(dir.path());
  ASSERT_TRUE(swept.ok());
  ASSERT_EQ(swept->size(), 1u);
  EXPECT_EQ((*swept)[0].Line(), "removed " + left + " in " + dir.path() +
                                    ": a partial folder left by a process that was killed before "
                                    "it finished");
  EXPECT_TRUE(SweepPartialFolders(dir / "absent").ok());
  EXPECT_TRUE(SweepPartialFolders(dir / "absent")->empty());
}

// The lock goes with a moved FreshDirectory, and is let go of when the last holder is destroyed
// without committing.
TEST(SweepPartialFoldersTest, TheLockMovesWithTheDirectory) {
  TempDir dir;
  std::optional<FreshDirectory> moved;
  {
    Result<FreshDirectory> fresh = FreshDirectory::Begin(dir / "out");
    ASSERT_TRUE(fresh.ok());
    moved.emplace(std::move(*fresh));
  }  // the moved-from one is destroyed here
  const std::string partial = moved->partial_path();
  EXPECT_TRUE(SweptNames(dir.path()).empty());
  EXPECT_TRUE(PathExists(partial));
  moved.reset();  // as a process that stops without committing: the folder stays, unlocked
  EXPECT_TRUE(PathExists(partial));
  EXPECT_EQ(SweptNames(dir.path()), std::set<std::string>{BaseName(partial)});
  EXPECT_FALSE(PathExists(partial));
}

// A sweep beside a process that builds folders never takes one of them: each is locked before
// Begin returns it, and a sweep that came between its mkdir and its lock (a narrow moment, which
// this test seldom meets) makes Begin take another name. A child sweeps without pause while this
// process begins and commits folders.
TEST(SweepPartialFoldersTest, ASweepNeverTakesAFolderBeingBuilt) {
  TempDir dir;
  const pid_t sweeper = fork();
  if (sweeper == 0) {
    prctl(PR_SET_PDEATHSIG, SIGKILL);  // even if this test's process dies first
    while (true) (void)SweepPartialFolders(dir.path());
  }
  int committed = 0;
  for (int i = 0; i < 100; ++i) {
    Result<FreshDirectory> fresh = FreshDirectory::Begin(dir / ("out-" + std::to_string(i)));
    if (!fresh.ok()) {
      ADD_FAILURE() << fresh.status().message();
      continue;
    }
    Status wrote = fresh->WriteFile("a", "b");
    Status status = wrote.ok() ? fresh->Commit() : wrote;
    EXPECT_TRUE(status.ok()) << "folder " << i << ": " << status.message();
    committed += status.ok();
  }
  kill(sweeper, SIGKILL);
  waitpid(sweeper, nullptr, 0);
  EXPECT_EQ(committed, 100);
}

}  // namespace
}  // namespace ratchet
