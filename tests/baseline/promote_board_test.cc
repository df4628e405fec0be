// `ratchet promote` on a GPU lane, from evidence made here (the CPU suite has no GPU to score
// on): the board a time was scored on is kept with it, dropped with a time whose evidence names
// no board, and left alone by a promotion on another lane.
#include <gtest/gtest.h>

#include <string>

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
                {"contract", {{"locked", contract["locked"]}, {"rule_set", Json::object()}}},
                {"lanes", Json::object()},
                {"records", {{"ncm", {{"submission", "submissions/ncm.py"}, {"band_bp", 540}}}}}};
    ASSERT_TRUE(WriteFileAtomic(baseline(), doc.dump(2) + "\n").ok());
  }

  std::string baseline() const { return dir_ / "records.json"; }

  // Evidence of `machine` scoring ncm at `ranked_ms`, as a run against the baseline as it is now
  // writes it, then promoted: returns promote's exit code.
  int Promote(const MachineFacts& machine, double ranked_ms) {
    const std::string evidence = dir_ / ("evidence/run-" + std::to_string(++runs_));
    std::string sha256;
    EXPECT_TRUE(LoadBaseline(baseline(), &sha256).ok());
    Json report = TestReport({Qualified("ncm", ranked_ms)});
    report["ratchet"] = {{"baseline", baseline()},
                         {"baseline_sha256", sha256},
                         {"errors", {{{"code", "record-unreviewed"}, {"record", "ncm"}}}},
                         {"notes", Json::array()}};
    EXPECT_TRUE(
        WriteTestEvidenceWithReport(evidence, TestContract(TestLocked(), machine), report).ok());
    BinaryRun run = RunRatchet({"promote", "--baseline", baseline(), "--evidence", evidence,
                                "--record", "ncm", "--reviewer", "a reviewer", "--reason", "test"});
    EXPECT_EQ(run.exit_code, 0) << run.out << run.err;
    return run.exit_code;
  }

  // The reviewed timing of ncm on `machine`'s lane, as the baseline file holds it.
  Json Timing(const MachineFacts& machine) const {
    const std::string lane = TestContract(TestLocked(), machine)["lane"]["id"];
    return Json::parse(*ReadFile(baseline()))["records"]["ncm"]["timing"].value(lane, Json());
  }

  TempDir dir_;
  int runs_ = 0;
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

}  // namespace
}  // namespace ratchet
