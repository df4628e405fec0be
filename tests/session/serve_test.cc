// `ratchet-scorer serve` and its usage as a program: a request it cannot act on (a line that is
// not a message, a body of the wrong shape, a field of the wrong type) ends the run as bad input,
// exit 2, with a message that names the request; never a crash that leaves the evidence partial.
#include <gtest/gtest.h>

#include <filesystem>
#include <string>
#include <vector>

#include "core/canonical_json.h"
#include "session/request.h"
#include "session/scorer_binary.h"
#include "support/fast_rules.h"
#include "support/run_binary.h"
#include "support/temp_dir.h"

namespace ratchet {
namespace {

bool Contains(const std::string& text, const std::string& part) {
  return text.find(part) != std::string::npos;
}

BinaryRun RunScorer(const std::vector<std::string>& args) {
  TempDir dir;
  std::string command = "'" + Scorer() + "'";
  for (const std::string& arg : args) command += " '" + arg + "'";
  command += " > '" + (dir / "out") + "' 2> '" + (dir / "err") + "' < /dev/null";
  const int status = std::system(command.c_str());
  BinaryRun run;
  run.exit_code = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
  run.out = TextOf(dir / "out");
  run.err = TextOf(dir / "err");
  return run;
}

TEST(ScorerServe, ABeginItCannotReadIsRefusedBeforeAnyEvidence) {
  for (const std::string& line :
       {std::string("{\"begin\": 5}\n"), std::string("{\"begin\": {}}\n"),
        std::string("{\"begin\": {\"schema\": 7}}\n"), std::string("begin\n")}) {
    TempDir dir;
    BinaryRun run = Serve(dir, line);
    EXPECT_EQ(run.exit_code, 2) << line << run.out << run.err;
    auto answers = Answers(run.out);
    ASSERT_EQ(answers["error"].size(), 1u) << line << run.out;
    EXPECT_EQ(answers["error"][0]["code"], "bad-input") << line << run.out;
    EXPECT_EQ(answers.count("begun"), 0u) << line;
  }
}

// Each request after a "begin" that succeeds: the session fails as bad input, the folder is
// finished as failed with exit 2, and the person is told which request was wrong.
TEST(ScorerServe, ARequestItCannotReadFailsTheSessionAsBadInput) {
  struct Case {
    std::string line;
    std::string says;
  };
  const std::vector<Case> cases = {
      {"{\"score\": 5}\n", "a malformed \"score\" request: its body is not an object"},
      {"{\"score\": {\"record\": {\"id\": \"a\", \"spec\": \"a.cpp\", \"band_bp\": 100}, "
       "\"runs\": \"two\"}}\n",
       "runs and first_run must be whole numbers"},
      {"{\"complete\": []}\n", "a malformed \"complete\" request: its body is not an object"},
      {"{\"complete\": {\"message\": 5}}\n", "message is not a string"},
      {"{\"complete\": {\"exit_code\": \"0\"}}\n", "exit_code is not an exit code"},
      {"{\"complete\": {\"extra\": 5}}\n", "extra is not an object"},
      {"{\"fail\": \"broken\"}\n", "a malformed \"fail\" request"},
      {"{not json\n", "not an object of one member"},
  };
  for (const Case& request : cases) {
    TempDir dir;
    SessionOptions options;
    options.rules_path = FastRules(dir);
    options.out = dir / "evidence";
    options.energy = false;
    BinaryRun run = Serve(dir, Request("begin", SessionOptionsToJson(options)) + request.line);
    auto answers = Answers(run.out);
    ASSERT_EQ(answers["begun"].size(), 1u) << run.out << run.err;
    EXPECT_EQ(run.exit_code, 2) << request.line << run.out << run.err;
    ASSERT_EQ(answers["finished"].size(), 1u) << request.line << run.out;
    EXPECT_EQ(answers["finished"][0]["exit_code"], 2) << request.line;
    const std::string err = TextAnswers(run.out, "err");
    EXPECT_TRUE(Contains(err, request.says)) << request.line << err;
    const Json status = ReadJson(dir / "evidence/status.json");
    EXPECT_EQ(status["status"], "failed") << request.line << status;
    EXPECT_EQ(status["exit_code"], 2) << request.line << status;
  }
}

TEST(ScorerServe, ServeSaysItTakesNoArguments) {
  BinaryRun run = RunScorer({"serve", "requests.jsonl"});
  EXPECT_EQ(run.exit_code, 2);
  EXPECT_TRUE(Contains(run.err, "serve: takes no arguments, not 'requests.jsonl'")) << run.err;
  EXPECT_FALSE(Contains(run.err, "unknown command")) << run.err;
}

// The usage names every option the scorer's commands take: contract's tool identity among them.
TEST(ScorerServe, UsageNamesTheOptionsOfEveryCommand) {
  BinaryRun run = RunScorer({"--help"});
  EXPECT_EQ(run.exit_code, 0);
  for (const char* option : {"--json", "--data", "--rules", "--python", "--tool-version",
                             "--tool-source-sha256", "--runs", "--out"}) {
    EXPECT_TRUE(Contains(run.out, option)) << option << "\n" << run.out;
  }
}

}  // namespace
}  // namespace ratchet
