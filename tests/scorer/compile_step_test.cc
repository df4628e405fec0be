// What the compile step takes from a dead worker's cache folder (ReadCacheTree): folders and
// regular files, read without following a link; a link, a device or a name that is not
// printable ASCII is left out and named; past the size limit it is an error, not a silent cut.
#include "scorer/compile_step.h"

#include <gtest/gtest.h>
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>

#include "core/file.h"
#include "core/sha256.h"
#include "sandbox/policy.h"
#include "support/temp_dir.h"

namespace ratchet {
namespace {

void Write(const std::string& path, const std::string& bytes) {
  std::filesystem::create_directories(std::filesystem::path(path).parent_path());
  std::ofstream(path, std::ios::binary) << bytes;
}

TEST(CompileStepTest, TheCacheTreeIsReadSortedWithEachFilesSha256) {
  TempDir dir;
  const std::string root = dir / "cache";
  Write(root + "/triton/abc/kernel.cubin", "cubin bytes");
  Write(root + "/torch_extensions/ext/.ninja_log", "log");
  Write(root + "/a", "");
  Result<CacheSet> caches = ReadCacheTree(root, 1 << 20);
  ASSERT_TRUE(caches.ok()) << caches.status().message();
  ASSERT_EQ(caches->listing.size(), 3u);
  EXPECT_EQ(caches->listing[0].path, "a");
  EXPECT_EQ(caches->listing[1].path, "torch_extensions/ext/.ninja_log");
  EXPECT_EQ(caches->listing[2].path, "triton/abc/kernel.cubin");
  EXPECT_EQ(caches->listing[2].bytes, 11);
  EXPECT_EQ(caches->listing[2].sha256, Sha256Hex("cubin bytes"));
  ASSERT_EQ(caches->files.size(), 3u);
  EXPECT_EQ(caches->files[2].name, "cache/triton/abc/kernel.cubin");
  EXPECT_EQ(caches->files[2].bytes, "cubin bytes");
  EXPECT_EQ(caches->bytes, 14u);
  // The listing's sha256 is that of `sha256sum` run over it from inside the folder.
  EXPECT_EQ(caches->sha256, Sha256Hex(Sha256Hex("") + "  a\n" + Sha256Hex("log") +
                                      "  torch_extensions/ext/.ninja_log\n" +
                                      Sha256Hex("cubin bytes") + "  triton/abc/kernel.cubin\n"));
  EXPECT_TRUE(caches->skipped.empty());
}

TEST(CompileStepTest, ALinkAFifoAndANameThatIsNotPrintableAreLeftOutAndNamed) {
  TempDir dir;
  const std::string root = dir / "cache";
  Write(dir / "outside", "a file outside the cache folder");
  Write(root + "/kept", "kept");
  ASSERT_EQ(symlink((dir / "outside").c_str(), (root + "/link").c_str()), 0);
  ASSERT_EQ(symlink(dir.path().c_str(), (root + "/folder-link").c_str()), 0);
  ASSERT_EQ(mkfifo((root + "/fifo").c_str(), 0600), 0);
  Write(root + "/bad\nname", "x");
  Result<CacheSet> caches = ReadCacheTree(root, 1 << 20);
  ASSERT_TRUE(caches.ok()) << caches.status().message();
  ASSERT_EQ(caches->listing.size(), 1u);
  EXPECT_EQ(caches->listing[0].path, "kept");
  const std::vector<std::string> expected = {
      "bad\\x0aname: a name that is not printable ASCII", "fifo: not a regular file",
      "folder-link: a symbolic link", "link: a symbolic link"};
  EXPECT_EQ(caches->skipped, expected);
}

TEST(CompileStepTest, CachesPastTheLimitAreAnErrorAndAMissingFolderIsEmpty) {
  TempDir dir;
  const std::string root = dir / "cache";
  Write(root + "/one", std::string(600, 'x'));
  Write(root + "/two", std::string(600, 'y'));
  Result<CacheSet> caches = ReadCacheTree(root, 1000);
  ASSERT_FALSE(caches.ok());
  EXPECT_NE(caches.status().message().find("more than 1000 bytes"), std::string::npos);
  EXPECT_TRUE(ReadCacheTree(root, 1200).ok());
  Result<CacheSet> none = ReadCacheTree(dir / "absent", 1000);
  ASSERT_TRUE(none.ok());
  EXPECT_TRUE(none->empty());
  EXPECT_EQ(none->sha256, "");
  // The root itself a link: refused, never followed.
  ASSERT_EQ(symlink(root.c_str(), (dir / "root-link").c_str()), 0);
  EXPECT_FALSE(ReadCacheTree(dir / "root-link", 1200).ok());
}

// What could not be copied into a later worker's folder is not taken: a path too long for it is
// left out, too many files and folders or a sparse file's whole size past the bound is an error
// (the step then gives no caches), and the skipped names are counted past the first ones.
TEST(CompileStepTest, WhatALaterFolderCouldNotHoldIsNotTaken) {
  TempDir dir;
  const std::string root = dir / "cache";
  std::string deep = root;
  for (int i = 0; i < 14; ++i) deep += "/" + std::string(250, 'd');
  Write(deep + "/kernel", "k");
  Write(root + "/short", "s");
  Result<CacheSet> caches = ReadCacheTree(root, 1 << 20);
  ASSERT_TRUE(caches.ok()) << caches.status().message();
  ASSERT_EQ(caches->listing.size(), 1u);
  EXPECT_EQ(caches->listing[0].path, "short");
  ASSERT_EQ(caches->skipped.size(), 1u);
  EXPECT_NE(caches->skipped[0].find("a path longer than 3072 characters"), std::string::npos);
  EXPECT_LT(caches->skipped[0].size(), 400u);

  TempDir sparse;
  Write(sparse / "cache/big", "");
  ASSERT_EQ(truncate((sparse / "cache/big").c_str(), 2 << 20), 0);
  Result<CacheSet> too_big = ReadCacheTree(sparse / "cache", 1 << 20);
  ASSERT_FALSE(too_big.ok());
  EXPECT_NE(too_big.status().message().find("more than 1048576 bytes"), std::string::npos);

  TempDir many;
  for (size_t i = 0; i < 100; ++i) {
    ASSERT_EQ(symlink("/etc/passwd", (many / ("l" + std::to_string(1000 + i))).c_str()), 0);
  }
  Result<CacheSet> links = ReadCacheTree(many.path(), 1 << 20);
  ASSERT_TRUE(links.ok());
  ASSERT_EQ(links->skipped.size(), kMaxSkippedNamed + 1);
  EXPECT_EQ(links->skipped.back(), "and 36 more left out");
}

// A worker's copy keeps each file's modification time: ninja rebuilds an extension whose objects
// look older than its sources or than its own log says they were.
TEST(CompileStepTest, AWorkersCopyOfTheCachesKeepsEachFilesTime) {
  TempDir dir;
  const std::string root = dir / "cache";
  Write(root + "/ext/main.o", "object");
  Write(root + "/ext/main.cpp", "source");
  const timespec old_times[2] = {{0, UTIME_OMIT}, {1600000000, 123456789}};
  ASSERT_EQ(utimensat(AT_FDCWD, (root + "/ext/main.cpp").c_str(), old_times, 0), 0);
  Result<CacheSet> caches = ReadCacheTree(root, 1 << 20);
  ASSERT_TRUE(caches.ok()) << caches.status().message();
  ASSERT_EQ(caches->files.size(), 2u);
  EXPECT_EQ(caches->files[0].mtime_ns, int64_t{1600000000123456789});
  Result<std::string> folder =
      MakeWorkerFolder({}, {}, FirstWorkerUid(), 1 << 20, &caches->files);
  ASSERT_TRUE(folder.ok()) << folder.status().message();
  struct stat source, object, original;
  ASSERT_EQ(stat((*folder + "/cache/ext/main.cpp").c_str(), &source), 0);
  ASSERT_EQ(stat((*folder + "/cache/ext/main.o").c_str(), &object), 0);
  ASSERT_EQ(stat((root + "/ext/main.o").c_str(), &original), 0);
  EXPECT_EQ(source.st_mtim.tv_sec, 1600000000);
  EXPECT_EQ(source.st_mtim.tv_nsec, 123456789);
  EXPECT_EQ(object.st_mtim.tv_sec, original.st_mtim.tv_sec);
  EXPECT_EQ(object.st_mtim.tv_nsec, original.st_mtim.tv_nsec);
  EXPECT_EQ(*ReadFile(*folder + "/cache/ext/main.o"), "object");
  RemoveWorkerFolder(*folder);
}

}  // namespace
}  // namespace ratchet
