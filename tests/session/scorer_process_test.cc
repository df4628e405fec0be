// ratchet-scorer as a program, and ratchet around it: a file of requests scores on its own, a
// first request that is not "begin" is refused, a tool without its scorer says how to get one,
// and a tool killed mid-run leaves its evidence finished, not half-written, and no scorer behind.
#include <gtest/gtest.h>
#include <signal.h>
#include <spawn.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <thread>

#include "core/canonical_json.h"
#include "core/file.h"
#include "data/keyed_stream.h"
#include "session/request.h"
#include "session/scorer_binary.h"
#include "support/checkout.h"
#include "support/fast_rules.h"
#include "support/processes.h"
#include "support/run_binary.h"
#include "support/temp_dir.h"

extern char** environ;

namespace ratchet {
namespace {

TEST(ScorerProgram, AFirstRequestThatIsNotBeginIsRefused) {
  TempDir dir;
  BinaryRun run = Serve(dir, Request("score", Json::object()));
  EXPECT_EQ(run.exit_code, 2) << run.out << run.err;
  auto answers = Answers(run.out);
  ASSERT_EQ(answers["error"].size(), 1u) << run.out;
  EXPECT_NE(answers["error"][0]["message"].get<std::string>().find("\"begin\""), std::string::npos);
  EXPECT_EQ(answers.count("begun"), 0u);
}

TEST(ScorerProgram, AFileOfRequestsScoresOnItsOwn) {
  if (!HavePython()) GTEST_SKIP() << "no python3 with torch";
  TempDir dir;
  SessionOptions options;
  options.rules_path = FastRules(dir);
  options.out = dir / "evidence";
  options.needs_python = true;
  options.energy = false;
  RecordSpec record;
  record.id = "ncm";
  record.spec = SourceDir() + "/baselines/submissions/ncm.py";
  record.band_bp = 2000;
  // "complete" without records: the report holds what the scorer scored, as it assembles it.
  BinaryRun run = Serve(
      dir,
      Request("begin", SessionOptionsToJson(options)) +
          Request("score", {{"record", RecordSpecToJson(record)}, {"runs", 1}, {"first_run", 1}}) +
          Request("complete", Json::object()));
  auto answers = Answers(run.out);
  ASSERT_EQ(answers["begun"].size(), 1u) << run.out << run.err;
  ASSERT_EQ(answers["scored"].size(), 1u) << run.out;
  ASSERT_EQ(answers["finished"].size(), 1u) << run.out;
  Result<RecordResult> result = RecordResultFromJson(answers["scored"][0]["result"]);
  ASSERT_TRUE(result.ok()) << result.status().ToString();
  const int expected = result->qualified ? 0 : 1;
  EXPECT_EQ(run.exit_code, expected) << run.out;
  EXPECT_EQ(answers["finished"][0]["exit_code"], expected);
  // The progress lines travelled as text for the tool to print.
  const std::string text = TextAnswers(run.out, "out");
  EXPECT_NE(text.find("call  1/4"), std::string::npos) << text;

  const Json status = ReadJson(dir / "evidence/status.json");
  EXPECT_EQ(status["status"], "complete");
  EXPECT_EQ(status["exit_code"], expected);
  const Json report = ReadJson(dir / "evidence/report.json");
  EXPECT_EQ(report["records"]["ncm"], ReportEntryJson(result->ReportOf(2000))) << report;
  const Json contract = ReadJson(dir / "evidence/contract.json");
  EXPECT_EQ(contract, answers["scored"][0]["contract"]);
  // A scorer fed by a file names no tool: nothing asked it.
  EXPECT_TRUE(contract["observed"]["tool"].is_null()) << contract["observed"];
}

// A shard of a run: the tool gives the session its seed, and the scorer scores one run of one
// record. The seed is committed and revealed as a fresh one would be, and the shard's evidence
// audits on its own. A seed that is not 64 hex digits is bad input, before
// any evidence.
TEST(ScorerProgram, AGivenSeedIsCommittedAndRevealedAndTheShardAudits) {
  if (!HavePython()) GTEST_SKIP() << "no python3 with torch";
  TempDir dir;
  SessionOptions options;
  options.rules_path = FastRules(dir);
  options.out = dir / "shard";
  options.needs_python = true;
  options.energy = false;
  options.seed = std::string(64, '5');
  RecordSpec record;
  record.id = "ncm";
  record.spec = SourceDir() + "/baselines/submissions/ncm.py";
  record.band_bp = 2000;
  BinaryRun run = Serve(
      dir, Request("begin", SessionOptionsToJson(options)) +
               Request("score", {{"record", RecordSpecToJson(record)}, {"runs", 1}, {"first_run", 1}}) +
               Request("complete", Json::object()));
  ASSERT_EQ(run.exit_code, 0) << run.out << run.err;
  EXPECT_EQ(*ReadFile(dir / "shard/seed.reveal"), *options.seed + "\n");
  Result<RunSeed> seed = ParseRunSeed(*options.seed, "the seed");
  ASSERT_TRUE(seed.ok());
  EXPECT_EQ(*ReadFile(dir / "shard/seed.commit"), RunSeedSha256(*seed) + "\n");
  BinaryRun audit = RunRatchet({"audit", dir / "shard", "--rules", *options.rules_path});
  EXPECT_EQ(audit.exit_code, 0) << audit.out << audit.err;
  EXPECT_NE(audit.out.find("seed.reveal is the seed seed.commit binds"), std::string::npos)
      << audit.out;

  options.out = dir / "not-begun";
  options.seed = "55";
  run = Serve(dir, Request("begin", SessionOptionsToJson(options)));
  EXPECT_EQ(run.exit_code, 2) << run.out << run.err;
  EXPECT_NE(run.out.find("the session's seed"), std::string::npos) << run.out;
  EXPECT_FALSE(PathExists(dir / "not-begun"));
}

TEST(ScorerProgram, TheToolWithoutItsScorerSaysHowToGetOne) {
  TempDir dir;
  ASSERT_EQ(mkdir((dir / "bin").c_str(), 0755), 0);
  Result<std::string> bytes = ReadFile(RatchetBinary());
  ASSERT_TRUE(bytes.ok());
  ASSERT_TRUE(WriteFileAtomic(dir / "bin/ratchet", *bytes).ok());
  ASSERT_EQ(chmod((dir / "bin/ratchet").c_str(), 0755), 0);
  const std::string command = "'" + (dir / "bin/ratchet") + "' score '" + SourceDir() +
                              "/baselines/submissions/ncm.py' --out '" + (dir / "e") + "' 2> '" +
                              (dir / "stderr") + "'";
  const int status = std::system(command.c_str());
  EXPECT_EQ(WIFEXITED(status) ? WEXITSTATUS(status) : -1, 3);
  const std::string err = TextOf(dir / "stderr");
  EXPECT_NE(err.find("no ratchet-scorer beside"), std::string::npos) << err;
  EXPECT_FALSE(std::filesystem::exists(dir / "e"));
}

// A different tool beside the same scorer (here: ratchet's binary with bytes appended, as a
// rebuilt tool would differ) gives a contract whose locked and lane parts are byte-identical:
// the contract is the scorer's. With the hash test of the sources (contract_test,
// AToolEditLeavesTheScorerHashAndAScorerEditChangesIt), a change to a tool's file re-opens nothing.
TEST(ScorerProgram, AnotherToolBesideTheSameScorerGivesTheSameLockedAndLane) {
  TempDir dir;
  auto contract_with = [&](const std::string& folder, const std::string& appended) {
    EXPECT_EQ(mkdir((dir / folder).c_str(), 0755), 0);
    for (const char* program :
         {"ratchet", "ratchet-scorer", "ratchet-worker", "ratchet-worker.native.json"}) {
      Result<std::string> bytes = ReadFile(DirName(RatchetBinary()) + "/" + program);
      if (!bytes.ok()) continue;  // no native worker where libtorch was not found
      const std::string copy = dir / (folder + "/" + program);
      EXPECT_TRUE(
          WriteFileAtomic(copy, *bytes + (program == std::string("ratchet") ? appended : "")).ok());
      EXPECT_EQ(chmod(copy.c_str(), 0755), 0);
    }
    const std::string command = "RATCHET_WORKER_DIR='" + SourceDir() + "/runner/worker' '" +
                                (dir / (folder + "/ratchet")) + "' contract --json > '" +
                                (dir / (folder + ".json")) + "'";
    EXPECT_EQ(std::system(command.c_str()), 0) << command;
    return ReadJson(dir / (folder + ".json"));
  };
  const Json a = contract_with("a", "");
  const Json b = contract_with("b", std::string(64, '\0'));
  ASSERT_TRUE(a.is_object() && b.is_object());
  EXPECT_EQ(a["locked"].dump(), b["locked"].dump());
  EXPECT_EQ(a["lane"].dump(), b["lane"].dump());
}

TEST(ScorerProgram, ToolKilledMidRunLeavesTheEvidenceFinishedAndNoScorer) {
  if (!HavePython()) GTEST_SKIP() << "no python3 with torch";
  TempDir dir;
  const std::string rules = FastRules(dir);
  const std::string binary = RatchetBinary();
  const std::string spec = SourceDir() + "/baselines/submissions/ncm.py";
  const std::string out = dir / "e";
  std::vector<std::string> args = {binary, "score", spec, "--rules", rules, "--out", out};
  std::vector<char*> argv;
  for (std::string& arg : args) argv.push_back(arg.data());
  argv.push_back(nullptr);
  posix_spawn_file_actions_t actions;
  posix_spawn_file_actions_init(&actions);
  posix_spawn_file_actions_addopen(&actions, 1, "/dev/null", O_WRONLY, 0);
  pid_t tool;
  ASSERT_EQ(posix_spawn(&tool, binary.c_str(), &actions, nullptr, argv.data(), environ), 0);
  posix_spawn_file_actions_destroy(&actions);

  // Once the scorer runs and its evidence folder has begun, the tool dies without a word.
  pid_t scorer = -1;
  for (int i = 0; i < 600 && scorer < 0; ++i) {
    std::this_thread::sleep_for(std::chrono::milliseconds(50));
    for (pid_t child : ChildrenOf(tool)) scorer = child;
  }
  ASSERT_GT(scorer, 0) << "the tool started no scorer";
  // The evidence has begun (".e.partial-N") once the scorer holds the sandbox lock, which another
  // run may hold a while.
  auto begun = [&] {
    for (const auto& entry : std::filesystem::directory_iterator(dir.path())) {
      if (entry.path().filename().string().rfind(".e.partial-", 0) == 0) return true;
    }
    return false;
  };
  for (int i = 0; i < 6000 && !begun(); ++i) {
    std::this_thread::sleep_for(std::chrono::milliseconds(50));
  }
  ASSERT_TRUE(begun()) << "no evidence folder began in 5 minutes";
  std::this_thread::sleep_for(std::chrono::seconds(2));
  ASSERT_EQ(kill(tool, SIGKILL), 0);
  int status = 0;
  waitpid(tool, &status, 0);

  // The scorer is told (SIGTERM, as its parent died), stops the run and finishes the evidence.
  for (int i = 0; i < 1200 && !Gone(scorer); ++i) {
    std::this_thread::sleep_for(std::chrono::milliseconds(100));
  }
  EXPECT_TRUE(Gone(scorer)) << "the scorer " << scorer << " outlived its tool by 2 minutes";
  const Json finished = ReadJson(out + "/status.json");
  EXPECT_EQ(finished["status"], "interrupted") << finished;
  EXPECT_EQ(finished["exit_code"], 130);
}

}  // namespace
}  // namespace ratchet
