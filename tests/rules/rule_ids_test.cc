// The one list of rule ids (rules/rule_ids.h) holds every rule the judge and the run loop can
// break. The test reads the sources under runner/ rather than a copy of the list: each rule
// constant is defined in rule_ids.h and listed there, and a rule spelled as a string literal
// where a failure or a problem is made is a listed one.
#include "rules/rule_ids.h"

#include <gtest/gtest.h>

#include <cstdlib>
#include <filesystem>
#include <map>
#include <regex>
#include <set>
#include <string>

#include "core/file.h"

namespace ratchet {
namespace {

std::string RunnerDir() {
  const char* source = std::getenv("RATCHET_SOURCE_DIR");
  return (source != nullptr && *source != '\0' ? std::string(source)
                                               : std::string(RATCHET_RULES_DIR) + "/../..") +
         "/runner";
}

std::string Read(const std::string& path) {
  Result<std::string> text = ReadFile(path);
  EXPECT_TRUE(text.ok()) << text.status().message();
  return text.ok() ? *text : "";
}

// Every match of `pattern`'s first group in `text`.
std::vector<std::string> Matches(const std::string& text, const std::regex& pattern) {
  std::vector<std::string> found;
  for (auto it = std::sregex_iterator(text.begin(), text.end(), pattern);
       it != std::sregex_iterator(); ++it) {
    found.push_back((*it)[1]);
  }
  return found;
}

// The constants rule_ids.h defines: name -> id.
std::map<std::string, std::string> RuleConstants() {
  static const std::regex kDefinition(R"(\b(kRule[A-Z]\w*)\[\]\s*=\s*"([^"]*)\")");
  const std::string header = Read(RunnerDir() + "/rules/rule_ids.h");
  std::map<std::string, std::string> constants;
  for (auto it = std::sregex_iterator(header.begin(), header.end(), kDefinition);
       it != std::sregex_iterator(); ++it) {
    constants[(*it)[1]] = (*it)[2];
  }
  return constants;
}

TEST(RuleIds, EveryRuleConstantIsListed) {
  const std::map<std::string, std::string> constants = RuleConstants();
  ASSERT_FALSE(constants.empty()) << "no rule constant found in " << RunnerDir();
  std::set<std::string> ids;
  for (const auto& [name, id] : constants) {
    EXPECT_TRUE(KnownRuleId(id)) << name << " (\"" << id << "\") is not in the list";
    EXPECT_TRUE(ids.insert(id).second) << "\"" << id << "\" is defined twice";
    EXPECT_NE(IsJudgeRule(id), IsRunLoopRule(id)) << id << " is the judge's or the run loop's";
  }
  EXPECT_EQ(ids.size(), std::size(kJudgeRules) + std::size(kRunLoopRules));
}

TEST(RuleIds, EveryRuleTheSourcesBreakIsListed) {
  const std::map<std::string, std::string> constants = RuleConstants();
  // A rule constant named anywhere; a literal where a failure or a problem is made.
  static const std::regex kConstant(R"(\b(kRule[A-Z]\w*)\b)");
  static const std::regex kLiteral(
      R"((?:CallFailure\{|Problem\{|\badd\(|\.rule\s*=\s*|\brule\s*[!=]=\s*)\s*"([^"]*)\")");
  size_t files = 0;
  std::set<std::string> named;
  for (const auto& entry : std::filesystem::recursive_directory_iterator(RunnerDir())) {
    const std::string path = entry.path().string();
    const std::string extension = entry.path().extension().string();
    if (!entry.is_regular_file() || (extension != ".cc" && extension != ".h")) continue;
    if (entry.path().filename() == "rule_ids.h") continue;
    ++files;
    const std::string text = Read(path);
    for (const std::string& name : Matches(text, kConstant)) {
      named.insert(name);
      EXPECT_TRUE(constants.count(name)) << path << ": " << name << " is not in rule_ids.h";
    }
    for (const std::string& id : Matches(text, kLiteral)) {
      EXPECT_TRUE(KnownRuleId(id)) << path << ": the rule \"" << id << "\" is not in rule_ids.h";
    }
  }
  EXPECT_GT(files, 100u);
  // And the other way: each listed rule is named where it is broken.
  for (const auto& [name, id] : constants) {
    EXPECT_TRUE(named.count(name)) << name << " (\"" << id << "\") is broken nowhere";
  }
}

TEST(RuleIds, KnownIdsAndTheirText) {
  EXPECT_TRUE(KnownRuleId("accuracy"));
  EXPECT_TRUE(KnownRuleId("compile-output"));
  EXPECT_FALSE(KnownRuleId("acuracy"));
  EXPECT_FALSE(KnownRuleId(""));
  EXPECT_TRUE(IsRunLoopRule("crash"));
  EXPECT_FALSE(IsRunLoopRule("accuracy"));
  const std::string text = RuleIdsText();
  EXPECT_EQ(text.rfind("timing-call, timing-group, ", 0), 0u) << text;
  EXPECT_NE(text.find(", dispersion-fast, source, "), std::string::npos) << text;
  EXPECT_EQ(RunLoopRuleIdsText().rfind("source, import, ", 0), 0u);
}

}  // namespace
}  // namespace ratchet
