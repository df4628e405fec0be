#include "core/canonical_json.h"

#include <gtest/gtest.h>

#include <cmath>
#include <limits>

namespace ratchet {
namespace {

std::string Canonical(const Json& value) {
  Result<std::string> text = CanonicalJson(value);
  EXPECT_TRUE(text.ok()) << text.status().message();
  return text.ok() ? *text : "";
}

TEST(CanonicalJsonTest, SortedKeysNoWhitespace) {
  Json value = Json::parse(R"({"b": [1, 2, {"z": null, "a": true}], "a": "x"})");
  EXPECT_EQ(Canonical(value), R"({"a":"x","b":[1,2,{"a":true,"z":null}]})");
}

TEST(CanonicalJsonTest, EqualObjectsHashEqually) {
  Result<std::string> a = CanonicalSha256(Json::parse(R"({"ms": 2.0, "k": [0.5, -0.0]})"));
  Result<std::string> b = CanonicalSha256(Json::parse("{\n \"k\": [5e-1, 0], \"ms\": 2\n}"));
  ASSERT_TRUE(a.ok() && b.ok());
  EXPECT_EQ(*a, *b);
}

TEST(CanonicalJsonTest, NumberFormat) {
  EXPECT_EQ(Canonical(Json(2.0)), "2");
  EXPECT_EQ(Canonical(Json(-0.0)), "0");
  EXPECT_EQ(Canonical(Json(0.1)), "0.1");
  EXPECT_EQ(Canonical(Json(61.280137840387)), "61.280137840387");
  EXPECT_EQ(Canonical(Json(1e-5)), "1e-05");
  EXPECT_EQ(Canonical(Json(1e300)), "1e+300");
  EXPECT_EQ(Canonical(Json(int64_t{-12})), "-12");
  EXPECT_EQ(Canonical(Json(uint64_t{18446744073709551615u})), "18446744073709551615");
  // The shortest form still reads back to the same double.
  double x = 2131.4053467988415;
  EXPECT_EQ(std::stod(Canonical(Json(x))), x);
}

TEST(CanonicalJsonTest, RefusesNonFiniteAndNamesThePath) {
  Json value = {{"calls", Json::array({Json{{"ms", std::numeric_limits<double>::quiet_NaN()}}})}};
  Result<std::string> text = CanonicalJson(value);
  ASSERT_FALSE(text.ok());
  EXPECT_NE(text.status().message().find("calls[0].ms"), std::string::npos)
      << text.status().message();
}

TEST(CanonicalJsonTest, StringsEscaped) {
  EXPECT_EQ(Canonical(Json("a\"b\\c\n\u00e9")), "\"a\\\"b\\\\c\\n\u00e9\"");
  Result<std::string> bad = CanonicalJson(Json(std::string("\xff\xfe")));
  EXPECT_FALSE(bad.ok());
}

TEST(ParseJsonTest, ErrorNamesTheSourceAndByte) {
  Result<Json> parsed = ParseJson("{\"a\": 1,,}", "records.json");
  ASSERT_FALSE(parsed.ok());
  EXPECT_EQ(parsed.status().code(), Status::Code::kBadInput);
  EXPECT_NE(parsed.status().message().find("records.json"), std::string::npos);
  EXPECT_NE(parsed.status().message().find("at byte 9"), std::string::npos)
      << parsed.status().message();
}

TEST(ParseJsonTest, AKeyNamedTwiceInOneObjectIsBadInput) {
  Result<Json> parsed = ParseJson(R"({"a": {"b": 1, "b": 2}})", "records.json");
  ASSERT_FALSE(parsed.ok());
  EXPECT_EQ(parsed.status().code(), Status::Code::kBadInput);
  EXPECT_NE(parsed.status().message().find("records.json"), std::string::npos);
  EXPECT_EQ(parsed.status().message(), "records.json: field \"a.b\" appears twice");
  // The same key in two objects, nested or side by side, is fine.
  EXPECT_TRUE(ParseJson(R"({"b": {"b": 1}, "c": [{"b": 1}, {"b": 2}]})", "x").ok());
}

TEST(ParseJsonTest, NumberTooLargeForADoubleIsBadInputNamingTheSource) {
  // nlohmann::json reports this as out_of_range, not parse_error: it must still be an error
  // value, never an exception that ends the program.
  Result<Json> parsed = ParseJson("{\"band_bp\": 1e400}", "rules.json");
  ASSERT_FALSE(parsed.ok());
  EXPECT_EQ(parsed.status().code(), Status::Code::kBadInput);
  EXPECT_EQ(parsed.status().message().rfind("rules.json is not valid JSON", 0), 0u)
      << parsed.status().message();
  EXPECT_NE(parsed.status().message().find("1e400"), std::string::npos)
      << parsed.status().message();
}

// A byte-order mark would make two byte strings (with it and without) read as one document.
TEST(ParseJsonTest, AByteOrderMarkIsBadInputNamingTheSource) {
  Result<Json> parsed = ParseJson("\xEF\xBB\xBF{\"a\": 1}", "claim.json");
  ASSERT_FALSE(parsed.ok());
  EXPECT_EQ(parsed.status().code(), Status::Code::kBadInput);
  EXPECT_EQ(parsed.status().message(),
            "claim.json starts with a UTF-8 byte-order mark; save it as UTF-8 without one");
  // The same bytes elsewhere are only the character U+FEFF in a string.
  EXPECT_EQ((*ParseJson("{\"a\": \"\xEF\xBB\xBF\"}", "claim.json"))["a"], "\xEF\xBB\xBF");
}

}  // namespace
}  // namespace ratchet
