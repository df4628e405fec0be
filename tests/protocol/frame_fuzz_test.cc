// Random and mutated frames fed to ReadFrame: every frame that breaks the format is an error
// value with a message, never a crash, a hang or an allocation of a hostile length.
#include <gtest/gtest.h>

#include <random>

#include "pipe_util.h"
#include "protocol/frame.h"

namespace ratchet {
namespace {

FrameLimits Limits() {
  FrameLimits limits;
  limits.max_payload = 4096;
  return limits;
}

Result<Frame> Read(const std::string& bytes, FrameFailure* failure) {
  UniqueFd fd = FileWith(bytes);
  EXPECT_TRUE(fd.valid());
  return ReadFrame(fd.get(), Limits(), Deadline::In(5), "fuzzing", failure);
}

std::string Header(uint32_t magic, uint32_t json_length, uint32_t payload_length) {
  unsigned char bytes[kFrameHeaderBytes];
  EncodeFrameHeader(FrameHeader{magic, json_length, payload_length}, bytes);
  return std::string(reinterpret_cast<char*>(bytes), sizeof bytes);
}

std::string FrameBytes(const std::string& json, const std::string& payload = "") {
  return Header(kFrameMagic, static_cast<uint32_t>(json.size()),
                static_cast<uint32_t>(payload.size())) +
         json + payload;
}

std::string RandomBytes(std::mt19937_64& rng, size_t n) {
  std::string bytes(n, '\0');
  for (char& c : bytes) c = static_cast<char>(rng());
  return bytes;
}

// A frame out of step is kMalformed; a whole one whose JSON is bad, kBadJson.
void ExpectMalformed(const std::string& bytes, const std::string& why,
                     FrameFailure expected = FrameFailure::kMalformed) {
  FrameFailure failure = FrameFailure::kNone;
  Result<Frame> frame = Read(bytes, &failure);
  ASSERT_FALSE(frame.ok()) << why;
  EXPECT_EQ(failure, expected) << why << ": " << frame.status().message();
  EXPECT_EQ(frame.status().message().rfind("the worker sent a malformed frame while fuzzing: ", 0),
            0u)
      << frame.status().message();
}

const std::string kGood =
    FrameBytes("{\"ok\":true,\"ms\":12.5,\"kind\":\"m\\u00e9thod\",\"list\":[1,2,{\"a\":null}]}",
               std::string("\0\1\2\3\4\5\6\7\x08\x09", 10));

TEST(FrameFuzzTest, TheUntouchedFrameReads) {
  FrameFailure failure;
  Result<Frame> frame = Read(kGood, &failure);
  ASSERT_TRUE(frame.ok()) << frame.status().message();
  EXPECT_EQ(frame->payload.size(), 10u);
}

TEST(FrameFuzzTest, EveryTruncationIsAnError) {
  FrameFailure failure;
  for (size_t length = 0; length < kGood.size(); ++length) {
    Result<Frame> frame = Read(kGood.substr(0, length), &failure);
    ASSERT_FALSE(frame.ok()) << "truncated at " << length;
    EXPECT_EQ(failure, length == 0 ? FrameFailure::kClosed : FrameFailure::kMalformed)
        << "truncated at " << length << ": " << frame.status().message();
  }
}

TEST(FrameFuzzTest, OversizedAndZeroLengthsAreErrors) {
  std::mt19937_64 rng(1);
  for (int i = 0; i < 2000; ++i) {
    uint32_t json_length = static_cast<uint32_t>(rng());
    if (i % 3 == 0) json_length = 0;
    if (json_length > 0 && json_length <= kMaxJsonBytes) json_length += kMaxJsonBytes;
    ExpectMalformed(Header(kFrameMagic, json_length, 0) + "{}", "json length");
    uint32_t payload_length = static_cast<uint32_t>(rng()) | 4097u;
    ExpectMalformed(Header(kFrameMagic, 2, payload_length) + "{}", "payload length");
  }
}

TEST(FrameFuzzTest, WrongMagicIsAlwaysAnError) {
  std::mt19937_64 rng(2);
  for (int i = 0; i < 5000; ++i) {
    uint32_t magic = static_cast<uint32_t>(rng());
    if (magic == kFrameMagic) continue;
    ExpectMalformed(Header(magic, 2, 0) + "{}", "magic");
  }
}

TEST(FrameFuzzTest, RandomBodiesAreNeverObjectsUnlessTheyParse) {
  // Random bytes as JSON: almost never valid; when one parses, it must be an object to pass.
  std::mt19937_64 rng(3);
  for (int i = 0; i < 20000; ++i) {
    std::string json = RandomBytes(rng, 1 + rng() % 64);
    FrameFailure failure;
    Result<Frame> frame = Read(FrameBytes(json), &failure);
    if (frame.ok()) {
      EXPECT_TRUE(frame->header.is_object());
    } else {
      EXPECT_EQ(failure, FrameFailure::kBadJson) << frame.status().message();
    }
  }
}

TEST(FrameFuzzTest, NonObjectsAndInvalidUtf8AreErrors) {
  std::mt19937_64 rng(4);
  const std::vector<std::string> non_objects = {"[]",   "1",    "-0.5e3", "true",
                                                "null", "\"\"", "[{}]",   "\"{}\""};
  for (const std::string& json : non_objects) {
    ExpectMalformed(FrameBytes(json), json, FrameFailure::kBadJson);
  }
  for (int i = 0; i < 5000; ++i) {
    // A string holding a byte that cannot start or continue UTF-8 here.
    std::string bad;
    switch (rng() % 4) {
      case 0:
        bad = std::string(1, static_cast<char>(0x80 + rng() % 0x40));
        break;  // lone tail
      case 1:
        bad = std::string(1, static_cast<char>(0xf8 + rng() % 8));
        break;  // never valid
      case 2:
        bad = std::string(1, static_cast<char>(0xc2 + rng() % 30));
        break;  // cut short
      default:
        bad = "\xed\xa0\x80";
        break;  // surrogate
    }
    ExpectMalformed(FrameBytes("{\"e\":\"a" + bad + "\"}"), "invalid UTF-8",
                    FrameFailure::kBadJson);
  }
  for (int i = 0; i < 2000; ++i) {
    ExpectMalformed(FrameBytes("{\"e\":" + std::to_string(1 + rng() % 999) + "e999}"),
                    "huge number", FrameFailure::kBadJson);
  }
}

TEST(FrameFuzzTest, MutatedFramesAreErrorsOrWellFormed) {
  std::mt19937_64 rng(5);
  int errors = 0;
  for (int i = 0; i < 50000; ++i) {
    std::string bytes = kGood;
    const int edits = 1 + static_cast<int>(rng() % 4);
    for (int e = 0; e < edits; ++e) {
      size_t at = rng() % bytes.size();
      switch (rng() % 4) {
        case 0:
          bytes[at] = static_cast<char>(rng());
          break;
        case 1:
          bytes[at] ^= static_cast<char>(1u << (rng() % 8));
          break;
        case 2:
          bytes.erase(at, 1 + rng() % 3);
          break;
        default:
          bytes.insert(at, RandomBytes(rng, 1 + rng() % 3));
          break;
      }
      if (bytes.empty()) bytes = "R";
    }
    FrameFailure failure;
    Result<Frame> frame = Read(bytes, &failure);
    if (frame.ok()) {
      // Only a frame whose header still describes it can have read: an object and a payload of
      // the declared size.
      EXPECT_TRUE(frame->header.is_object());
      EXPECT_EQ(bytes.compare(0, 4, "RCT1"), 0);
      EXPECT_LE(frame->payload.size(), 4096u);
    } else {
      ++errors;
      EXPECT_NE(failure, FrameFailure::kNone);
      EXPECT_FALSE(frame.status().message().empty());
    }
  }
  EXPECT_GT(errors, 40000);  // most single-byte edits break a frame
}

TEST(FrameFuzzTest, DeepNestingIsHandledWithoutExhaustingTheStack) {
  const size_t depth = kMaxJsonBytes / 2 - 8;
  ExpectMalformed(FrameBytes(std::string(kMaxJsonBytes, '[')), "unclosed arrays",
                  FrameFailure::kBadJson);
  ExpectMalformed(FrameBytes(std::string(depth, '[') + std::string(depth, ']')), "nested arrays",
                  FrameFailure::kBadJson);
  std::string object = "{\"a\":" + std::string(depth - 8, '[') + std::string(depth - 8, ']') + "}";
  FrameFailure failure;
  Result<Frame> frame = Read(FrameBytes(object), &failure);
  ASSERT_TRUE(frame.ok()) << frame.status().message();
  EXPECT_TRUE(frame->header.is_object());
}

}  // namespace
}  // namespace ratchet
