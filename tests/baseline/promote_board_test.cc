// `ratchet promote` from evidence made here, consistent in every figure (tests/audit/fixture.h:
// the calls judged, the plan from the seed), since promote acts only on evidence the audit lets
// stand: on a GPU lane the board a time was scored on is kept with it, dropped with a time whose
// evidence names no board, and left alone by a promotion on another lane; a record scored twice
// is promoted with its second scoring; new bytes drop the times of other lanes; a report resealed
// after the run (its records, its ratchet part, its exit code) is refused; bad flags are refused
// before anything is written, and a refusal says nothing was promoted.
#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>
#include <functional>
#include <map>
#include <sstream>
#include <future>
#include <string>
#include <vector>

#include "audit/fixture.h"
#include "baseline/baseline.h"
#include "shard/reviewed_evidence.h"
#include "baseline/ratchet.h"
#include "baseline/ratchet_report.h"
#include "core/file.h"
#include "core/sha256.h"
#include "core/subprocess.h"
#include "evidence/layout.h"
#include "evidence/signature.h"
#include "rules/rule_set.h"
#include "support/run_binary.h"
#include "support/temp_dir.h"

namespace ratchet {
namespace {

// The default rule set with 3 MNIST calls and 1 hold-out call a run (its timing rules as they
// are): fewer draws for the fixture to make and promote's audit to make again.
std::string FewCallsRules() {
  static const TempDir* dir = new TempDir;
  static const std::string path = [] {
    Json rules = Json::parse(EmbeddedRuleSetText(kDefaultRuleSetId));
    rules["calls"]["mnist_calls"] = 3;
    rules["calls"]["holdout_calls"] = 1;
    const std::string file = *dir / "few-calls.json";
    EXPECT_TRUE(WriteFileAtomic(file, rules.dump(2)).ok());
    return file;
  }();
  return path;
}

FixtureOptions Options() {
  FixtureOptions options;
  options.rules = FewCallsRules();
  return options;
}

FixtureOptions Gpu(double ms) {
  FixtureOptions options = Options();
  options.device_kind = "cuda";
  options.records[0].ms = ms;
  return options;
}

FixtureOptions Cpu(double ms) {
  FixtureOptions options = Options();
  options.records[0].ms = ms;
  return options;
}

// A baseline of `ids`, every one submissions/ncm.py, under the contract the fixture's evidence
// has.
void WriteBaseline(const std::string& path, const std::vector<std::string>& ids) {
  Json records = Json::object();
  for (const std::string& id : ids) {
    records[id] = {{"submission", "submissions/ncm.py"}, {"band_bp", 540}};
  }
  const Json doc = {{"schema", "ratchet.baseline/1"},
                    {"contract", {{"locked", FixtureLocked(Options())}}},
                    {"lanes", Json::object()},
                    {"records", records}};
  ASSERT_TRUE(WriteFileAtomic(path, doc.dump(2) + "\n").ok());
}

// The ratchet part `ratchet run --baseline` writes for `options`'s evidence compared with
// `baseline` as it is now, finding `errors` (code, record).
Json RatchetPart(const std::string& baseline,
                 const std::vector<std::pair<std::string, std::string>>& errors,
                 const FixtureOptions& options) {
  std::string sha256;
  Result<Baseline> loaded = LoadBaseline(baseline, &sha256);
  EXPECT_TRUE(loaded.ok()) << loaded.status().message();
  RatchetReport part;
  part.baseline = baseline;
  part.baseline_sha256 = sha256;
  for (const auto& [code, record] : errors) part.errors.push_back({code, record, "as tested"});
  part.lane_reviewed = loaded.ok() && loaded->lanes.count(FixtureLane(options)["id"]) > 0;
  part.rule_set = LoadRuleSet(options.rules)->document;
  return RatchetReportJson(part);
}

class PromoteOnAGpuLane : public ::testing::Test {
 protected:
  void SetUp() override {
    std::filesystem::create_directories(dir_ / "submissions");
    std::filesystem::create_directories(dir_ / "evidence");
    ASSERT_TRUE(WriteFileAtomic(dir_ / "submissions/ncm.py", FixtureRecord{}.source).ok());
    WriteBaseline(baseline(), {"ncm"});
  }

  std::string baseline() const { return dir_ / "records.json"; }

  // Evidence at `path` (default: the next run under the baseline's evidence/) written with
  // `options`, compared with the baseline as it is now, finding `errors`.
  std::string Evidence(FixtureOptions options,
                       const std::vector<std::pair<std::string, std::string>>& errors,
                       std::string path = "") {
    if (path.empty()) path = dir_ / ("evidence/run-" + std::to_string(++runs_));
    options.ratchet = RatchetPart(baseline(), errors, options);
    options.exit_code = errors.empty() ? 0 : 1;
    const Status written = WriteFixture(path, options);
    EXPECT_TRUE(written.ok()) << written.message();
    return path;
  }

  BinaryRun PromoteArgs(const std::string& evidence, const std::vector<std::string>& more) {
    std::vector<std::string> args = {"promote", "--baseline", baseline(),  "--evidence",
                                     evidence,  "--reviewer", "a reviewer"};
    args.insert(args.end(), more.begin(), more.end());
    return RunRatchet(args);
  }

  // Evidence of `options` finding `errors`, then ncm promoted: returns promote's exit code.
  int Promote(const FixtureOptions& options,
              const std::vector<std::pair<std::string, std::string>>& errors) {
    last_evidence_ = Evidence(options, errors);
    BinaryRun run = PromoteArgs(last_evidence_, {"--record", "ncm", "--reason", "test"});
    EXPECT_EQ(run.exit_code, 0) << run.out << run.err;
    last_out_ = run.out;
    return run.exit_code;
  }

  // The ranked time the last evidence gives ncm: its second scoring's when it has one.
  double LastRanked() const {
    const Json record = Json::parse(*ReadFile(last_evidence_ + "/report.json"))["records"]["ncm"];
    return (record.contains("rerun") ? record["rerun"] : record)["ranked_ms"].get<double>();
  }

  Json Record() const { return Json::parse(*ReadFile(baseline()))["records"]["ncm"]; }

  // The reviewed timing of ncm on `options`'s lane, as the baseline file holds it.
  Json Timing(const FixtureOptions& options) const {
    const std::string lane = FixtureLane(options)["id"];
    const Json timing = Record().value("timing", Json());  // absent when no lane has a time
    return timing.is_object() ? timing.value(lane, Json()) : Json();
  }

  TempDir dir_;
  int runs_ = 0;
  std::string last_out_, last_evidence_;
};

TEST_F(PromoteOnAGpuLane, KeepsTheBoardWithTheTime) {
  FixtureOptions gpu = Gpu(1.5);
  ASSERT_EQ(Promote(gpu, {{"record-unreviewed", "ncm"}}), 0);
  const double first = LastRanked();
  EXPECT_EQ(Timing(gpu).value("ranked_ms", 0.0), first);
  EXPECT_EQ(Timing(gpu).value("board", ""), *gpu.device_uuid);

  // Promoted again from another board of the same lane (slower beyond the tolerance, so scored
  // twice): its board replaces the first.
  FixtureOptions other = Gpu(1.7);
  other.device_uuid = "GPU-99999999-1111-2222-3333-444444444444";
  other.records[0].rerun_runs = 1;
  ASSERT_EQ(Promote(other, {{"time-regressed", "ncm"}}), 0);
  const double second = LastRanked();
  EXPECT_GT(second, first + 0.1);
  EXPECT_EQ(Timing(gpu).value("ranked_ms", 0.0), second);
  EXPECT_EQ(Timing(gpu).value("board", ""), *other.device_uuid);

  // A promotion on the CPU lane leaves the GPU lane's time and board as they were.
  ASSERT_EQ(Promote(Cpu(4.0), {}), 0);
  EXPECT_EQ(Timing(gpu).value("ranked_ms", 0.0), second);
  EXPECT_EQ(Timing(gpu).value("board", ""), *other.device_uuid);
  EXPECT_TRUE(Timing(Cpu(4.0)).is_null());  // a CPU lane keeps no time
}

TEST_F(PromoteOnAGpuLane, ATimeWhoseEvidenceNamesNoBoardKeepsNone) {
  ASSERT_EQ(Promote(Gpu(1.5), {{"record-unreviewed", "ncm"}}), 0);
  FixtureOptions unnamed = Gpu(1.55);
  unnamed.device_uuid.reset();
  ASSERT_EQ(Promote(unnamed, {}), 0);
  EXPECT_EQ(Timing(unnamed).value("ranked_ms", 0.0), LastRanked());
  EXPECT_FALSE(Timing(unnamed).contains("board")) << Timing(unnamed).dump();  // not the first
}

// A record the run scored twice was held to its second scoring (`rerun`): that is what is
// promoted, whichever way it went.
TEST_F(PromoteOnAGpuLane, ARecordScoredTwiceIsPromotedWithItsSecondScoring) {
  ASSERT_EQ(Promote(Gpu(1.5), {{"record-unreviewed", "ncm"}}), 0);

  // Faster beyond the tolerance, so scored again, and then a call's round trip stalled.
  FixtureOptions stalled = Gpu(1.2);
  stalled.records[0].rerun_runs = 1;
  stalled.records[0].rerun_breaks = "timing-call";
  BinaryRun run = PromoteArgs(Evidence(stalled, {{"outcome-changed", "ncm"}}),
                              {"--all-changed", "--reason", "a stall"});
  ASSERT_EQ(run.exit_code, 0) << run.out << run.err;
  EXPECT_EQ(Record()["expected"]["status"], "disqualified") << Record().dump();
  EXPECT_EQ(Record()["expected"]["broken"], Json::array({"timing-call"}));
  EXPECT_TRUE(Timing(stalled).is_null()) << Timing(stalled).dump();  // not the first scoring's
  EXPECT_NE(
      run.out.find("promoted ncm: disqualified (timing-call) (its second scoring in the run)"),
      std::string::npos)
      << run.out;

  // Timing rules alone differ from the reviewed outcome, so scored again: qualified.
  FixtureOptions again = Gpu(1.4);
  again.records[0].breaks = "dispersion-slow";
  again.records[0].rerun_runs = 1;
  last_evidence_ = Evidence(again, {{"outcome-changed", "ncm"}});
  run = PromoteArgs(last_evidence_, {"--record", "ncm", "--reason", "qualified again"});
  ASSERT_EQ(run.exit_code, 0) << run.out << run.err;
  EXPECT_EQ(Record()["expected"]["status"], "qualified");
  EXPECT_EQ(Timing(again).value("ranked_ms", 0.0), LastRanked());
}

// A second scoring the ratchet did not call for, or of other bytes than the first's, is no
// scoring of a run: refused, nothing written.
TEST_F(PromoteOnAGpuLane, ASecondScoringTheRunWouldNotMakeIsRefused) {
  const std::string before = *ReadFile(baseline());
  FixtureOptions twice = Gpu(1.2);
  twice.records[0].rerun_runs = 1;  // unreviewed: nothing calls for a second scoring
  BinaryRun run = PromoteArgs(Evidence(twice, {{"record-unreviewed", "ncm"}}),
                              {"--record", "ncm", "--reason", "x"});
  EXPECT_EQ(run.exit_code, 1) << run.out << run.err;
  EXPECT_NE(run.err.find("records.ncm: it was scored again, which its first scoring does not "
                         "call for"),
            std::string::npos)
      << run.err;
  EXPECT_EQ(*ReadFile(baseline()), before);

  ASSERT_EQ(Promote(Gpu(1.5), {{"record-unreviewed", "ncm"}}), 0);
  const std::string promoted = *ReadFile(baseline());
  FixtureOptions other = Gpu(1.2);
  other.records[0].rerun_runs = 1;
  other.records[0].rerun_source = FixtureRecord{}.source + "# other bytes\n";
  run = PromoteArgs(Evidence(other, {{"time-improved", "ncm"}}),
                    {"--record", "ncm", "--reason", "x"});
  EXPECT_EQ(run.exit_code, 1) << run.out << run.err;
  EXPECT_NE(run.err.find("records.ncm: its second scoring is of sha256 "), std::string::npos)
      << run.err;
  EXPECT_NE(run.err.find("one run scores one file"), std::string::npos) << run.err;
  EXPECT_EQ(*ReadFile(baseline()), promoted);
}

// Times reviewed for other bytes of the submission do not stand for new bytes.
TEST_F(PromoteOnAGpuLane, NewBytesDropTheTimesOfOtherLanes) {
  FixtureOptions gpu = Gpu(1.5);
  ASSERT_EQ(Promote(gpu, {{"record-unreviewed", "ncm"}}), 0);
  const double first = LastRanked();
  ASSERT_EQ(Promote(Cpu(4.0), {}), 0);  // the same bytes: the GPU time stays
  EXPECT_EQ(Timing(gpu).value("ranked_ms", 0.0), first);

  FixtureOptions changed = Cpu(4.1);
  changed.records[0].source += "# a faster kernel\n";
  ASSERT_EQ(Promote(changed, {{"submission-changed", "ncm"}}), 0);
  EXPECT_TRUE(Timing(gpu).is_null()) << Record().dump();
  EXPECT_EQ(Record()["sha256"], Sha256Hex(changed.records[0].source));
  const std::string lane = FixtureLane(gpu)["id"];
  EXPECT_NE(last_out_.find("dropped ncm's time on lane " + lane), std::string::npos) << last_out_;

  // On the GPU lane itself the new bytes' time replaces the old one, and the lane's tolerance,
  // set by hand, stays.
  FixtureOptions faster = Gpu(1.5);
  faster.records[0].source = changed.records[0].source;
  ASSERT_EQ(Promote(faster, {}), 0);
  Json doc = Json::parse(*ReadFile(baseline()));
  doc["records"]["ncm"]["timing"][lane]["relative"] = 0.2;
  ASSERT_TRUE(WriteFileAtomic(baseline(), doc.dump(2) + "\n").ok());
  faster.records[0].ms = 1.3;  // within the wider tolerance: scored once
  ASSERT_EQ(Promote(faster, {}), 0);
  EXPECT_EQ(Timing(gpu).value("ranked_ms", 0.0), LastRanked());
  EXPECT_LT(LastRanked(), first - 0.1);
  EXPECT_EQ(Timing(gpu).value("relative", 0.0), 0.2) << Record().dump();
  EXPECT_EQ(last_out_.find("dropped"), std::string::npos) << last_out_;
}

// A report edited after the run and the manifest sealed again: promote re-derives what it acts
// on (the outcomes from the runs, the run's differences from the baseline, the exit code, the
// rule set) and refuses what disagrees, writing nothing; the same evidence untouched promotes.
TEST_F(PromoteOnAGpuLane, AResealedReportIsRefused) {
  ASSERT_EQ(Promote(Gpu(1.5), {{"record-unreviewed", "ncm"}}), 0);
  const std::string before = *ReadFile(baseline());
  FixtureOptions broken = Gpu(1.5);
  broken.records[0].breaks = "timing-call";
  broken.records[0].rerun_breaks = "timing-call";
  broken.records[0].rerun_runs = 1;
  const std::string evidence = Evidence(broken, {{"outcome-changed", "ncm"}});

  struct Tamper {
    std::string file;
    std::function<void(Json&)> edit;
    std::string says;
  };
  const std::vector<Tamper> tampers = {
      {"report.json",
       [](Json& report) {
         for (const char* entry : {"/records/ncm", "/records/ncm/rerun"}) {
           Json& scored = report[Json::json_pointer(entry)];
           scored["outcome"] = {{"status", "qualified"}, {"broken", Json::array()}};
           scored["ranked_ms"] = 1.5;
         }
       },
       "does not stand under `ratchet audit` (report.json: records.ncm.outcome.status: "},
      {"report.json",
       [](Json& report) {
         report["ratchet"]["errors"].push_back(
             {{"code", "record-missing"}, {"record", "ncm"}, {"message", "x"}});
       },
       "report.json's ratchet.errors are [outcome-changed ncm, record-missing ncm], but its "
       "records give [outcome-changed ncm]"},
      {"report.json", [](Json& report) { report["ratchet"]["errors"] = Json::array(); },
       "does not stand under `ratchet audit` (status.json: exit_code: 1, but report.json's "
       "ratchet.errors is empty: the run exits 0)"},
      {"report.json",
       [](Json& report) {
         report["ratchet"]["errors"] = {
             {{"code", "lane-unreviewed"}, {"record", ""}, {"message", "x"}}};
       },
       "report.json's ratchet.errors are [lane-unreviewed], but its records give "
       "[outcome-changed ncm]"},
      {"report.json", [](Json& report) { report["ratchet"]["contract_changed"] = true; },
       "report.json's ratchet.contract_changed is true, but its contract is the baseline's"},
      {"report.json", [](Json& report) { report["ratchet"]["lane_reviewed"] = false; },
       "report.json's ratchet.lane_reviewed is false, but lane "},
      {"report.json", [](Json& report) { report["ratchet"]["rule_set"]["draw"]["test"] = 9999; },
       "cannot be audited: the evidence was scored under the rule set"},
      {"status.json", [](Json& status) { status["exit_code"] = 0; },
       "does not stand under `ratchet audit` (status.json: exit_code: 0, but report.json's "
       "ratchet.errors lists errors: the run exits 1)"},
  };
  for (const Tamper& tamper : tampers) {
    const std::string copy = dir_ / "evidence/tampered";
    std::filesystem::remove_all(copy);
    std::filesystem::copy(evidence, copy, std::filesystem::copy_options::recursive);
    ASSERT_TRUE(EditJsonAndRemanifest(copy, tamper.file, tamper.edit).ok()) << tamper.says;
    BinaryRun run = PromoteArgs(copy, {"--all-changed", "--reason", "x"});
    EXPECT_EQ(run.exit_code, 1) << tamper.says << "\n" << run.out << run.err;
    EXPECT_NE(run.err.find(tamper.says), std::string::npos) << run.err;
    EXPECT_EQ(run.out.find("promoted"), std::string::npos) << run.out;
    EXPECT_EQ(*ReadFile(baseline()), before) << tamper.says;
  }
  BinaryRun run = PromoteArgs(evidence, {"--all-changed", "--reason", "a stall, twice"});
  ASSERT_EQ(run.exit_code, 0) << run.out << run.err;
  EXPECT_EQ(Record()["expected"]["broken"], Json::array({"timing-call"}));
}

// Promote's audit re-counts the labels where the datasets are (--data first): a label changed
// and the manifest sealed again is refused.
TEST_F(PromoteOnAGpuLane, ALabelChangedAfterTheRunIsFoundByTheRecount) {
  if (!FixtureDatasetsPresent()) GTEST_SKIP() << "the datasets are not here";
  FixtureOptions locked = Options();  // the fixture's labels are the draws'
  locked.device_kind = "cuda";
  TempDir other;
  WriteBaseline(other / "records.json", {"ncm"});
  Json doc = Json::parse(*ReadFile(other / "records.json"));
  doc["contract"]["locked"] = FixtureLocked(locked);
  ASSERT_TRUE(WriteFileAtomic(other / "records.json", doc.dump(2) + "\n").ok());
  std::filesystem::create_directories(other / "submissions");
  ASSERT_TRUE(WriteFileAtomic(other / "submissions/ncm.py", FixtureRecord{}.source).ok());
  locked.ratchet = RatchetPart(other / "records.json", {{"record-unreviewed", "ncm"}}, locked);
  locked.exit_code = 1;
  ASSERT_TRUE(WriteFixture(other / "ev", locked).ok());
  const std::string label = "records/ncm/run-1/labels/" + CallNumber(1) + ".u8";
  ASSERT_TRUE(PathExists(other / ("ev/" + label))) << label;
  ASSERT_TRUE(CopyWithOneByteChanged(other / "ev", other / "changed", label).ok());
  ASSERT_TRUE(Remanifest(other / "changed").ok());
  const std::vector<std::string> args = {
      "promote",         "--baseline", other / "records.json", "--record", "ncm",
      "--reason",        "x",          "--reviewer",           "r",        "--data",
      *TestDataFolder(), "--evidence"};
  std::vector<std::string> changed = args;
  changed.push_back(other / "changed");
  BinaryRun run = RunRatchet(changed);
  EXPECT_EQ(run.exit_code, 1) << run.out << run.err;
  EXPECT_NE(run.err.find("does not stand under `ratchet audit` (records/ncm/run-1/calls.json: "
                         "calls[0].correct: 9600, but the labels of " +
                         label + " match 9599 of draw "),
            std::string::npos)
      << run.err;
  std::vector<std::string> untouched = args;
  untouched.push_back(other / "ev");
  run = RunRatchet(untouched);
  EXPECT_EQ(run.exit_code, 0) << run.out << run.err;
}

TEST_F(PromoteOnAGpuLane, BadFlagsAndReportsAreRefusedAndNothingIsWritten) {
  const std::string evidence = Evidence(Gpu(1.2), {{"record-unreviewed", "ncm"}});
  const std::string before = *ReadFile(baseline());

  BinaryRun both = PromoteArgs(evidence, {"--record", "ncm", "--all-changed", "--reason", "x"});
  EXPECT_EQ(both.exit_code, 2);
  EXPECT_NE(both.err.find("not both"), std::string::npos) << both.err;

  BinaryRun unreviewed = PromoteArgs(evidence, {"--all-changed", "--reason", " UNREVIEWED\n"});
  EXPECT_EQ(unreviewed.exit_code, 2);
  EXPECT_NE(unreviewed.err.find("UNREVIEWED"), std::string::npos) << unreviewed.err;

  BinaryRun no_data =
      PromoteArgs(evidence, {"--all-changed", "--reason", "x", "--data", dir_ / "nothing"});
  EXPECT_EQ(no_data.exit_code, 2);
  EXPECT_NE(no_data.err.find("is not a folder"), std::string::npos) << no_data.err;

  // A ratchet part that is not the one `ratchet run` writes is bad input.
  FixtureOptions odd = Gpu(1.2);
  odd.ratchet = RatchetPart(baseline(), {{"record-unreviewed", "ncm"}}, odd);
  odd.ratchet["contract_changed"] = "yes";
  ASSERT_TRUE(WriteFixture(dir_ / "evidence/run-bad", odd).ok());
  BinaryRun malformed = PromoteArgs(dir_ / "evidence/run-bad", {"--all-changed", "--reason", "x"});
  EXPECT_EQ(malformed.exit_code, 2) << malformed.out << malformed.err;
  EXPECT_NE(malformed.err.find("ratchet.contract_changed"), std::string::npos) << malformed.err;

  EXPECT_EQ(*ReadFile(baseline()), before);
  for (const BinaryRun& run : {both, unreviewed, no_data, malformed}) {
    EXPECT_EQ(run.out.find("promoted"), std::string::npos) << run.out;
  }
}

// A refusal after the new baseline was made (here: a folder of the evidence's name is in the way
// of its copy) writes nothing and prints no `promoted` line.
TEST_F(PromoteOnAGpuLane, ARefusalPrintsNoPromotedLine) {
  TempDir outside;
  const std::string evidence =
      Evidence(Gpu(1.2), {{"record-unreviewed", "ncm"}}, outside / "run-x");
  std::filesystem::create_directories(dir_ / "evidence/run-x");
  ASSERT_TRUE(WriteFileAtomic(dir_ / "evidence/run-x/junk", "not evidence\n").ok());
  const std::string before = *ReadFile(baseline());
  BinaryRun run = PromoteArgs(evidence, {"--record", "ncm", "--reason", "x"});
  EXPECT_EQ(run.exit_code, 1) << run.out << run.err;
  EXPECT_NE(run.err.find("is not a verified copy"), std::string::npos) << run.err;
  EXPECT_EQ(run.out.find("promoted"), std::string::npos) << run.out;
  EXPECT_EQ(*ReadFile(baseline()), before);
}

// A baseline that lists its reviewers' keys promotes only evidence one of them signed: unsigned
// evidence and evidence signed by a key it does not list are refused, with nothing written; a
// signed run rewritten consistently afterwards (a file changed, the manifest made to match) no
// longer verifies against its signature and is refused too.
TEST_F(PromoteOnAGpuLane, OnlyEvidenceSignedByAListedReviewerIsPromoted) {
  Result<KeyPair> alice = NewKeyPair();
  Result<KeyPair> mallory = NewKeyPair();
  ASSERT_TRUE(alice.ok() && mallory.ok());
  Json doc = Json::parse(*ReadFile(baseline()));
  doc["reviewers"] = {{"alice", {{"public_key", alice->public_hex}}}};
  ASSERT_TRUE(WriteFileAtomic(baseline(), doc.dump(2) + "\n").ok());
  const std::string before = *ReadFile(baseline());
  auto promote = [&](const std::string& evidence) {
    return PromoteArgs(evidence, {"--record", "ncm", "--reason", "signed"});
  };

  BinaryRun unsigned_run = promote(Evidence(Gpu(1.2), {{"record-unreviewed", "ncm"}}));
  EXPECT_EQ(unsigned_run.exit_code, 1) << unsigned_run.out << unsigned_run.err;
  EXPECT_NE(unsigned_run.err.find("is not signed"), std::string::npos) << unsigned_run.err;

  FixtureOptions by_mallory = Gpu(1.2);
  by_mallory.signing_key = mallory->private_pem;
  BinaryRun mallory_run = promote(Evidence(by_mallory, {{"record-unreviewed", "ncm"}}));
  EXPECT_EQ(mallory_run.exit_code, 1) << mallory_run.out << mallory_run.err;
  EXPECT_NE(mallory_run.err.find("is signed by key " + KeyId(mallory->public_hex) +
                                 " (public key " + mallory->public_hex + "), which is not among"),
            std::string::npos)
      << mallory_run.err;

  FixtureOptions by_alice = Gpu(1.2);
  by_alice.signing_key = alice->private_pem;
  TempDir copies;
  const std::string signed_evidence =
      Evidence(by_alice, {{"record-unreviewed", "ncm"}}, copies / "signed");
  const std::string rewritten = copies / "rewritten";
  std::filesystem::copy(signed_evidence, rewritten, std::filesystem::copy_options::recursive);
  ASSERT_TRUE(EditJsonAndRemanifest(rewritten, "status.json", [](Json& status) {
                status["message"] = "rewritten after the run";
              }).ok());
  BinaryRun rewritten_run = promote(rewritten);
  EXPECT_EQ(rewritten_run.exit_code, 1) << rewritten_run.out << rewritten_run.err;
  EXPECT_NE(rewritten_run.err.find("does not stand"), std::string::npos) << rewritten_run.err;
  EXPECT_NE(rewritten_run.err.find("SIGNATURE.json"), std::string::npos) << rewritten_run.err;
  EXPECT_EQ(*ReadFile(baseline()), before) << "a refusal writes nothing";

  BinaryRun signed_run = promote(signed_evidence);
  EXPECT_EQ(signed_run.exit_code, 0) << signed_run.out << signed_run.err;
  EXPECT_TRUE(Json::parse(*ReadFile(baseline()))["records"]["ncm"].contains("expected"));
  // The copy beside the baseline keeps its signature.
  const SignatureCheck copied = CheckSignature(dir_ / "evidence/signed");
  EXPECT_TRUE(copied.valid) << copied.problem;
  EXPECT_EQ(copied.public_hex, alice->public_hex);

  // `ratchet run` holds the reviewed evidence to the reviewers' keys too: the copy signed by a
  // listed key is as reviewed; unsigned, or signed by a key the baseline does not list, or
  // rewritten with the baseline's manifest sha256 edited to match, it is evidence-incomplete.
  auto reviewed_errors = [&](const Baseline& base) {
    RatchetResult result;
    CheckReviewedEvidence(base, dir_.path(), {"ncm"}, &result);
    std::string text;
    for (const RatchetError& error : result.errors) text += error.code + ": " + error.message + "\n";
    return text;
  };
  Result<Baseline> promoted = LoadBaseline(baseline());
  ASSERT_TRUE(promoted.ok()) << promoted.status().message();
  EXPECT_EQ(reviewed_errors(*promoted), "");
  Baseline unlisted = *promoted;
  unlisted.reviewers = {{"mallory", mallory->public_hex}};
  EXPECT_NE(reviewed_errors(unlisted).find("is signed by key " + KeyId(alice->public_hex) +
                                           ", which is not among the baseline's reviewers"),
            std::string::npos)
      << reviewed_errors(unlisted);
  // Signed evidence of another record, or of other bytes, is not this record's evidence.
  Baseline other_bytes = *promoted;
  other_bytes.records["ncm"].sha256 = std::string(64, '1');
  EXPECT_NE(reviewed_errors(other_bytes).find("its report holds no scoring of record \"ncm\""),
            std::string::npos)
      << reviewed_errors(other_bytes);
  // A record is pinned to its signed evidence: its band, expected outcome and reviewed time on
  // the evidence's lane edited by hand are each named.
  Baseline band = *promoted;
  band.records["ncm"].band_bp = 2000;
  EXPECT_NE(reviewed_errors(band).find("its band_bp is 2000, but its reviewed evidence scored it "
                                       "at 540"),
            std::string::npos)
      << reviewed_errors(band);
  Baseline outcome = *promoted;
  outcome.records["ncm"].expected = Expected{"disqualified", {"accuracy"}};
  EXPECT_NE(reviewed_errors(outcome).find("its expected outcome is disqualified (accuracy), but "
                                          "its reviewed evidence's calls give qualified"),
            std::string::npos)
      << reviewed_errors(outcome);
  ASSERT_EQ(promoted->records["ncm"].timing.size(), 1u);
  Baseline time = *promoted;
  time.records["ncm"].timing.begin()->second.ranked_ms /= 2;
  EXPECT_NE(reviewed_errors(time).find("its reviewed time on lane " +
                                       promoted->records["ncm"].timing.begin()->first),
            std::string::npos)
      << reviewed_errors(time);
  // An expectation written by hand, with no evidence, is no review a listed key signed.
  Baseline by_hand = *promoted;
  by_hand.records["ncm"].evidence.reset();
  by_hand.records["ncm"].reviewed_by.clear();
  EXPECT_NE(reviewed_errors(by_hand).find("evidence-incomplete: its expected outcome names no "
                                          "evidence"),
            std::string::npos)
      << reviewed_errors(by_hand);
  Baseline no_reviewers = *promoted;
  no_reviewers.reviewers.clear();
  std::filesystem::remove(dir_ / "evidence/signed/SIGNATURE.json");
  EXPECT_EQ(reviewed_errors(no_reviewers), "") << "without reviewers, a signature is not asked";
  EXPECT_NE(reviewed_errors(*promoted).find("evidence-incomplete: its reviewed evidence " +
                                            (dir_ / "evidence/signed") +
                                            ": it is not signed"),
            std::string::npos)
      << reviewed_errors(*promoted);
  // The rewritten copy (its signature fails), in place of the reviewed one, its manifest named.
  std::filesystem::remove_all(dir_ / "evidence/signed");
  std::filesystem::copy(rewritten, dir_ / "evidence/signed",
                        std::filesystem::copy_options::recursive);
  Baseline resealed = *promoted;
  resealed.records["ncm"].evidence->manifest_sha256 =
      Sha256Hex(*ReadFile(dir_ / "evidence/signed/MANIFEST.json"));
  EXPECT_NE(reviewed_errors(resealed).find("its SIGNATURE.json does not verify"),
            std::string::npos)
      << reviewed_errors(resealed);
}

// `ratchet report DIR --markdown`: the contract in one line, a row per record with the
// baseline's expected outcome and reviewed time, the records with an error first; once the
// baseline has moved on, the run's expected outcomes are no longer shown, and it says why.
TEST_F(PromoteOnAGpuLane, TheMarkdownReportShowsTheDifferencesFirst) {
  WriteBaseline(baseline(), {"a-clean", "b-changed"});
  FixtureOptions options = Gpu(1.2);
  options.records = {FixtureRecord{}, FixtureRecord{}};
  options.records[0].id = "a-clean";
  options.records[1].id = "b-changed";
  options.records[1].ms = 2.5;
  const std::string evidence = Evidence(
      options, {{"record-unreviewed", "a-clean"}, {"record-unreviewed", "b-changed"}});
  BinaryRun run = PromoteArgs(evidence, {"--record", "a-clean", "--reason", "reviewed"});
  ASSERT_EQ(run.exit_code, 0) << run.out << run.err;
  const std::string second = Evidence(options, {{"record-unreviewed", "b-changed"}});
  const std::string markdown = dir_ / "summary.md";
  run = RunRatchet({"report", second, "--markdown", markdown});
  ASSERT_EQ(run.exit_code, 0) << run.out << run.err;
  const std::string md = *ReadFile(markdown);
  EXPECT_EQ(md.rfind("### ratchet: 1 difference(s)\n", 0), 0u) << md;
  EXPECT_NE(md.find("Contract: scorer "), std::string::npos) << md;
  EXPECT_NE(md.find("lane " + FixtureLane(options)["id"].get<std::string>() + " (NVIDIA H200)"),
            std::string::npos)
      << md;
  const size_t changed = md.find("| b-changed | \\(unreviewed) | qualified | ");
  const size_t clean = md.find("| a-clean | qualified | qualified | ");
  ASSERT_NE(changed, std::string::npos) << md;
  ASSERT_NE(clean, std::string::npos) << md;
  EXPECT_LT(changed, clean) << "the record with an error comes first\n" << md;
  EXPECT_NE(md.find("`record-unreviewed` |", changed), std::string::npos) << md;
  // To stdout without a file; the first run's baseline has changed since.
  run = RunRatchet({"report", evidence, "--markdown"});
  ASSERT_EQ(run.exit_code, 0) << run.out << run.err;
  EXPECT_NE(run.out.find("has changed since the run\\: expected outcomes not shown"),
            std::string::npos)
      << run.out;
  EXPECT_EQ(RunRatchet({"report", dir_ / "nothing", "--markdown"}).exit_code, 2);
  EXPECT_EQ(RunRatchet({"report", evidence}).exit_code, 2);

  // Its report and status rewritten, not resealed: the summary says first that the evidence does
  // not stand, and the report exits 1.
  Json report = Json::parse(*ReadFile(second + "/report.json"));
  report["ratchet"]["errors"] = Json::array();
  ASSERT_TRUE(WriteFileAtomic(second + "/report.json", report.dump()).ok());
  Json status = Json::parse(*ReadFile(second + "/status.json"));
  status["exit_code"] = 0;
  ASSERT_TRUE(WriteFileAtomic(second + "/status.json", status.dump()).ok());
  run = RunRatchet({"report", second, "--markdown"});
  EXPECT_EQ(run.exit_code, 1) << run.out << run.err;
  EXPECT_EQ(run.out.rfind("### ratchet: this evidence does not stand\n", 0), 0u) << run.out;
  EXPECT_NE(run.out.find("finding: report.json: does not match MANIFEST.json"), std::string::npos)
      << run.out;
  run = RunRatchet({"report", second, "--html", dir_ / "page.html"});
  EXPECT_EQ(run.exit_code, 1) << run.out << run.err;
  const std::string page = *ReadFile(dir_ / "page.html");
  EXPECT_NE(page.find("\"not_standing\":[{\"findings\":[\"report.json: does not match MANIFEST.json"),
            std::string::npos)
      << "the page says first that the evidence does not stand";
}

// `ratchet report --html`: one self-contained page, loaded by a real browser (Debian's chromium,
// headless, which scripts/setup installs): its inline script draws every plot the evidence calls
// for, logs no error, and reaches nothing outside the page. The evidence: a fixture run held to a
// baseline with a reviewed time on its lane (so its calls plot shows the tolerance), a submission
// the source check refused (`ratchet score`: its run has no call), and the bundled baseline's two
// evidence directories (qualified records and a disqualified one; the energy windows of the H200
// one's measured runs; ranked time across the directories for the records they share). Every
// record of every directory is drawn, the refused one with no plot.
TEST_F(PromoteOnAGpuLane, TheHtmlReportDrawsEveryPlotInABrowser) {
  Result<ProcessResult> found = RunProcess({"sh", "-c", "command -v chromium"}, 10);
  ASSERT_TRUE(found.ok() && found->exit_code == 0)
      << "no chromium on PATH: scripts/setup installs Debian's chromium for this test";
  BinaryRun run = PromoteArgs(Evidence(Gpu(1.2), {{"record-unreviewed", "ncm"}}),
                              {"--record", "ncm", "--reason", "reviewed"});
  ASSERT_EQ(run.exit_code, 0) << run.out << run.err;
  const std::string reviewed = Evidence(Gpu(1.25), {});
  // A module-level call: refused before any call is timed (docs/submissions.md).
  const std::string refused_file = dir_ / "submissions/refused.py";
  ASSERT_TRUE(WriteFileAtomic(refused_file,
                              "print(\"hello\")\n\n"
                              "def method(train_x, train_y, test_x):\n"
                              "    return test_x[:, 0].long() % 10\n")
                  .ok());
  const std::string refused = dir_ / "refused";
  run = RunRatchet({"score", refused_file, "--out", refused});
  ASSERT_EQ(run.exit_code, 1) << run.out << run.err;
  ASSERT_EQ(*ReadFile(refused + "/records/refused/run-1/calls.json"), "[]\n");
  // And its report resealed with one more record, whose id is markup and script: shown as text,
  // it runs nothing (an image's onerror or a script would log to the console).
  const std::string hostile =
      "<img src=x onerror=console.log(1)></script><script>console.log(2)</script><!--";
  ASSERT_TRUE(EditJsonAndRemanifest(refused, kReportFile, [&](Json& report) {
                report["records"][hostile] = report["records"]["refused"];
              }).ok());
  std::vector<std::string> dirs = {reviewed, refused};
  std::vector<std::string> expected = {"calls:0:ncm", "unexplained:0:ncm"};
  std::vector<std::string> drawn;  // every record of every directory, as "<index>:<id>"
  int index = 0;
  for (const auto& entry : std::filesystem::directory_iterator(RATCHET_SOURCE_ROOT "/baselines/evidence")) {
    dirs.push_back(entry.path().string());
  }
  std::sort(dirs.begin() + 2, dirs.end());
  std::map<std::string, int> seen;  // records with a ranked time, by how many directories
  for (const std::string& dir : dirs) {
    const Json report = Json::parse(*ReadFile(dir + "/report.json"));
    for (const auto& [id, record] : report["records"].items()) {
      const Json& scored = record.contains("rerun") ? record["rerun"] : record;
      if (scored["ranked_ms"].is_number()) ++seen[id];
      drawn.push_back(std::to_string(index) + ":" + id);
      if (dir == reviewed) continue;
      bool timed = false;  // a run with a call
      for (int k = 1; k <= static_cast<int>(record["runs"].size()); ++k) {
        const std::string calls =
            dir + "/records/" + id + "/run-" + std::to_string(k) + "/calls.json";
        // The resealed record has no folder of its own.
        timed = timed || (PathExists(calls) && !Json::parse(*ReadFile(calls)).empty());
      }
      if (timed) {
        expected.push_back("calls:" + std::to_string(index) + ":" + id);
        expected.push_back("unexplained:" + std::to_string(index) + ":" + id);
      }
      for (int k = 1; k <= static_cast<int>(record["runs"].size()); ++k) {
        const std::string energy =
            dir + "/records/" + id + "/run-" + std::to_string(k) + "/energy.json";
        if (PathExists(energy) &&
            !Json::parse(*ReadFile(energy)).value("windows", Json::array()).empty()) {
          expected.push_back("energy:" + std::to_string(index) + ":" + id + ":" + std::to_string(k));
        }
      }
    }
    ++index;
  }
  for (const auto& [id, count] : seen) {
    if (count > 1) expected.push_back("ranked:" + id);
  }
  ASSERT_GT(expected.size(), 8u);
  ASSERT_EQ(std::count(drawn.begin(), drawn.end(), "1:refused"), 1);
  ASSERT_TRUE(std::any_of(expected.begin(), expected.end(),
                          [](const std::string& id) { return id.rfind("energy:", 0) == 0; }));

  const std::string page = dir_ / "report.html";
  std::vector<std::string> args = {"report"};
  args.insert(args.end(), dirs.begin(), dirs.end());
  args.insert(args.end(), {"--html", page});
  run = RunRatchet(args);
  // The refused run's report was resealed with a record of its own: it does not stand, and the
  // page (drawn whole) says so first.
  ASSERT_EQ(run.exit_code, 1) << run.out << run.err;
  EXPECT_NE(run.err.find("1 of the evidence directories do not stand"), std::string::npos)
      << run.err;
  const std::string html = *ReadFile(page);
  EXPECT_EQ(html.find("http://"), html.find("http://www.w3.org/2000/svg")) << "nothing fetched";
  EXPECT_EQ(html.find("https://"), std::string::npos);
  EXPECT_EQ(html.find("<script src"), std::string::npos);

  Result<ProcessResult> browser = RunProcess(
      {"chromium", "--headless", "--no-sandbox", "--disable-gpu", "--enable-logging=stderr",
       "--v=0", "--user-data-dir=" + std::string(dir_ / "chromium"), "--dump-dom",
       "file://" + page},
      120);
  ASSERT_TRUE(browser.ok()) << browser.status().message();
  ASSERT_EQ(browser->exit_code, 0) << browser->err;
  // A script error is logged as a console message ("Uncaught ..."); none may be.
  std::stringstream lines(browser->err);
  for (std::string line; std::getline(lines, line);) {
    EXPECT_EQ(line.find(":CONSOLE"), std::string::npos) << line;
  }
  const std::string& dom = browser->out;
  const size_t not_standing = dom.find("<section data-not-standing=\"" + refused + "\"><h2>");
  EXPECT_NE(not_standing, std::string::npos) << dom;
  EXPECT_LT(not_standing, dom.find("<div data-record=")) << "said before any record is drawn";
  EXPECT_EQ(dom.find("data-not-standing=\"" + reviewed), std::string::npos) << dom;
  for (const std::string& record : drawn) {
    if (record == "1:" + hostile) continue;  // its attribute as the browser spells it
    EXPECT_NE(dom.find("data-record=\"" + record + "\"><h3>"), std::string::npos)
        << "record " << record << " not drawn";
  }
  size_t divs = 0;
  for (size_t at = 0; (at = dom.find("<div data-record=", at)) != std::string::npos; ++at) ++divs;
  EXPECT_EQ(divs, drawn.size()) << dom;
  EXPECT_NE(dom.find("<h3>&lt;img src=x onerror=console.log(1)&gt;&lt;/script&gt;&lt;script&gt;"),
            std::string::npos)
      << "the hostile id shown as text\n"
      << dom;
  for (const std::string& id : expected) {
    EXPECT_NE(dom.find("data-plot=\"" + id + "\""), std::string::npos) << "missing plot " << id;
  }
  EXPECT_NE(dom.find("data-plots=\"" + std::to_string(expected.size()) + "\""), std::string::npos)
      << "not exactly the plots expected";
  EXPECT_NE(dom.find("data-band=\"reviewed\""), std::string::npos)
      << "the reviewed tolerance is drawn on the fixture run's calls";
}

// Promotes of different records from one run, started at once: one promote at a time holds the
// baseline, so the first writes and every other one, reading what the first wrote, is refused
// (its run was compared with the baseline before it); no promotion is lost silently, the baseline
// always parses, and the evidence is copied once, with no hidden copy left beside it.
TEST(ConcurrentPromotes, OneWritesAndTheOthersAreRefusedWithNothingLostOrLeftBehind) {
  constexpr int kRecords = 6;
  for (int round = 0; round < 3; ++round) {
    TempDir dir, outside;
    std::filesystem::create_directories(dir / "submissions");
    ASSERT_TRUE(WriteFileAtomic(dir / "submissions/ncm.py", FixtureRecord{}.source).ok());
    FixtureOptions options = Gpu(1.0);
    options.records.clear();
    std::vector<std::string> ids;
    std::vector<std::pair<std::string, std::string>> errors;
    for (int i = 0; i < kRecords; ++i) {
      FixtureRecord record;
      record.id = "r" + std::to_string(i);
      record.ms = 1.0 + i;
      options.records.push_back(record);
      ids.push_back(record.id);
      errors.push_back({"record-unreviewed", record.id});
    }
    const std::string baseline = dir / "records.json";
    WriteBaseline(baseline, ids);
    options.ratchet = RatchetPart(baseline, errors, options);
    options.exit_code = 1;
    const std::string evidence = outside / "run-1";
    ASSERT_TRUE(WriteFixture(evidence, options).ok());

    std::vector<std::future<BinaryRun>> promotes;
    for (int i = 0; i < kRecords; ++i) {
      promotes.push_back(std::async(std::launch::async, [&, i] {
        return RunRatchet({"promote", "--baseline", baseline, "--evidence", evidence, "--record",
                           "r" + std::to_string(i), "--reason", "test", "--reviewer", "r"});
      }));
    }
    std::vector<std::string> written;
    for (int i = 0; i < kRecords; ++i) {
      const BinaryRun run = promotes[static_cast<size_t>(i)].get();
      if (run.exit_code == 0) {
        written.push_back("r" + std::to_string(i));
      } else {
        EXPECT_EQ(run.exit_code, 1) << run.out << run.err;
        EXPECT_NE(run.err.find("has changed since"), std::string::npos) << run.err;
        EXPECT_EQ(run.out.find("promoted"), std::string::npos) << run.out;
      }
    }
    EXPECT_EQ(written.size(), 1u) << round;
    Result<Baseline> after = LoadBaseline(baseline);
    ASSERT_TRUE(after.ok()) << after.status().message();
    std::vector<std::string> reviewed;
    for (const auto& [id, record] : after->records) {
      if (record.expected) reviewed.push_back(id);
    }
    EXPECT_EQ(reviewed, written) << round;
    std::vector<std::string> copies;
    for (const auto& entry : std::filesystem::directory_iterator(dir / "evidence")) {
      copies.push_back(entry.path().filename());
    }
    EXPECT_EQ(copies, std::vector<std::string>{"run-1"}) << round;
  }
}

}  // namespace
}  // namespace ratchet
