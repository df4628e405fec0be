#include "evidence/layout.h"

#include <gtest/gtest.h>

#include "core/sha256.h"

namespace ratchet {
namespace {

TEST(EvidencePathTest, AcceptsPlainRelativeNames) {
  for (const char* path : {"contract.json", "records/ncm/run-1/labels/01.u8",
                           "records/user@board=v2+fast/run-3/submission/my_method-1.py"}) {
    EXPECT_TRUE(CheckEvidencePath(path).ok()) << path;
  }
}

TEST(EvidencePathTest, RefusesEscapesHiddenNamesAndOddCharacters) {
  for (const std::string& path :
       {std::string(""), std::string("/abs"), std::string("a/../b"), std::string(".."),
        std::string("a/./b"), std::string("a//b"), std::string("a/"), std::string(".hidden"),
        std::string("a b"), std::string("a\\b"), std::string("a\nb"), std::string("caf\xc3\xa9"),
        std::string(256, 'x'), std::string("a\0b", 3)}) {
    EXPECT_FALSE(CheckEvidencePath(path).ok()) << path;
  }
  Status status = CheckEvidencePath("records/a b/run-1");
  EXPECT_EQ(status.code(), Status::Code::kBadInput);
  EXPECT_EQ(status.message(),
            "the evidence path \"records/a b/run-1\" holds the character 0x20; names use only "
            "A-Z a-z 0-9 . _ + @ = -");
}

TEST(EvidencePathTest, RunFoldersAndCallNumbers) {
  EXPECT_EQ(RunFolder("ncm", 2), "records/ncm/run-2");
  EXPECT_EQ(CallNumber(1), "01");
  EXPECT_EQ(CallNumber(15), "15");
}

TEST(RunStatusTest, RoundTripsAndIsStrict) {
  Result<std::string> text =
      EvidenceJsonText(RunStatusJson({"failed", 3, "no GPU"}), "status.json");
  ASSERT_TRUE(text.ok());
  Result<RunStatusFile> parsed = ParseRunStatus(*text, "status.json");
  ASSERT_TRUE(parsed.ok()) << parsed.status().message();
  EXPECT_EQ(parsed->status, "failed");
  EXPECT_EQ(parsed->exit_code, 3);
  EXPECT_EQ(parsed->message, "no GPU");
  for (const char* bad :
       {"{\"schema\":\"ratchet.status/1\",\"status\":\"done\",\"exit_code\":0,\"message\":\"\"}",
        "{\"schema\":\"ratchet.status/"
        "1\",\"status\":\"complete\",\"exit_code\":-1,\"message\":\"\"}",
        "{\"schema\":\"ratchet.status/"
        "1\",\"status\":\"complete\",\"exit_code\":0.5,\"message\":\"\"}",
        "{\"schema\":\"ratchet.status/"
        "2\",\"status\":\"complete\",\"exit_code\":0,\"message\":\"\"}",
        "{\"schema\":\"ratchet.status/1\",\"status\":\"complete\",\"exit_code\":0,\"message\":\"\","
        "\"extra\":1}",
        "{\"schema\":\"ratchet.status/1\",\"status\":\"complete\",\"exit_code\":0}", "[]"}) {
    Result<RunStatusFile> refused = ParseRunStatus(bad, "status.json");
    ASSERT_FALSE(refused.ok()) << bad;
    EXPECT_EQ(refused.status().message().rfind("status.json", 0), 0u) << refused.status().message();
  }
}

TEST(SeedFileTest, SixtyFourLowercaseHexDigitsAndANewline) {
  const std::string hex(64, 'a');
  EXPECT_EQ(*ParseSeedFile(hex + "\n", "seed.commit"), hex);
  EXPECT_FALSE(ParseSeedFile(hex, "seed.commit").ok());
  EXPECT_FALSE(ParseSeedFile(std::string(64, 'A') + "\n", "seed.commit").ok());
  EXPECT_FALSE(ParseSeedFile(std::string(62, 'a') + "\n", "seed.commit").ok());
  EXPECT_FALSE(ParseSeedFile(hex + "\n\n", "seed.commit").ok());
}

TEST(SeedFileTest, ARevealMatchesTheSha256OfItsBytes) {
  // sha256 of 32 zero bytes.
  const std::string zeros(64, '0');
  EXPECT_TRUE(
      SeedMatchesCommit(zeros, "66687aadf862bd776c8fc18b8e9f8e20089714856ee233b3902a591d0d5f2925"));
  EXPECT_FALSE(
      SeedMatchesCommit(zeros, "66687aadf862bd776c8fc18b8e9f8e20089714856ee233b3902a591d0d5f2926"));
  // The hash of the hex text is not the commitment.
  EXPECT_FALSE(SeedMatchesCommit(zeros, Sha256Hex(zeros)));
}

}  // namespace
}  // namespace ratchet
