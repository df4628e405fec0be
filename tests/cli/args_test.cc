#include "core/args.h"

#include <gtest/gtest.h>

namespace ratchet {
namespace {

const std::vector<OptionSpec> kSpecs = {
    {"json", false}, {"data", true}, {"record", true, /*repeatable=*/true}};

TEST(ArgsTest, ValuesFlagsAndPositionals) {
  Result<Args> args =
      Args::Parse({"a", "--data", "/d", "--json", "--record=x", "--record", "y", "b"}, kSpecs);
  ASSERT_TRUE(args.ok()) << args.status().message();
  EXPECT_EQ(args->Get("data"), "/d");
  EXPECT_TRUE(args->Has("json"));
  EXPECT_EQ(args->GetAll("record"), (std::vector<std::string>{"x", "y"}));
  EXPECT_EQ(args->positional(), (std::vector<std::string>{"a", "b"}));
}

TEST(ArgsTest, UsageErrorsNameTheOption) {
  struct Case {
    std::vector<std::string> argv;
    std::string expected;
  };
  for (const Case& c : std::vector<Case>{{{"--bogus"}, "--bogus"},
                                         {{"--data"}, "--data needs a value"},
                                         {{"--json=1"}, "--json takes no value"},
                                         {{"--data", "a", "--data", "b"}, "--data given twice"},
                                         {{"-x"}, "-x"}}) {
    Result<Args> args = Args::Parse(c.argv, kSpecs);
    ASSERT_FALSE(args.ok());
    EXPECT_EQ(args.status().code(), Status::Code::kUsage);
    EXPECT_NE(args.status().message().find(c.expected), std::string::npos)
        << args.status().message();
  }
}

TEST(ArgsTest, DoubleDashEndsOptions) {
  Result<Args> args = Args::Parse({"--", "--json"}, kSpecs);
  ASSERT_TRUE(args.ok());
  EXPECT_FALSE(args->Has("json"));
  EXPECT_EQ(args->positional(), (std::vector<std::string>{"--json"}));
}

}  // namespace
}  // namespace ratchet
