// `ratchet promote` from evidence made here (the CPU suite has no GPU to score on): on a GPU lane
// the board a time was scored on is kept with it, dropped with a time whose evidence names no
// board, and left alone by a promotion on another lane; a record scored twice is promoted with its
// second scoring; new bytes drop the times of other lanes; bad flags and reports are refused
// before anything is written, and a refusal says nothing was promoted.
#include <gtest/gtest.h>

#include <filesystem>
#include <future>
#include <string>
#include <vector>

#include "baseline/baseline.h"
#include "compare/test_evidence.h"
#include "core/file.h"
#include "core/sha256.h"
#include "support/contract_fixtures.h"
#include "support/run_binary.h"
#include "support/temp_dir.h"

namespace ratchet {
namespace {

class PromoteOnAGpuLane : public ::testing::Test {
 protected:
  void SetUp() override {
    std::filesystem::create_directories(dir_ / "submissions");
    std::filesystem::create_directories(dir_ / "evidence");
    ASSERT_TRUE(WriteFileAtomic(dir_ / "submissions/ncm.py", Qualified("ncm", 1).source).ok());
    const Json contract = TestContract(TestLocked(), CpuMachine());
    Json doc = {{"schema", "ratchet.baseline/1"},
                {"contract", {{"locked", contract["locked"]}}},
                {"lanes", Json::object()},
                {"records", {{"ncm", {{"submission", "submissions/ncm.py"}, {"band_bp", 540}}}}}};
    ASSERT_TRUE(WriteFileAtomic(baseline(), doc.dump(2) + "\n").ok());
  }

  std::string baseline() const { return dir_ / "records.json"; }

  // Evidence at `path` (default: the next run under the baseline's evidence/) of `machine`
  // scoring `report`, compared with the baseline as it is now, ncm reported as changed.
  std::string Evidence(const MachineFacts& machine, Json report, std::string path = "") {
    if (path.empty()) path = dir_ / ("evidence/run-" + std::to_string(++runs_));
    std::string sha256;
    EXPECT_TRUE(LoadBaseline(baseline(), &sha256).ok());
    report["ratchet"] = {{"baseline", baseline()},
                         {"baseline_sha256", sha256},
                         {"errors", {{{"code", "record-unreviewed"}, {"record", "ncm"}}}},
                         {"notes", Json::array()}};
    EXPECT_TRUE(
        WriteTestEvidenceWithReport(path, TestContract(TestLocked(), machine), report).ok());
    return path;
  }

  BinaryRun PromoteArgs(const std::string& evidence, const std::vector<std::string>& more) {
    std::vector<std::string> args = {"promote", "--baseline", baseline(),  "--evidence",
                                     evidence,  "--reviewer", "a reviewer"};
    args.insert(args.end(), more.begin(), more.end());
    return RunRatchet(args);
  }

  // Evidence of `machine` scoring ncm as `record`, then promoted: returns promote's exit code.
  int Promote(const MachineFacts& machine, const TestRecord& record) {
    BinaryRun run = PromoteArgs(Evidence(machine, TestReport({record})),
                                {"--record", "ncm", "--reason", "test"});
    EXPECT_EQ(run.exit_code, 0) << run.out << run.err;
    last_out_ = run.out;
    return run.exit_code;
  }
  int Promote(const MachineFacts& machine, double ranked_ms) {
    return Promote(machine, Qualified("ncm", ranked_ms));
  }

  Json Record() const { return Json::parse(*ReadFile(baseline()))["records"]["ncm"]; }

  // The reviewed timing of ncm on `machine`'s lane, as the baseline file holds it.
  Json Timing(const MachineFacts& machine) const {
    const std::string lane = TestContract(TestLocked(), machine)["lane"]["id"];
    const Json timing = Record().value("timing", Json());  // absent when no lane has a time
    return timing.is_object() ? timing.value(lane, Json()) : Json();
  }

  TempDir dir_;
  int runs_ = 0;
  std::string last_out_;
};

TEST_F(PromoteOnAGpuLane, KeepsTheBoardWithTheTime) {
  MachineFacts gpu = CudaMachine();
  ASSERT_EQ(Promote(gpu, 1.5), 0);
  EXPECT_EQ(Timing(gpu).value("ranked_ms", 0.0), 1.5);
  EXPECT_EQ(Timing(gpu).value("board", ""), *gpu.device.uuid);

  // Promoted again from another board of the same lane: its board replaces the first.
  MachineFacts other = gpu;
  other.device.uuid = "GPU-99999999-1111-2222-3333-444444444444";
  ASSERT_EQ(Promote(other, 1.7), 0);
  EXPECT_EQ(Timing(gpu).value("ranked_ms", 0.0), 1.7);
  EXPECT_EQ(Timing(gpu).value("board", ""), *other.device.uuid);

  // A promotion on the CPU lane leaves the GPU lane's time and board as they were.
  ASSERT_EQ(Promote(CpuMachine(), 4.0), 0);
  EXPECT_EQ(Timing(gpu).value("ranked_ms", 0.0), 1.7);
  EXPECT_EQ(Timing(gpu).value("board", ""), *other.device.uuid);
  EXPECT_TRUE(Timing(CpuMachine()).is_null());  // a CPU lane keeps no time
}

TEST_F(PromoteOnAGpuLane, ATimeWhoseEvidenceNamesNoBoardKeepsNone) {
  MachineFacts gpu = CudaMachine();
  ASSERT_EQ(Promote(gpu, 1.5), 0);
  MachineFacts unnamed = gpu;
  unnamed.device.uuid.reset();
  ASSERT_EQ(Promote(unnamed, 1.6), 0);
  EXPECT_EQ(Timing(gpu).value("ranked_ms", 0.0), 1.6);
  EXPECT_FALSE(Timing(gpu).contains("board")) << Timing(gpu).dump();  // not the first board
}

// A record the run scored twice was held to its second scoring (`rerun`): that is what is
// promoted, whichever way it went.
TEST_F(PromoteOnAGpuLane, ARecordScoredTwiceIsPromotedWithItsSecondScoring) {
  MachineFacts gpu = CudaMachine();
  ASSERT_EQ(Promote(gpu, 1.5), 0);

  Json report = TestReport({Qualified("ncm", 1.2)});
  report["records"]["ncm"]["rerun"] =
      TestReport({Disqualified("ncm", {"timing-call"})})["records"]["ncm"];
  BinaryRun run = PromoteArgs(Evidence(gpu, report), {"--all-changed", "--reason", "a stall"});
  ASSERT_EQ(run.exit_code, 0) << run.out << run.err;
  EXPECT_EQ(Record()["expected"]["status"], "disqualified") << Record().dump();
  EXPECT_EQ(Record()["expected"]["broken"], Json::array({"timing-call"}));
  EXPECT_TRUE(Timing(gpu).is_null()) << Timing(gpu).dump();  // not the first scoring's 1.2 ms
  EXPECT_NE(
      run.out.find("promoted ncm: disqualified (timing-call) (its second scoring in the run)"),
      std::string::npos)
      << run.out;

  report = TestReport({Disqualified("ncm", {"dispersion-slow"})});
  report["records"]["ncm"]["rerun"] = TestReport({Qualified("ncm", 1.4)})["records"]["ncm"];
  run = PromoteArgs(Evidence(gpu, report), {"--record", "ncm", "--reason", "qualified again"});
  ASSERT_EQ(run.exit_code, 0) << run.out << run.err;
  EXPECT_EQ(Record()["expected"]["status"], "qualified");
  EXPECT_EQ(Timing(gpu).value("ranked_ms", 0.0), 1.4);
}

// A rerun that is not an object is not a scoring: refused, nothing written.
TEST_F(PromoteOnAGpuLane, AMalformedRerunIsBadInput) {
  Json report = TestReport({Qualified("ncm", 1.2)});
  report["records"]["ncm"]["rerun"] = "again";
  const std::string before = *ReadFile(baseline());
  BinaryRun run =
      PromoteArgs(Evidence(CudaMachine(), report), {"--record", "ncm", "--reason", "x"});
  EXPECT_EQ(run.exit_code, 2) << run.out << run.err;
  EXPECT_NE(run.err.find("records.ncm.rerun"), std::string::npos) << run.err;
  EXPECT_EQ(*ReadFile(baseline()), before);

  // A second scoring of other bytes than the first's is no scoring of this run.
  report = TestReport({Qualified("ncm", 1.2)});
  TestRecord other = Qualified("ncm", 1.1);
  other.source += "# other bytes\n";
  report["records"]["ncm"]["rerun"] = TestReport({other})["records"]["ncm"];
  run = PromoteArgs(Evidence(CudaMachine(), report), {"--record", "ncm", "--reason", "x"});
  EXPECT_EQ(run.exit_code, 2) << run.out << run.err;
  EXPECT_NE(run.err.find("records.ncm.rerun.sha256: "), std::string::npos) << run.err;
  EXPECT_NE(run.err.find("one run scores one file"), std::string::npos) << run.err;
  EXPECT_EQ(*ReadFile(baseline()), before);
}

// Times reviewed for other bytes of the submission do not stand for new bytes.
TEST_F(PromoteOnAGpuLane, NewBytesDropTheTimesOfOtherLanes) {
  MachineFacts gpu = CudaMachine();
  ASSERT_EQ(Promote(gpu, 1.5), 0);
  ASSERT_EQ(Promote(CpuMachine(), 4.0), 0);  // the same bytes: the GPU time stays
  EXPECT_EQ(Timing(gpu).value("ranked_ms", 0.0), 1.5);

  TestRecord changed = Qualified("ncm", 4.1);
  changed.source += "# a faster kernel\n";
  ASSERT_EQ(Promote(CpuMachine(), changed), 0);
  EXPECT_TRUE(Timing(gpu).is_null()) << Record().dump();
  EXPECT_EQ(Record()["sha256"], Sha256Hex(changed.source));
  const std::string lane = TestContract(TestLocked(), gpu)["lane"]["id"];
  EXPECT_NE(last_out_.find("dropped ncm's time on lane " + lane), std::string::npos) << last_out_;

  // On the GPU lane itself the new bytes' time replaces the old one, and the lane's tolerance,
  // set by hand, stays.
  ASSERT_EQ(Promote(gpu, 1.5), 0);
  Json doc = Json::parse(*ReadFile(baseline()));
  doc["records"]["ncm"]["timing"][lane]["relative"] = 0.2;
  ASSERT_TRUE(WriteFileAtomic(baseline(), doc.dump(2) + "\n").ok());
  changed.ranked_ms = 1.3;
  ASSERT_EQ(Promote(gpu, changed), 0);
  EXPECT_EQ(Timing(gpu).value("ranked_ms", 0.0), 1.3);
  EXPECT_EQ(Timing(gpu).value("relative", 0.0), 0.2) << Record().dump();
  EXPECT_EQ(last_out_.find("dropped"), std::string::npos) << last_out_;
}

TEST_F(PromoteOnAGpuLane, BadFlagsAndReportsAreRefusedAndNothingIsWritten) {
  const std::string evidence = Evidence(CudaMachine(), TestReport({Qualified("ncm", 1.2)}));
  const std::string before = *ReadFile(baseline());

  BinaryRun both = PromoteArgs(evidence, {"--record", "ncm", "--all-changed", "--reason", "x"});
  EXPECT_EQ(both.exit_code, 2);
  EXPECT_NE(both.err.find("not both"), std::string::npos) << both.err;

  BinaryRun unreviewed = PromoteArgs(evidence, {"--all-changed", "--reason", " UNREVIEWED\n"});
  EXPECT_EQ(unreviewed.exit_code, 2);
  EXPECT_NE(unreviewed.err.find("UNREVIEWED"), std::string::npos) << unreviewed.err;

  Json report = TestReport({Qualified("ncm", 1.2)});
  const std::string odd = Evidence(CudaMachine(), report);
  Json text = Json::parse(*ReadFile(odd + "/report.json"));
  ASSERT_TRUE(text.contains("ratchet"));
  // The same report with a contract_changed that is no boolean (its own evidence folder).
  report["ratchet"] = text["ratchet"];
  report["ratchet"]["contract_changed"] = "yes";
  const std::string bad = dir_ / "evidence/run-bad";
  ASSERT_TRUE(
      WriteTestEvidenceWithReport(bad, TestContract(TestLocked(), CudaMachine()), report).ok());
  BinaryRun malformed = PromoteArgs(bad, {"--all-changed", "--reason", "x"});
  EXPECT_EQ(malformed.exit_code, 2) << malformed.out << malformed.err;
  EXPECT_NE(malformed.err.find("ratchet.contract_changed"), std::string::npos) << malformed.err;

  EXPECT_EQ(*ReadFile(baseline()), before);
  for (const BinaryRun& run : {both, unreviewed, malformed}) {
    EXPECT_EQ(run.out.find("promoted"), std::string::npos) << run.out;
  }
}

// A refusal after the new baseline was made (here: a folder of the evidence's name is in the way
// of its copy) writes nothing and prints no `promoted` line.
TEST_F(PromoteOnAGpuLane, ARefusalPrintsNoPromotedLine) {
  TempDir outside;
  const std::string evidence =
      Evidence(CudaMachine(), TestReport({Qualified("ncm", 1.2)}), outside / "run-x");
  std::filesystem::create_directories(dir_ / "evidence/run-x");
  ASSERT_TRUE(WriteFileAtomic(dir_ / "evidence/run-x/junk", "not evidence\n").ok());
  const std::string before = *ReadFile(baseline());
  BinaryRun run = PromoteArgs(evidence, {"--record", "ncm", "--reason", "x"});
  EXPECT_EQ(run.exit_code, 1) << run.out << run.err;
  EXPECT_NE(run.err.find("is not a verified copy"), std::string::npos) << run.err;
  EXPECT_EQ(run.out.find("promoted"), std::string::npos) << run.out;
  EXPECT_EQ(*ReadFile(baseline()), before);
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
    std::vector<TestRecord> scored;
    Json records = Json::object(), errors = Json::array();
    for (int i = 0; i < kRecords; ++i) {
      const std::string id = "r" + std::to_string(i);
      scored.push_back(Qualified(id, 1.0 + i));
      records[id] = {{"submission", "submissions/ncm.py"}, {"band_bp", 540}};
      errors.push_back({{"code", "record-unreviewed"}, {"record", id}});
    }
    ASSERT_TRUE(WriteFileAtomic(dir / "submissions/ncm.py", scored[0].source).ok());
    const Json contract = TestContract(TestLocked(), CudaMachine());
    const std::string baseline = dir / "records.json";
    Json doc = {{"schema", "ratchet.baseline/1"},
                {"contract", {{"locked", contract["locked"]}}},
                {"lanes", Json::object()},
                {"records", records}};
    ASSERT_TRUE(WriteFileAtomic(baseline, doc.dump(2) + "\n").ok());
    std::string sha256;
    ASSERT_TRUE(LoadBaseline(baseline, &sha256).ok());
    Json report = TestReport(scored);
    report["ratchet"] = {{"baseline", baseline},
                         {"baseline_sha256", sha256},
                         {"errors", errors},
                         {"notes", Json::array()}};
    const std::string evidence = outside / "run-1";
    ASSERT_TRUE(WriteTestEvidenceWithReport(evidence, contract, report).ok());

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
