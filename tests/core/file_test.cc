#include "core/file.h"

#include <gtest/gtest.h>
#include <sys/stat.h>

#include <filesystem>

#include "support/temp_dir.h"

namespace ratchet {
namespace {

int CountEntries(const std::string& dir) {
  int n = 0;
  for (auto& entry : std::filesystem::directory_iterator(dir)) {
    (void)entry;
    ++n;
  }
  return n;
}

TEST(WriteFileAtomicTest, CreatesAndReplacesLeavingNoTemporary) {
  TempDir dir;
  const std::string path = dir / "records.json";
  ASSERT_TRUE(WriteFileAtomic(path, "old").ok());
  ASSERT_TRUE(WriteFileAtomic(path, "new bytes", 0600).ok());
  Result<std::string> text = ReadFile(path);
  ASSERT_TRUE(text.ok());
  EXPECT_EQ(*text, "new bytes");
  struct stat info;
  ASSERT_EQ(stat(path.c_str(), &info), 0);
  EXPECT_EQ(info.st_mode & 0777, 0600u);
  EXPECT_EQ(CountEntries(dir.path()), 1);
}

TEST(WriteFileAtomicTest, FailureLeavesTheOldFileAndNoTemporary) {
  TempDir dir;
  // A folder where the file should go: the final rename fails after the bytes were written.
  const std::string path = dir / "baseline";
  ASSERT_EQ(mkdir(path.c_str(), 0755), 0);
  ASSERT_TRUE(WriteFileAtomic(path + "/keep", "kept").ok());
  Status status = WriteFileAtomic(path, "replacement");
  ASSERT_FALSE(status.ok());
  EXPECT_EQ(status.code(), Status::Code::kIOError);
  EXPECT_NE(status.message().find("rename"), std::string::npos) << status.message();
  EXPECT_TRUE(IsDirectory(path));
  EXPECT_EQ(*ReadFile(path + "/keep"), "kept");
  EXPECT_EQ(CountEntries(dir.path()), 1);
}

TEST(WriteFileAtomicTest, MissingFolderIsAnError) {
  TempDir dir;
  Status status = WriteFileAtomic(dir / "no/such/file", "x");
  EXPECT_FALSE(status.ok());
  EXPECT_NE(status.message().find("no/such"), std::string::npos);
}

TEST(PathsTest, DirNameAndBaseName) {
  EXPECT_EQ(DirName("a/b/c"), "a/b");
  EXPECT_EQ(DirName("c"), ".");
  EXPECT_EQ(DirName("/c"), "/");
  EXPECT_EQ(DirName("a/b/"), "a");
  EXPECT_EQ(BaseName("a/b/c"), "c");
  EXPECT_EQ(BaseName("a/b/"), "b");
  EXPECT_EQ(BaseName("c"), "c");
}

TEST(SelfExecutableTest, PointsAtThisTestBinary) {
  Result<std::string> self = SelfExecutable();
  ASSERT_TRUE(self.ok());
  EXPECT_EQ(BaseName(*self), "core_test");
}

}  // namespace
}  // namespace ratchet
