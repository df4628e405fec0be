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
#include <memory>
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

// JSON a user hands the tool is scanned before a parser sees it: a byte-order mark, nesting past
// the limit and a string past the limit are refused naming what; brackets and quotes inside
// strings are not counted.
TEST(InputFile, JsonIsScannedForAByteOrderMarkItsDepthAndItsLongestString) {
  auto check = [](const std::string& text) { return CheckJsonShape(text, "x.json", "the claim"); };
  EXPECT_TRUE(check("{\"a\": [1, {\"b\": \"[[[{{{\\\"\"}]}").ok());
  const Status bom = check("\xef\xbb\xbf{}");
  EXPECT_EQ(bom.code(), Status::Code::kBadInput);
  EXPECT_NE(bom.message().find("the claim x.json starts with a byte-order mark"), std::string::npos)
      << bom.message();
  const std::string deepest(kMaxJsonDepth, '['), closing(kMaxJsonDepth, ']');
  EXPECT_TRUE(check(deepest + closing).ok());
  const Status deep = check("[" + deepest + closing + "]");
  EXPECT_NE(deep.message().find("more than 64 deep"), std::string::npos) << deep.message();
  // As deep as a parser's recursion would crash on, refused as soon as the scan passes 64.
  EXPECT_FALSE(check(std::string(100000, '[') + std::string(100000, ']')).ok());
  const std::string longest(kMaxJsonString, 'a');
  EXPECT_TRUE(check("[\"" + longest + "\"]").ok());
  const Status long_string = check("[\"" + longest + "a\"]");
  EXPECT_NE(long_string.message().find("holds a string over"), std::string::npos)
      << long_string.message();
  EXPECT_LT(long_string.message().size(), 200u) << "the string is not echoed";
  EXPECT_FALSE(check("{\"" + longest + "a\": 1}").ok()) << "a key is a string";
  EXPECT_FALSE(check("[\"" + longest + "a").ok()) << "an unclosed string";
  // A number or literal past 1,024 characters is refused (a parser's error echoes it whole).
  EXPECT_TRUE(check("[" + std::string(1024, '1') + "]").ok());
  const Status token = check("[" + std::string(1000000, '1') + "]");
  EXPECT_NE(token.message().find("a number or literal over 1024 characters"), std::string::npos)
      << token.message();
  EXPECT_LT(token.message().size(), 200u);
  // JSON is UTF-8; a byte that is not is refused, and not echoed.
  EXPECT_TRUE(check("[\"caf\xc3\xa9 \xe2\x82\xac \xf0\x9f\x98\x80\"]").ok());
  for (const std::string& bad : {std::string("\x9b"), std::string("\xff"), std::string("\xc3"),
                                 std::string("\xc0\xaf"), std::string("\xed\xa0\x80"),
                                 std::string("\xf4\x90\x80\x80")}) {
    const Status status = check("{\"version\": \"" + bad + "\"}");
    EXPECT_NE(status.message().find("is not UTF-8 at byte 13"), std::string::npos)
        << status.message();
    EXPECT_EQ(status.message().find(bad), std::string::npos) << "the byte is not echoed";
  }
}

// A directory a user names (evidence, a sharded run) is walked before any file in it is opened:
// a FIFO, a link or a name outside printable ASCII anywhere under it is refused, as is a .json
// file that fails the scan; a plain tree passes.
TEST(InputFile, AnEvidenceTreeHoldsOnlyFoldersAndRegularFilesOfPlainNames) {
  auto tree = [] {
    auto dir = std::make_unique<TempDir>();
    std::filesystem::create_directories(*dir / "records/a/run-1");
    EXPECT_TRUE(WriteFileAtomic(*dir / "records/a/run-1/calls.json", "{\"calls\": []}").ok());
    EXPECT_TRUE(WriteFileAtomic(*dir / "records/a/run-1/log.txt", "\xef\xbb\xbf not JSON").ok());
    return dir;
  };
  auto checked = [](const TempDir& dir) { return CheckInputTree(dir.path(), "the evidence"); };
  EXPECT_TRUE(checked(*tree()).ok()) << checked(*tree()).message();

  auto fifo = tree();
  ASSERT_EQ(mkfifo((*fifo / "records/a/run-1/report.json").c_str(), 0600), 0);
  auto walked = std::async(std::launch::async, [&] { return checked(*fifo); });
  ASSERT_EQ(walked.wait_for(std::chrono::seconds(10)), std::future_status::ready)
      << "the walk blocked on a FIFO";
  const Status fifo_status = walked.get();
  EXPECT_NE(fifo_status.message().find("run-1/report.json, a FIFO (a named pipe)"),
            std::string::npos)
      << fifo_status.message();

  auto link = tree();
  std::filesystem::create_symlink("/dev/zero", *link / "records/a/contract.json");
  EXPECT_NE(checked(*link).message().find("a symbolic link"), std::string::npos);

  auto named = tree();
  ASSERT_TRUE(WriteFileAtomic(*named / "records/\x9b\x32J\xff", "x").ok());
  const Status name = checked(*named);
  EXPECT_NE(name.message().find("records/\\x9b2J\\xff, a name with bytes outside printable"),
            std::string::npos)
      << name.message();

  auto nested = tree();
  ASSERT_TRUE(
      WriteFileAtomic(*nested / "records/a/run-1/calls.json", std::string(65, '[')).ok());
  EXPECT_NE(checked(*nested).message().find("calls.json nests arrays and objects more than 64"),
            std::string::npos);

  TempDir outside;
  EXPECT_TRUE(CheckInputTree(outside / "missing", "the evidence").ok()) << "the reader says so";

  // --data: the files a dataset reader opens must be regular; anything else there is not read.
  TempDir data;
  std::filesystem::create_directories(data / "mnist");
  std::filesystem::create_directories(data / "other");
  ASSERT_EQ(mkfifo((data / "other/a-fifo").c_str(), 0600), 0);
  EXPECT_TRUE(CheckDataFolder(data.path()).ok()) << "a FIFO no reader opens";
  ASSERT_EQ(mkfifo((data / "mnist/train-labels-idx1-ubyte.gz").c_str(), 0600), 0);
  const Status dataset = CheckDataFolder(data.path());
  EXPECT_NE(dataset.message().find("mnist/train-labels-idx1-ubyte.gz, a FIFO"), std::string::npos)
      << dataset.message();
}

// A method file over the limit the scorer reads is refused naming its size and the limit (the
// scorer would score its first 64 MiB); a --rules that names a rule set's id is left alone.
TEST(InputFile, AMethodFileOverItsLimitAndAFifoAsRulesAreRefused) {
  TempDir dir;
  const std::string method = dir / "big.py";
  ASSERT_TRUE(WriteFileAtomic(method, "def method(a, b, c):\n    return c\n").ok());
  EXPECT_TRUE(CheckMethodFile(method, "the method file").ok());
  std::filesystem::resize_file(method, kMaxMethodFile + 1);
  const Status big = CheckMethodFile(method, "the method file");
  EXPECT_EQ(big.code(), Status::Code::kBadInput);
  EXPECT_NE(big.message().find("is 67108865 bytes, over the 64 MiB ratchet reads of a method"),
            std::string::npos)
      << big.message();
  EXPECT_TRUE(CheckJsonFileOption(std::string("mnist-a100/1.2.0"), "--rules").ok());
  // A rule set's id is looked up first, as the rule set's reader does, even where a path of that
  // name exists.
  const std::filesystem::path here = std::filesystem::current_path();
  std::filesystem::create_directories(dir / "mnist-a100/1.5.0");
  std::filesystem::current_path(dir.path());
  const Status id = CheckJsonFileOption(std::string("mnist-a100/1.5.0"), "--rules");
  std::filesystem::current_path(here);
  EXPECT_TRUE(id.ok()) << id.message();
  EXPECT_TRUE(CheckJsonFileOption(std::nullopt, "--rules").ok());
  const std::string fifo = dir / "rules.json";
  ASSERT_EQ(mkfifo(fifo.c_str(), 0600), 0);
  auto checked = std::async(std::launch::async, [&] { return CheckJsonFileOption(fifo, "--rules"); });
  ASSERT_EQ(checked.wait_for(std::chrono::seconds(10)), std::future_status::ready)
      << "the check blocked on a FIFO";
  EXPECT_NE(checked.get().message().find("--rules " + fifo + " is a FIFO"), std::string::npos);
}

}  // namespace
}  // namespace ratchet
