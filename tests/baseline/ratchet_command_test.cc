// Black-box tests of `ratchet run --baseline` and `ratchet promote`: bad input, the whole review
// cycle (run, promote, run again), every locked field and a rule constant of each kind changed,
// a baseline never half-written, and a run interrupted or killed. Runs use the fast rule set
// (fewer, shorter calls) and records that are quick to score.
#include <gtest/gtest.h>
#include <set>
#include <signal.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <filesystem>
#include <functional>
#include <thread>

#include "baseline/baseline.h"
#include "contract/python.h"
#include "core/file.h"
#include "core/sha256.h"
#include "evidence/reader.h"
#include "support/checkout.h"
#include "support/fast_rules.h"
#include "support/processes.h"
#include "support/rule_constants.h"
#include "support/run_binary.h"
#include "support/temp_dir.h"

extern char** environ;

namespace ratchet {
namespace {

bool Contains(const std::string& text, const std::string& needle) {
  return text.find(needle) != std::string::npos;
}

// A folder with the fast rule set, submissions copied beside a records.json whose contract is
// this machine's under those rules, and the records given (unreviewed unless they say).
class Workspace {
 public:
  explicit Workspace(const Json& records) {
    rules_ = FastRules(dir_);
    std::filesystem::create_directories(dir_ / "submissions");
    for (const char* file : {"baselines/submissions/ncm.py", "tests/submissions/syntax_error.py"}) {
      std::filesystem::copy_file(SourceDir() + "/" + file,
                                 dir_ / ("submissions/" + BaseName(file)));
    }
    BinaryRun contract = RunRatchet({"contract", "--json", "--rules", rules_});
    EXPECT_EQ(contract.exit_code, 0) << contract.err;
    locked_ = Json::parse(contract.out)["locked"];
    Write({{"schema", "ratchet.baseline/1"},
           {"contract", {{"locked", locked_}, {"rule_set", FastRulesJson()}}},
           {"lanes", Json::object()},
           {"records", records}});
  }

  void Write(const Json& doc) { ASSERT_TRUE(WriteFileAtomic(baseline(), doc.dump(2) + "\n").ok()); }
  Json Read() const { return Json::parse(*ReadFile(baseline())); }

  BinaryRun Run(std::vector<std::string> extra = {}) {
    std::vector<std::string> args = {"run",
                                     "--baseline",
                                     baseline(),
                                     "--rules",
                                     rules_,
                                     "--out",
                                     dir_ / ("evidence-" + std::to_string(++runs_))};
    args.insert(args.end(), extra.begin(), extra.end());
    return RunRatchet(args);
  }
  std::string last_evidence() const { return dir_ / ("evidence-" + std::to_string(runs_)); }

  std::string baseline() const { return dir_ / "records.json"; }
  const std::string& rules() const { return rules_; }
  const Json& locked() const { return locked_; }
  const TempDir& dir() const { return dir_; }

 private:
  TempDir dir_;
  std::string rules_;
  Json locked_;
  int runs_ = 0;
};

// Every core of the machine kept busy by a sibling process spinning, for as long as it lives: the
// load of a shared CI runner.
class BusyCores {
 public:
  BusyCores() {
    const unsigned cores = std::max(1u, std::thread::hardware_concurrency());
    for (unsigned i = 0; i < cores; ++i) {
      const pid_t pid = fork();
      if (pid == 0) {
        for (volatile unsigned long spin = 0;; spin = spin + 1) {
        }
      }
      if (pid > 0) children_.push_back(pid);
    }
  }
  ~BusyCores() {
    for (pid_t pid : children_) kill(pid, SIGKILL);
    for (pid_t pid : children_) waitpid(pid, nullptr, 0);
  }
  size_t size() const { return children_.size(); }

 private:
  std::vector<pid_t> children_;
};

Json SourceRecord(bool reviewed) {
  Json record = {{"submission", "submissions/syntax_error.py"}, {"difficulty", 1}};
  if (reviewed) {
    record["expected"] = {{"status", "disqualified"}, {"broken", {"source"}}};
    record["reason"] = "the file does not parse";
    record["sha256"] = *Sha256File(SourceDir() + "/tests/submissions/syntax_error.py");
  }
  return record;
}

TEST(RatchetRunTest, BadInputExitsTwoAndSaysWhat) {
  TempDir dir;
  BinaryRun run = RunRatchet({"run"});
  EXPECT_EQ(run.exit_code, 2);
  EXPECT_TRUE(Contains(run.err, "--baseline FILE")) << run.err;

  run = RunRatchet({"run", "--baseline", dir / "records.json"});
  EXPECT_EQ(run.exit_code, 2);
  EXPECT_TRUE(Contains(run.err, dir / "records.json")) << run.err;

  ASSERT_TRUE(WriteFileAtomic(dir / "bad.json", "{\"schema\": \"ratchet.baseline/1\",").ok());
  run = RunRatchet({"run", "--baseline", dir / "bad.json"});
  EXPECT_EQ(run.exit_code, 2);
  EXPECT_TRUE(Contains(run.err, dir / "bad.json")) << run.err;

  Json doc = {{"schema", "ratchet.baseline/1"},
              {"contract", {{"locked", Json::object()}}},
              {"records", {{"gone", {{"submission", "submissions/gone.py"}, {"band_bp", 2000}}}}}};
  ASSERT_TRUE(WriteFileAtomic(dir / "records.json", doc.dump()).ok());
  run = RunRatchet({"run", "--baseline", dir / "records.json"});
  EXPECT_EQ(run.exit_code, 2);
  EXPECT_TRUE(Contains(run.err, "record \"gone\": its submission")) << run.err;
  EXPECT_TRUE(Contains(run.err, "submissions/gone.py")) << run.err;

  run = RunRatchet({"run", "--baseline", dir / "records.json", "--record", "nope"});
  EXPECT_EQ(run.exit_code, 2);
  EXPECT_TRUE(Contains(run.err, "no record \"nope\"")) << run.err;
  EXPECT_FALSE(std::filesystem::exists(dir / "evidence")) << "no evidence for bad input";
}

TEST(RatchetRunTest, TheReviewCycle) {
  if (!HavePython()) GTEST_SKIP() << "no python3 that imports torch";
  Workspace space(Json{{"ncm", {{"submission", "submissions/ncm.py"}, {"band_bp", 3000}}},
                       {"broken", SourceRecord(false)}});
  // Never reviewed: both records are errors, the evidence is complete all the same.
  BinaryRun run = space.Run();
  ASSERT_EQ(run.exit_code, 1) << run.out << run.err;
  EXPECT_TRUE(Contains(run.out, "record-unreviewed ncm")) << run.out;
  EXPECT_TRUE(Contains(run.out, "record-unreviewed broken")) << run.out;
  const std::string first = space.last_evidence();
  Result<EvidenceSummary> evidence = ReadEvidence(first);
  ASSERT_TRUE(evidence.ok());
  EXPECT_TRUE(evidence->complete);
  EXPECT_EQ(evidence->exit_code, 1);

  const std::string before = *ReadFile(space.baseline());
  run =
      RunRatchet({"promote", "--baseline", space.baseline(), "--evidence", first, "--all-changed"});
  EXPECT_EQ(run.exit_code, 2);
  EXPECT_TRUE(Contains(run.err, "--reason")) << run.err;
  run = RunRatchet({"promote", "--baseline", space.baseline(), "--evidence", first, "--record",
                    "ncm", "--reason", " "});
  EXPECT_EQ(run.exit_code, 2);
  EXPECT_EQ(*ReadFile(space.baseline()), before);

  run = RunRatchet({"promote", "--baseline", space.baseline(), "--evidence", first, "--all-changed",
                    "--reason", "reviewed by the test", "--reviewer", "the test"});
  ASSERT_EQ(run.exit_code, 0) << run.out << run.err;
  Json doc = space.Read();
  EXPECT_EQ(doc["records"]["ncm"]["expected"]["status"], "qualified");
  EXPECT_EQ(doc["records"]["broken"]["expected"]["broken"], Json({"source"}));
  EXPECT_EQ(doc["records"]["ncm"]["reviewed_by"], "the test");
  EXPECT_EQ(doc["records"]["ncm"]["reason"], "reviewed by the test");
  const std::string copied = doc["records"]["ncm"]["evidence"]["path"];
  EXPECT_EQ(copied, "evidence-1") << "evidence inside the baseline's folder stays where it is";
  EXPECT_EQ(doc["records"]["ncm"]["evidence"]["manifest_sha256"], evidence->manifest_sha256);
  EXPECT_EQ(doc["lanes"].size(), 1u);
  EXPECT_TRUE(ParseBaseline(*ReadFile(space.baseline()), "records.json").ok());

  // As reviewed now, on a machine whose every core is busy with other work: on this CPU lane,
  // whatever the load does to the calls' timing rules, the run passes.
  {
    BusyCores busy;
    ASSERT_GT(busy.size(), 0u);
    run = space.Run();
  }
  ASSERT_EQ(run.exit_code, 0) << run.out << run.err;
  EXPECT_TRUE(Contains(run.out, "ok: every record")) << run.out;

  // An outcome that differs from the reviewed one by timing rules alone is scored once more, and
  // the second outcome is the one compared. The reviewed outcome here is one no scoring of ncm
  // gives by chance (three timing rules at once), so both scorings differ from it, whatever a
  // busy machine did to either: on this CPU lane, whose timings are never compared, a note
  // naming the rules and both scorings, not an error.
  Json reviewed = space.Read();
  Json doc_timing = reviewed;
  doc_timing["records"]["ncm"]["expected"] = {
      {"status", "disqualified"},
      {"broken", {"dispersion-fast", "dispersion-slow", "timing-call"}}};
  doc_timing["records"]["ncm"]["reason"] = "a test of the second scoring";
  // Written by hand, not promoted: reviewed evidence would give the outcome it was promoted with.
  for (const char* field : {"evidence", "reviewed_by", "reviewed_commit", "reviewed_clean"}) {
    doc_timing["records"]["ncm"].erase(field);
  }
  space.Write(doc_timing);
  run = space.Run();
  EXPECT_EQ(run.exit_code, 0) << run.out << run.err;
  EXPECT_TRUE(Contains(run.out, "timing rules alone differ: scoring it again")) << run.out;
  EXPECT_TRUE(Contains(run.out, "ncm: timing rules alone (")) << run.out;
  EXPECT_TRUE(Contains(run.out,
                       ") on a CPU lane: expected disqualified (dispersion-fast, "
                       "dispersion-slow, timing-call), scored "))
      << run.out;
  EXPECT_TRUE(Contains(run.out, " and again ")) << run.out;
  EXPECT_TRUE(Contains(run.out, "load average was ")) << run.out;
  Result<std::string> report = ReadFile(space.last_evidence() + "/report.json");
  ASSERT_TRUE(report.ok());
  EXPECT_TRUE(Json::parse(*report)["records"]["ncm"].contains("rerun")) << *report;
  // A rule that does not time the calls among the differences: outcome-changed, on any lane.
  doc_timing["records"]["ncm"]["expected"]["broken"] = {"accuracy", "dispersion-slow"};
  space.Write(doc_timing);
  run = space.Run();
  EXPECT_EQ(run.exit_code, 1) << run.out << run.err;
  EXPECT_TRUE(Contains(run.out,
                       "outcome-changed ncm: expected disqualified (accuracy, dispersion-slow), "
                       "scored "))
      << run.out;
  space.Write(reviewed);

  // The first evidence was compared with the baseline as it was: promote refuses it now.
  const std::string promoted = *ReadFile(space.baseline());
  run = RunRatchet({"promote", "--baseline", space.baseline(), "--evidence", first, "--record",
                    "ncm", "--reason", "again", "--reviewer", "the test"});
  EXPECT_EQ(run.exit_code, 1);
  EXPECT_TRUE(Contains(run.err, "has changed since")) << run.err;
  // Evidence of `ratchet score` was never compared with a baseline.
  BinaryRun score = RunRatchet(
      {"score", space.dir() / "submissions/syntax_error.py", "--out", space.dir() / "scored"});
  EXPECT_EQ(score.exit_code, 1) << score.err;
  run = RunRatchet({"promote", "--baseline", space.baseline(), "--evidence", space.dir() / "scored",
                    "--record", "ncm", "--reason", "r", "--reviewer", "t"});
  EXPECT_EQ(run.exit_code, 1);
  EXPECT_TRUE(Contains(run.err, "was not compared with a baseline")) << run.err;
  EXPECT_EQ(*ReadFile(space.baseline()), promoted);

  // A changed submission and an outcome that moved are errors with their codes.
  ASSERT_TRUE(
      WriteFileAtomic(space.dir() / "submissions/ncm.py",
                      *ReadFile(SourceDir() + "/baselines/submissions/ncm.py") + "\n# edited\n")
          .ok());
  doc = space.Read();
  doc["records"]["broken"]["expected"] = {{"status", "disqualified"}, {"broken", {"timeout"}}};
  space.Write(doc);
  run = space.Run();
  EXPECT_EQ(run.exit_code, 1) << run.out << run.err;
  EXPECT_TRUE(Contains(run.out, "submission-changed ncm")) << run.out;
  EXPECT_TRUE(Contains(run.out, "outcome-changed broken")) << run.out;

  // Promoting from evidence that lives elsewhere copies it beside the baseline.
  TempDir elsewhere;
  run = RunRatchet({"run", "--baseline", space.baseline(), "--rules", space.rules(), "--out",
                    elsewhere / "run", "--record", "broken", "--json"});
  ASSERT_EQ(run.exit_code, 1) << run.err;
  Json result = Json::parse(run.out);
  EXPECT_EQ(result["errors"][0]["code"], "outcome-changed");
  run = RunRatchet({"promote", "--baseline", space.baseline(), "--evidence", elsewhere / "run",
                    "--record", "broken", "--reason", "does not parse", "--reviewer", "t"});
  ASSERT_EQ(run.exit_code, 0) << run.out << run.err;
  doc = space.Read();
  EXPECT_EQ(doc["records"]["broken"]["evidence"]["path"], "evidence/run");
  Result<EvidenceSummary> copy = ReadEvidence(space.dir() / "evidence/run");
  ASSERT_TRUE(copy.ok());
  EXPECT_TRUE(copy->complete);
  EXPECT_TRUE(copy->findings.empty());
}

// What a review found wanting: damaged reviewed evidence, bad records refused before any
// evidence, a promote that fails leaving nothing behind, and an unreviewed lane promoted alone.
TEST(RatchetRunTest, RefusalsAndRepairs) {
  if (!HavePython()) GTEST_SKIP() << "no python3 that imports torch";
  Workspace space(Json{{"broken", SourceRecord(true)}});
  BinaryRun run = space.Run({"--require-lane"});
  ASSERT_EQ(run.exit_code, 1) << run.out << run.err;
  EXPECT_TRUE(Contains(run.out, "lane-unreviewed")) << run.out;
  // An expected outcome written by hand, with no evidence behind it, is said.
  EXPECT_TRUE(Contains(run.out, "broken: its expected outcome was written by hand")) << run.out;
  const std::string compared = space.last_evidence();

  // --all-changed with no record changed still reviews the lane.
  run = RunRatchet({"promote", "--baseline", space.baseline(), "--evidence", compared,
                    "--all-changed", "--reason", "this machine's lane", "--reviewer", "t"});
  ASSERT_EQ(run.exit_code, 0) << run.out << run.err;
  EXPECT_TRUE(Contains(run.out, "reviewed lane")) << run.out;
  run = space.Run({"--require-lane"});
  ASSERT_EQ(run.exit_code, 0) << run.out << run.err;

  // A promote whose baseline cannot be written (a reason that is not UTF-8) copies nothing, and
  // the same promote with a good reason then works.
  TempDir elsewhere;
  run = RunRatchet({"run", "--baseline", space.baseline(), "--rules", space.rules(), "--out",
                    elsewhere / "run"});
  ASSERT_EQ(run.exit_code, 0) << run.out << run.err;
  const std::string before = *ReadFile(space.baseline());
  run = RunRatchet({"promote", "--baseline", space.baseline(), "--evidence", elsewhere / "run",
                    "--record", "broken", "--reason", "bad \xff byte", "--reviewer", "t"});
  EXPECT_NE(run.exit_code, 0);
  EXPECT_EQ(*ReadFile(space.baseline()), before);
  EXPECT_FALSE(std::filesystem::exists(space.dir() / "evidence/run")) << run.out;
  run = RunRatchet({"promote", "--baseline", space.baseline(), "--evidence", elsewhere / "run",
                    "--record", "broken", "--reason", "does not parse", "--reviewer", "t"});
  ASSERT_EQ(run.exit_code, 0) << run.out << run.err;

  // Reviewed evidence with a file removed is evidence-incomplete.
  std::filesystem::remove(space.dir() / "evidence/run/records/broken/run-1/calls.json");
  run = space.Run();
  EXPECT_EQ(run.exit_code, 1) << run.out << run.err;
  EXPECT_TRUE(Contains(run.out, "evidence-incomplete broken")) << run.out;
  // In plain words: the run finished, but a file is not what its manifest lists.
  EXPECT_TRUE(Contains(run.out,
                       "does not verify: it says complete, but 1 file is not as its "
                       "manifest lists them (records/broken/run-1/calls.json: "))
      << run.out;

  // So is a promoted record whose reference to its evidence was deleted from the baseline.
  Json without = space.Read();
  ASSERT_TRUE(without["records"]["broken"].contains("evidence"));
  without["records"]["broken"].erase("evidence");
  space.Write(without);
  run = space.Run();
  EXPECT_EQ(run.exit_code, 1) << run.out << run.err;
  EXPECT_TRUE(Contains(run.out, "evidence-incomplete broken: it was promoted")) << run.out;

  // Records that could only fail before a worker are refused before any evidence is written.
  Json doc = space.Read();
  ASSERT_TRUE(WriteFileAtomic(space.dir() / "submissions/notes.txt", "not a method").ok());
  doc["records"]["text"] = {{"submission", "submissions/notes.txt"}, {"band_bp", 2000}};
  space.Write(doc);
  run = space.Run();
  EXPECT_EQ(run.exit_code, 2) << run.out << run.err;
  EXPECT_TRUE(Contains(run.err, "record \"text\": submissions/notes.txt is neither")) << run.err;
  EXPECT_FALSE(std::filesystem::exists(space.last_evidence()));
  run = space.Run({"--record", "broken", "--record", "broken"});
  EXPECT_EQ(run.exit_code, 2) << run.err;
  EXPECT_TRUE(Contains(run.err, "--record broken is given twice")) << run.err;
}

// Every field of the locked contract, changed in the baseline, fails the run with
// contract-changed naming that field.
TEST(RatchetRunTest, EveryLockedFieldChangedIsContractChanged) {
  if (!HavePython()) GTEST_SKIP() << "no python3 that imports torch";
  Workspace space(Json{{"broken", SourceRecord(true)}});
  BinaryRun run = space.Run();
  ASSERT_EQ(run.exit_code, 0) << run.out << run.err;
  const Json original = space.Read();
  std::vector<std::string> leaves;
  std::function<void(const Json&, const std::string&)> walk = [&](const Json& value,
                                                                  const std::string& path) {
    if (value.is_object() && !value.empty()) {
      for (auto it = value.begin(); it != value.end(); ++it)
        walk(it.value(), path + "/" + it.key());
    } else {
      leaves.push_back(path);
    }
  };
  walk(space.locked(), "");
  ASSERT_GE(leaves.size(), 10u);
  for (const std::string& pointer : leaves) {
    Json doc = original;
    Json& field = doc["contract"]["locked"][Json::json_pointer(pointer)];
    field = field.is_number()
                ? Json(field.get<int64_t>() + 1)
                : Json("changed-" + (field.is_string() ? field.get<std::string>() : "null"));
    space.Write(doc);
    run = space.Run();
    if (pointer == "/rules/sha256") {
      // The baseline's rule-set document no longer hashes to the sha256 its contract locks: the
      // baseline is refused when it is read, before any scoring.
      EXPECT_EQ(run.exit_code, 2) << run.out << run.err;
      EXPECT_TRUE(Contains(run.err, "field \"contract.rule_set\": its sha256 is ")) << run.err;
      continue;
    }
    std::string dotted = "locked" + pointer;
    std::replace(dotted.begin(), dotted.end(), '/', '.');
    EXPECT_EQ(run.exit_code, 1) << pointer << "\n" << run.out << run.err;
    EXPECT_TRUE(Contains(run.out, "contract-changed: " + dotted + ":")) << dotted << "\n"
                                                                        << run.out;
  }
}

// Every constant and band of the rule set, changed in the rule set a run uses, fails the run
// with contract-changed naming the constant.
TEST(RatchetRunTest, EveryRuleConstantChangedIsContractChanged) {
  if (!HavePython()) GTEST_SKIP() << "no python3 that imports torch";
  Workspace space(Json{{"broken", SourceRecord(true)}});
  const Json rules = FastRulesJson();
  const std::vector<std::pair<Json::json_pointer, std::string>> leaves = RuleConstants(rules);
  ASSERT_GE(leaves.size(), 60u);
  // One constant of each kind, end to end; baseline_test changes every one of them against the
  // ratchet's comparison.
  std::vector<std::pair<Json::json_pointer, std::string>> sample;
  std::set<Json::value_t> kinds;
  for (const auto& leaf : leaves) {
    if (kinds.insert(rules[leaf.first].type()).second) sample.push_back(leaf);
  }
  ASSERT_GE(sample.size(), 2u);
  int named = 0, runs = 0;
  for (const auto& [pointer, dotted] : sample) {
    bool seen = false;
    std::string tried;
    // A change the rule set refuses (exit 2) is followed by another.
    for (int attempt = 0; !seen; ++attempt) {
      const std::optional<Json> changed = ChangedRuleConstant(rules, pointer, attempt);
      if (!changed) break;
      const std::string file = space.dir() / "changed-rules.json";
      ASSERT_TRUE(WriteFileAtomic(file, changed->dump(2)).ok());
      BinaryRun run = RunRatchet({"run", "--baseline", space.baseline(), "--rules", file, "--out",
                                  space.dir() / ("changed-" + std::to_string(++runs))});
      seen = run.exit_code == 1 && Contains(run.out, "contract-changed: " + dotted + ":");
      tried += run.out.substr(0, 2000) + run.err + "\n";
    }
    EXPECT_TRUE(seen) << dotted << "\n" << tried;
    named += seen;
  }
  EXPECT_EQ(named, static_cast<int>(sample.size()));
}

// SIGTERM to ratchet finishes the evidence as interrupted (exit 130). SIGKILL to ratchet does
// too: its scorer is told by the kernel (SIGTERM, as its parent died) and finishes the folder
// itself. SIGKILL to the scorer leaves only the hidden partial folder, which never reads as
// complete, and ratchet says the scorer stopped (exit 3).
TEST(RatchetRunTest, InterruptedAndKilledRuns) {
  if (!HavePython()) GTEST_SKIP() << "no python3 that imports torch";
  Workspace space(Json{{"ncm", {{"submission", "submissions/ncm.py"}, {"band_bp", 3000}}}});
  enum Stop { kTermTool, kKillTool, kKillScorer };
  for (Stop stop : {kTermTool, kKillTool, kKillScorer}) {
    const std::string out = space.dir() / ("stopped-" + std::to_string(stop));
    std::string binary = RatchetBinary();
    std::vector<std::string> args = {binary,    "run",         "--baseline", space.baseline(),
                                     "--rules", space.rules(), "--out",      out};
    std::vector<char*> argv;
    for (std::string& arg : args) argv.push_back(arg.data());
    argv.push_back(nullptr);
    posix_spawn_file_actions_t actions;
    posix_spawn_file_actions_init(&actions);
    posix_spawn_file_actions_addopen(&actions, 1, "/dev/null", O_WRONLY, 0);
    posix_spawn_file_actions_addopen(&actions, 2, "/dev/null", O_WRONLY, 0);
    pid_t pid = 0;
    ASSERT_EQ(posix_spawn(&pid, argv[0], &actions, nullptr, argv.data(), environ), 0);
    posix_spawn_file_actions_destroy(&actions);
    // Wait for the first call's worker: the partial folder has its seed commitment by then.
    std::vector<std::string> partial;
    for (int i = 0; i < 600 && partial.empty(); ++i) {
      std::this_thread::sleep_for(std::chrono::milliseconds(50));
      for (const std::string& folder : FindPartialEvidence(out)) {
        if (std::filesystem::exists(folder + "/seed.commit")) partial.push_back(folder);
      }
    }
    ASSERT_FALSE(partial.empty());
    std::vector<pid_t> scorer = ChildrenOf(pid);
    ASSERT_EQ(scorer.size(), 1u) << "ratchet runs one scorer";
    std::this_thread::sleep_for(std::chrono::milliseconds(1500));
    kill(stop == kKillScorer ? scorer.front() : pid, stop == kTermTool ? SIGTERM : SIGKILL);
    int status = 0;
    ASSERT_EQ(waitpid(pid, &status, 0), pid);
    if (stop == kTermTool) {
      ASSERT_TRUE(WIFEXITED(status));
      EXPECT_EQ(WEXITSTATUS(status), 130);
    } else if (stop == kKillTool) {
      EXPECT_TRUE(WIFSIGNALED(status));
      // The orphaned scorer finishes the folder: wait for it to take its name.
      for (int i = 0; i < 1200 && !std::filesystem::exists(out + "/status.json"); ++i) {
        std::this_thread::sleep_for(std::chrono::milliseconds(100));
      }
    }
    if (stop == kKillScorer) {
      ASSERT_TRUE(WIFEXITED(status));
      EXPECT_EQ(WEXITSTATUS(status), 3);
      EXPECT_FALSE(std::filesystem::exists(out)) << "a killed scorer leaves no final folder";
      Result<EvidenceSummary> evidence = ReadEvidence(partial.front());
      ASSERT_TRUE(evidence.ok()) << evidence.status().message();
      EXPECT_TRUE(evidence->partial);
      EXPECT_FALSE(evidence->complete);
    } else {
      Result<EvidenceSummary> evidence = ReadEvidence(out);
      ASSERT_TRUE(evidence.ok()) << evidence.status().message();
      EXPECT_EQ(evidence->status, "interrupted");
      EXPECT_FALSE(evidence->complete);
    }
    // Nothing of the run is left: the scorer is gone before the next one starts.
    for (int i = 0; i < 600 && !Gone(scorer.front()); ++i) {
      std::this_thread::sleep_for(std::chrono::milliseconds(100));
    }
  }
}

}  // namespace
}  // namespace ratchet
