#include "core/sha256.h"

#include <gtest/gtest.h>

#include <string>

#include "core/file.h"
#include "support/temp_dir.h"

namespace ratchet {
namespace {

TEST(Sha256Test, KnownAnswers) {
  EXPECT_EQ(Sha256Hex(""), "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855");
  EXPECT_EQ(Sha256Hex("abc"), "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad");
}

TEST(Sha256Test, StreamingEqualsOneShot) {
  std::string data;
  for (int i = 0; i < 100000; ++i) data += static_cast<char>(i * 7);
  Sha256 hash;
  for (size_t at = 0; at < data.size(); at += 997) hash.Update(data.substr(at, 997));
  EXPECT_EQ(hash.HexDigest(), Sha256Hex(data));
}

TEST(Sha256Test, FileHashAndMissingFile) {
  TempDir dir;
  ASSERT_TRUE(WriteFileAtomic(dir / "f", "abc").ok());
  Result<std::string> digest = Sha256File(dir / "f");
  ASSERT_TRUE(digest.ok()) << digest.status().message();
  EXPECT_EQ(*digest, Sha256Hex("abc"));
  Result<std::string> missing = Sha256File(dir / "absent");
  ASSERT_FALSE(missing.ok());
  EXPECT_NE(missing.status().message().find(dir / "absent"), std::string::npos);
  EXPECT_EQ(missing.status().code(), Status::Code::kIOError);
}

TEST(HmacTest, Rfc4231Case2) {
  EXPECT_EQ(HexEncode(HmacSha256("Jefe", "what do ya want for nothing?")),
            "5bdcc146bf60754e6a042426089575c75a003f089d2739839dec58b964ec3843");
}

TEST(HexTest, RoundTripAndErrors) {
  Result<std::string> bytes = HexDecode("00ff7Fa0", "the seed");
  ASSERT_TRUE(bytes.ok());
  EXPECT_EQ(HexEncode(*bytes), "00ff7fa0");
  Result<std::string> odd = HexDecode("abc", "the seed");
  ASSERT_FALSE(odd.ok());
  EXPECT_NE(odd.status().message().find("the seed"), std::string::npos);
  Result<std::string> bad = HexDecode("zz", "the seed");
  ASSERT_FALSE(bad.ok());
  EXPECT_EQ(bad.status().code(), Status::Code::kBadInput);
}

}  // namespace
}  // namespace ratchet
