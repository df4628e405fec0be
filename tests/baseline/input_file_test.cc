// The files a user names to the tool: a FIFO or a device is refused before it is opened (a FIFO
// would block, a device never end), a baseline over its limit is refused naming the limit, and a
// hostile value reaches a message only as a short, escaped excerpt.
#include "baseline/input_file.h"

#include <gtest/gtest.h>
#include <sys/stat.h>

#include <chrono>
#include <filesystem>
#include <fstream>
#include <future>
#include <string>

#include "baseline/baseline.h"
#include "core/file.h"
#include "support/temp_dir.h"

namespace ratchet {
namespace {

TEST(InputFile, AFifoIsRefusedWithoutBlocking) {
  TempDir dir;
  const std::string fifo = dir / "records.json";
  ASSERT_EQ(mkfifo(fifo.c_str(), 0600), 0);
  auto loaded = std::async(std::launch::async, [&] { return LoadBaseline(fifo).status(); });
  if (loaded.wait_for(std::chrono::seconds(10)) != std::future_status::ready) {
    // Unblock the reader before failing, so that the test ends.
    std::ofstream(fifo) << "{}";
    FAIL() << "LoadBaseline blocked on a FIFO";
  }
  const Status status = loaded.get();
  EXPECT_EQ(status.code(), Status::Code::kBadInput);
  EXPECT_NE(status.message().find("is a FIFO (a named pipe), not a regular file"),
            std::string::npos)
      << status.message();
}

TEST(InputFile, ADeviceBehindASymlinkIsRefused) {
  TempDir dir;
  const std::string link = dir / "method.py";
  std::filesystem::create_symlink("/dev/zero", link);
  const Status status = CheckRegularInput(link, "the method file");
  EXPECT_EQ(status.code(), Status::Code::kBadInput);
  EXPECT_EQ(status.message(), "the method file " + link +
                                  " is a character device, not a regular file: ratchet reads "
                                  "only regular files");
  EXPECT_TRUE(CheckRegularInput(dir / "absent.py", "the method file").code() ==
              Status::Code::kBadInput);
}

TEST(InputFile, ABaselineOverItsLimitIsRefusedNamingTheLimit) {
  TempDir dir;
  const std::string path = dir / "records.json";
  ASSERT_TRUE(WriteFileAtomic(path, std::string(kMaxBaselineBytes + 1, ' ')).ok());
  const Status status = LoadBaseline(path).status();
  EXPECT_EQ(status.code(), Status::Code::kBadInput);
  EXPECT_NE(status.message().find("is larger than the 64 MiB ratchet reads of it"),
            std::string::npos)
      << status.message().substr(0, 300);
  // At the limit it is read, and parsed (here: not JSON).
  ASSERT_TRUE(WriteFileAtomic(path, std::string(kMaxBaselineBytes, ' ')).ok());
  EXPECT_EQ(LoadBaseline(path).status().message().find("larger than"), std::string::npos);
}

TEST(InputFile, AHostileValueIsEchoedOnlyAsAShortEscapedExcerpt) {
  // A schema of a megabyte that begins with a terminal's escape sequence.
  Result<Baseline> parsed = ParseBaseline(
      "{\"schema\": \"\\u001b[31m" + std::string(1 << 20, 'x') + "\"}", "records.json");
  ASSERT_FALSE(parsed.ok());
  const std::string& message = parsed.status().message();
  EXPECT_LT(message.size(), 1200u) << message.substr(0, 300);
  EXPECT_EQ(message.find('\x1b'), std::string::npos);
  EXPECT_NE(message.find("\\x1b[31m"), std::string::npos) << message;
  EXPECT_NE(message.find(" bytes in all)"), std::string::npos) << message;
  EXPECT_EQ(Excerpt("ok\ttab", 300), "ok\\x09tab");
  EXPECT_EQ(Excerpt("abcdef", 3), "abc... (6 bytes in all)");
}

TEST(InputFile, AByteOrderMarkIsRefused) {
  Result<Baseline> parsed = ParseBaseline("\xEF\xBB\xBF{}", "records.json");
  ASSERT_FALSE(parsed.ok());
  EXPECT_EQ(parsed.status().code(), Status::Code::kBadInput);
  EXPECT_EQ(parsed.status().message(),
            "records.json: starts with a byte-order mark (EF BB BF): save it as UTF-8 without "
            "one");
}

}  // namespace
}  // namespace ratchet
