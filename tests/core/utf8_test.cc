#include "core/utf8.h"

#include <gtest/gtest.h>

#include <random>
#include <string>

#include "core/canonical_json.h"

namespace ratchet {
namespace {

// What the evidence writer requires of every string it keeps.
bool Storable(const std::string& text) { return CanonicalJson(Json(text)).ok(); }

TEST(Utf8Test, ValidTextIsKeptAsItIs) {
  const std::string text = "ascii, é, €, 𝄞, \x7f and a NUL: " + std::string(1, '\0');
  EXPECT_EQ(ValidUtf8(text), text);
  EXPECT_EQ(ValidUtf8Tail(text, 1000), text);
}

TEST(Utf8Test, EveryByteThatStartsNoCharacterBecomesTheReplacementCharacter) {
  const std::string fffd = "\xef\xbf\xbd";
  EXPECT_EQ(ValidUtf8("a\xff" "b"), "a" + fffd + "b");
  EXPECT_EQ(ValidUtf8("\x80"), fffd);                       // a stray continuation byte
  EXPECT_EQ(ValidUtf8("\xc0\xaf"), fffd + fffd);            // an overlong '/'
  EXPECT_EQ(ValidUtf8("\xed\xa0\x80"), fffd + fffd + fffd); // a surrogate
  EXPECT_EQ(ValidUtf8("\xf4\x90\x80\x80"), fffd + fffd + fffd + fffd);  // past U+10FFFF
  EXPECT_EQ(ValidUtf8("x\xe2\x82"), "x" + fffd + fffd);    // cut short at the end
}

TEST(Utf8Test, ATailCutInsideACharacterStartsAtTheNextOne) {
  const std::string euros = "\xe2\x82\xac\xe2\x82\xac\xe2\x82\xac";  // three U+20AC
  EXPECT_EQ(ValidUtf8Tail(euros, 8), "\xe2\x82\xac\xe2\x82\xac");
  EXPECT_EQ(ValidUtf8Tail(euros, 7), "\xe2\x82\xac\xe2\x82\xac");
  EXPECT_EQ(ValidUtf8Tail(euros, 6), "\xe2\x82\xac\xe2\x82\xac");
  EXPECT_EQ(ValidUtf8Tail(euros, 5), "\xe2\x82\xac");
  EXPECT_EQ(ValidUtf8Tail(euros, 2), "");
  const std::string clefs = "\xf0\x9d\x84\x9e\xf0\x9d\x84\x9e";  // two U+1D11E
  EXPECT_EQ(ValidUtf8Tail(clefs, 7), "\xf0\x9d\x84\x9e");
}

TEST(Utf8Test, AnyBytesGiveATailTheEvidenceWriterKeepsWithinItsBound) {
  std::mt19937 random(7);
  for (int round = 0; round < 2000; ++round) {
    std::string bytes(random() % 40, '\0');
    for (char& byte : bytes) byte = static_cast<char>(random() % 4 ? 0x80 | random() % 128 : random() % 256);
    const size_t bound = random() % 30;
    const std::string tail = ValidUtf8Tail(bytes, bound);
    EXPECT_TRUE(Storable(ValidUtf8(bytes)));
    EXPECT_TRUE(Storable(tail));
    EXPECT_LE(tail.size(), bound);
  }
}

}  // namespace
}  // namespace ratchet
