#include "core/fresh_directory.h"

#include <gtest/gtest.h>
#include <sys/stat.h>
#include <unistd.h>

#include <filesystem>

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

}  // namespace
}  // namespace ratchet
