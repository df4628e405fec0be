#include "core/file.h"

#include <fcntl.h>
#include <gtest/gtest.h>
#include <sys/stat.h>
#include <unistd.h>

#include <chrono>
#include <filesystem>
#include <future>

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

TEST(WriteAllTest, WritesEveryByteAndNamesThePathOnError) {
  TempDir dir;
  const std::string path = dir / "out";
  int fd = open(path.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0600);
  ASSERT_GE(fd, 0);
  const std::string bytes(3 << 20, 'x');  // more than one write() may take at once
  EXPECT_TRUE(WriteAll(fd, bytes, path).ok());
  close(fd);
  EXPECT_EQ(*ReadFile(path), bytes);

  fd = open(path.c_str(), O_RDONLY | O_CLOEXEC);
  ASSERT_GE(fd, 0);
  Status status = WriteAll(fd, "y", path);
  close(fd);
  ASSERT_FALSE(status.ok());
  EXPECT_EQ(status.code(), Status::Code::kIOError);
  EXPECT_NE(status.message().find("write " + path), std::string::npos) << status.message();
}

TEST(FsyncFolderTest, SyncsAFolderAndNamesAMissingOne) {
  TempDir dir;
  EXPECT_TRUE(SyncFolder(dir.path()).ok());
  Status status = SyncFolder(dir / "absent");
  ASSERT_FALSE(status.ok());
  EXPECT_NE(status.message().find(dir / "absent"), std::string::npos) << status.message();
}

TEST(ReadFileTest, StopsAtTheLimit) {
  TempDir dir;
  ASSERT_TRUE(WriteFileAtomic(dir / "f", std::string(200000, 'a')).ok());
  EXPECT_EQ(ReadFile(dir / "f", 70000)->size(), 70000u);
  EXPECT_EQ(ReadFile(dir / "f")->size(), 200000u);
  std::string streamed;
  ASSERT_TRUE(ForEachChunk(dir / "f", 4096, [&](const char* data, size_t size) {
                EXPECT_LE(size, 4096u);
                streamed.append(data, size);
              }).ok());
  EXPECT_EQ(streamed, std::string(200000, 'a'));
}

// A FIFO with no writer would block open() for good: refused at once, by both readers. Run
// aside, so that a reader that waits fails the test instead of hanging it.
TEST(ReadFileTest, RefusesAFifoWithoutWaitingForAWriter) {
  TempDir dir;
  const std::string fifo = dir / "records.json";
  ASSERT_EQ(mkfifo(fifo.c_str(), 0600), 0);
  auto read = std::async(std::launch::async, [&] { return ReadFile(fifo).status(); });
  auto streamed = std::async(std::launch::async,
                             [&] { return ForEachChunk(fifo, 4096, [](const char*, size_t) {}); });
  const bool read_returned = read.wait_for(std::chrono::seconds(10)) == std::future_status::ready;
  const bool streamed_returned =
      streamed.wait_for(std::chrono::seconds(10)) == std::future_status::ready;
  if (!read_returned || !streamed_returned) {
    // Let the blocked open() return, so that the futures' destructors can join their threads.
    int writer = open(fifo.c_str(), O_WRONLY | O_NONBLOCK | O_CLOEXEC);
    if (writer >= 0) close(writer);
    FAIL() << "a reader of a FIFO waited for a writer";
  }
  for (const Status& status : {read.get(), streamed.get()}) {
    EXPECT_EQ(status.code(), Status::Code::kBadInput);
    EXPECT_EQ(status.message(),
              fifo + " is a FIFO (a named pipe), not a regular file: name a file");
  }
  // A device is still read, up to the limit.
  EXPECT_EQ(*ReadFile("/dev/zero", 3), std::string(3, '\0'));
}

// A path a user names that cannot be read as a file is their mistake: BadInput (exit 2),
// whose message names what it is and why it cannot be read.
TEST(CheckInputFileTest, RefusesWhatIsNotAFile) {
  TempDir dir;
  ASSERT_TRUE(WriteFileAtomic(dir / "file", "x").ok());
  ASSERT_EQ(mkdir((dir / "folder").c_str(), 0755), 0);
  ASSERT_EQ(symlink((dir / "nowhere").c_str(), (dir / "dangling").c_str()), 0);
  ASSERT_EQ(symlink((dir / "loop").c_str(), (dir / "loop").c_str()), 0);
  EXPECT_TRUE(CheckInputFile(dir / "file", "--rules").ok());
  EXPECT_TRUE(CheckInputFile("/dev/null", "--rules").ok());  // a device or pipe may be read
  const std::pair<std::string, std::string> refused[] = {
      {dir / "absent", "--rules " + (dir / "absent") + ": no such file"},
      {dir / "folder", "--rules " + (dir / "folder") + " is a folder, not a file"},
      {dir / "dangling", "--rules " + (dir / "dangling") + " is a symlink to " + (dir / "nowhere") +
                             ", which does not exist"},
      {dir / "file/x", "--rules " + (dir / "file/x") + ": a part of the path is not a folder"},
      {dir / "loop", "--rules " + (dir / "loop") + ": too many levels of symlinks"},
  };
  for (const auto& [path, message] : refused) {
    Status status = CheckInputFile(path, "--rules");
    EXPECT_EQ(status.code(), Status::Code::kBadInput) << path;
    EXPECT_EQ(status.message(), message);
  }
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
