// docs/protocol.md shows frames as hex dumps; these tests hold the page to what the code writes
// and reads, so the page cannot drift from the format.
#include <gtest/gtest.h>

#include <cstdlib>
#include <sstream>

#include "core/file.h"
#include "pipe_util.h"
#include "protocol/frame.h"

namespace ratchet {
namespace {

struct Example {
  std::string json, payload, bytes;  // bytes: the hex dump under the marker, decoded
};

std::string Unhex(const std::string& text) {
  std::string bytes;
  std::istringstream in(text);
  std::string pair;
  while (in >> pair) bytes.push_back(static_cast<char>(std::stoi(pair, nullptr, 16)));
  return bytes;
}

// Every "<!-- frame-example: JSON [PAYLOAD-HEX] -->" marker and the ``` block after it.
std::vector<Example> Examples(const std::string& page) {
  std::vector<Example> examples;
  const std::string marker = "<!-- frame-example: ";
  for (size_t at = page.find(marker); at != std::string::npos; at = page.find(marker, at + 1)) {
    size_t end = page.find(" -->", at);
    std::string spec = page.substr(at + marker.size(), end - at - marker.size());
    Example example;
    size_t space = spec.rfind(' ');
    if (space != std::string::npos && spec.back() != '}') {
      example.json = spec.substr(0, space);
      for (size_t i = space + 1; i + 1 < spec.size(); i += 2) {
        example.payload.push_back(static_cast<char>(std::stoi(spec.substr(i, 2), nullptr, 16)));
      }
    } else {
      example.json = spec;
    }
    size_t open = page.find("```\n", end);
    size_t close = page.find("```", open + 4);
    example.bytes = Unhex(page.substr(open + 4, close - open - 4));
    examples.push_back(example);
  }
  return examples;
}

TEST(ProtocolDocTest, TheHexDumpsOnThePageAreWhatTheCodeWritesAndReads) {
  const char* root = std::getenv("RATCHET_SOURCE_DIR");
  ASSERT_NE(root, nullptr);
  Result<std::string> page = ReadFile(std::string(root) + "/docs/protocol.md");
  ASSERT_TRUE(page.ok()) << page.status().message();
  std::vector<Example> examples = Examples(*page);
  ASSERT_EQ(examples.size(), 2u);
  for (const Example& example : examples) {
    Json header = Json::parse(example.json);
    Result<std::string> encoded = EncodeFrame(header, example.payload);
    ASSERT_TRUE(encoded.ok());
    EXPECT_EQ(*encoded, example.bytes) << example.json;

    UniqueFd fd = FileWith(example.bytes);
    FrameLimits limits;
    limits.max_payload = kMaxPayloadBytes;
    Result<Frame> frame = ReadFrame(fd.get(), limits, Deadline::In(5), "reading the doc", nullptr);
    ASSERT_TRUE(frame.ok()) << frame.status().message();
    EXPECT_EQ(frame->header, header);
    EXPECT_EQ(frame->payload, example.payload);
  }
}

}  // namespace
}  // namespace ratchet
