// CompareEvidence over sides read from evidence directories written by EvidenceWriter (a stand-in
// for verified sides: test_evidence.h): every record category, the tolerance, the contract
// difference, lanes. What verification finds is the command's test (compare_command_test.cc).
#include "compare/compare.h"

#include <gtest/gtest.h>

#include <fstream>

#include "evidence/reader.h"
#include "support/temp_dir.h"
#include "test_evidence.h"

namespace ratchet {
namespace {

Comparison CompareDirs(const std::string& a, const std::string& b,
                       const CompareOptions& options = CompareOptions()) {
  return CompareEvidence(ReportSide("old", a), ReportSide("new", b), options);
}

const RecordComparison* Find(const Comparison& comparison, const std::string& id) {
  for (const RecordComparison& record : comparison.records) {
    if (record.id == id) return &record;
  }
  ADD_FAILURE() << "no record " << id;
  static const RecordComparison kNone;
  return &kNone;
}

std::vector<std::string> Ids(const Comparison& comparison) {
  std::vector<std::string> ids;
  for (const RecordComparison& record : comparison.records) ids.push_back(record.id);
  return ids;
}

std::vector<std::string> Paths(const std::vector<ContractDifference>& differences) {
  std::vector<std::string> paths;
  for (const ContractDifference& difference : differences) paths.push_back(difference.path);
  return paths;
}

class CompareTest : public ::testing::Test {
 protected:
  TempDir dir_;  // first: a_ and b_ are made from it
  std::string a_ = dir_ / "a";
  std::string b_ = dir_ / "b";
  Json gpu_ = TestContract(TestLocked(), CudaMachine());
};

TEST_F(CompareTest, EveryCategoryOnOneGpuLane) {
  TestRecord edited = Qualified("edited", 10.0);
  ASSERT_TRUE(WriteTestEvidence(a_, gpu_,
                                {Qualified("steady", 61.875), Qualified("slower", 50.0),
                                 Qualified("faster", 40.0), Qualified("lost", 30.0),
                                 Qualified("gone", 20.0), edited})
                  .ok());
  edited.source += "# tuned\n";
  ASSERT_TRUE(WriteTestEvidence(
                  b_, gpu_,
                  {Qualified("steady", 62.5), Qualified("slower", 55.0), Qualified("faster", 36.0),
                   Disqualified("lost", {"accuracy"}), Qualified("new", 25.0), edited})
                  .ok());
  Comparison comparison = CompareDirs(a_, b_);
  EXPECT_TRUE(comparison.a.complete);
  EXPECT_TRUE(comparison.b.complete);
  EXPECT_TRUE(comparison.locked.empty());
  EXPECT_TRUE(comparison.lane.empty());
  EXPECT_TRUE(comparison.timings_compared) << comparison.timings_note;
  EXPECT_EQ(Ids(comparison), (std::vector<std::string>{"edited", "faster", "gone", "lost", "new",
                                                       "slower", "steady"}));
  EXPECT_EQ(Find(comparison, "steady")->category, RecordCategory::kSame);
  EXPECT_TRUE(Find(comparison, "steady")->timing_compared);
  EXPECT_EQ(Find(comparison, "slower")->category, RecordCategory::kRegressed);
  EXPECT_DOUBLE_EQ(Find(comparison, "slower")->ratio.value_or(0), 1.1);
  EXPECT_EQ(Find(comparison, "faster")->category, RecordCategory::kImproved);
  EXPECT_DOUBLE_EQ(Find(comparison, "faster")->ratio.value_or(0), 0.9);
  EXPECT_EQ(Find(comparison, "gone")->category, RecordCategory::kRemoved);
  EXPECT_FALSE(Find(comparison, "gone")->b.has_value());
  EXPECT_EQ(Find(comparison, "new")->category, RecordCategory::kAdded);
  EXPECT_FALSE(Find(comparison, "new")->a.has_value());
  const RecordComparison* lost = Find(comparison, "lost");
  EXPECT_EQ(lost->category, RecordCategory::kStatusChanged);
  EXPECT_EQ(lost->changes, (std::vector<std::string>{"status qualified -> disqualified",
                                                     "broken [] -> [accuracy]"}));
  EXPECT_FALSE(lost->ratio.has_value());
  const RecordComparison* changed = Find(comparison, "edited");
  EXPECT_EQ(changed->category, RecordCategory::kStatusChanged);
  ASSERT_EQ(changed->changes.size(), 1u);
  EXPECT_EQ(changed->changes[0].rfind("submission sha256 ", 0), 0u) << changed->changes[0];
  EXPECT_EQ(comparison.Counts(), (std::vector<int>{1, 1, 1, 2, 1, 1}));
  EXPECT_FALSE(comparison.Same());
}

TEST_F(CompareTest, ATimingDiffersOnlyBeyondTheLargerOfRelativeAndAbsolute) {
  ASSERT_TRUE(
      WriteTestEvidence(
          a_, gpu_, {Qualified("tiny", 1.0), Qualified("big", 100.0), Qualified("bigger", 100.0)})
          .ok());
  ASSERT_TRUE(
      WriteTestEvidence(
          b_, gpu_, {Qualified("tiny", 1.09), Qualified("big", 104.9), Qualified("bigger", 105.1)})
          .ok());
  // Defaults: 5% or 0.1 ms, whichever is larger.
  Comparison comparison = CompareDirs(a_, b_);
  EXPECT_EQ(Find(comparison, "tiny")->category, RecordCategory::kSame);  // 9%, but 0.09 ms
  EXPECT_EQ(Find(comparison, "big")->category, RecordCategory::kSame);
  EXPECT_EQ(Find(comparison, "bigger")->category, RecordCategory::kRegressed);

  CompareOptions loose;
  loose.relative = 0.2;
  comparison = CompareDirs(a_, b_, loose);
  EXPECT_EQ(Find(comparison, "bigger")->category, RecordCategory::kSame);
  EXPECT_TRUE(comparison.Same());

  CompareOptions strict;
  strict.relative = 0;
  strict.absolute_ms = 0.05;
  comparison = CompareDirs(a_, b_, strict);
  EXPECT_EQ(Find(comparison, "tiny")->category, RecordCategory::kRegressed);
  EXPECT_EQ(Find(comparison, "big")->category, RecordCategory::kRegressed);
}

TEST_F(CompareTest, BrokenRulesCompareAsASetAndABandChangeIsAStatusChange) {
  TestRecord banded = Qualified("banded", 30.0);
  ASSERT_TRUE(WriteTestEvidence(a_, gpu_,
                                {Disqualified("reordered", {"accuracy", "timing"}),
                                 Disqualified("fewer", {"accuracy", "timing"}), banded})
                  .ok());
  banded.band_bp = 270;
  ASSERT_TRUE(WriteTestEvidence(b_, gpu_,
                                {Disqualified("reordered", {"timing", "accuracy", "timing"}),
                                 Disqualified("fewer", {"accuracy"}), banded})
                  .ok());
  Comparison comparison = CompareDirs(a_, b_);
  EXPECT_EQ(Find(comparison, "reordered")->category, RecordCategory::kSame);
  EXPECT_FALSE(Find(comparison, "reordered")->ratio.has_value());
  EXPECT_EQ(Find(comparison, "fewer")->category, RecordCategory::kStatusChanged);
  EXPECT_EQ(Find(comparison, "fewer")->changes,
            std::vector<std::string>{"broken [accuracy, timing] -> [accuracy]"});
  EXPECT_EQ(Find(comparison, "banded")->category, RecordCategory::kStatusChanged);
  EXPECT_EQ(Find(comparison, "banded")->changes, std::vector<std::string>{"band_bp 540 -> 270"});
}

TEST_F(CompareTest, ALockedChangeIsNamedFieldByFieldWithBothValues) {
  LockedInputs upgraded = TestLocked();
  upgraded.rules_sha256 = std::string(64, '9');
  upgraded.datasets[2] = {"kmnist", true, std::string(64, 'f'), std::string(64, '0')};
  ASSERT_TRUE(WriteTestEvidence(a_, gpu_, {Qualified("steady", 61.875)}).ok());
  ASSERT_TRUE(
      WriteTestEvidence(b_, TestContract(upgraded, CudaMachine()), {Qualified("steady", 61.875)})
          .ok());
  Comparison comparison = CompareDirs(a_, b_);
  ASSERT_EQ(Paths(comparison.locked),
            (std::vector<std::string>{"locked.datasets.kmnist", "locked.rules.sha256"}));
  EXPECT_EQ(comparison.locked[0].a, Json(nullptr));
  EXPECT_EQ(comparison.locked[0].b, (Json{{"images_sha256", std::string(64, 'f')},
                                          {"labels_sha256", std::string(64, '0')}}));
  EXPECT_EQ(comparison.locked[1].a, Json(std::string(64, 'b')));
  EXPECT_EQ(comparison.locked[1].b, Json(std::string(64, '9')));
  EXPECT_TRUE(comparison.lane.empty());
  EXPECT_TRUE(comparison.same_lane);
  EXPECT_EQ(Find(comparison, "steady")->category, RecordCategory::kSame);
  EXPECT_FALSE(comparison.Same()) << "a locked change is never the same";
}

TEST_F(CompareTest, AnotherLaneIsNamedAndItsTimingsAreNotCompared) {
  MachineFacts upgraded = CudaMachine();
  upgraded.libtorch = "2.6.0";
  upgraded.binary_sha256 = std::string(64, '2');
  upgraded.device.driver = "560.35.03";
  Json other = TestContract(TestLocked(), upgraded);
  ASSERT_TRUE(WriteTestEvidence(a_, gpu_, {Qualified("steady", 50.0), Qualified("dq", 40.0)}).ok());
  ASSERT_TRUE(
      WriteTestEvidence(b_, other, {Qualified("steady", 100.0), Disqualified("dq", {"timing"})})
          .ok());
  Comparison comparison = CompareDirs(a_, b_);
  EXPECT_TRUE(comparison.locked.empty());
  EXPECT_EQ(Paths(comparison.lane),
            (std::vector<std::string>{"lane.binaries.ratchet-scorer", "lane.device.driver",
                                      "lane.id", "lane.toolchain.libtorch"}));
  EXPECT_EQ(comparison.lane[3].a, Json("2.5.1"));
  EXPECT_EQ(comparison.lane[3].b, Json("2.6.0"));
  EXPECT_FALSE(comparison.same_lane);
  EXPECT_FALSE(comparison.timings_compared);
  EXPECT_EQ(comparison.timings_note, "different lanes");
  const RecordComparison* steady = Find(comparison, "steady");
  EXPECT_EQ(steady->category, RecordCategory::kSame) << "twice as slow, but on another lane";
  EXPECT_FALSE(steady->timing_compared);
  EXPECT_DOUBLE_EQ(steady->ratio.value_or(0), 2.0);
  EXPECT_EQ(steady->timing_note, "different lanes");
  // The outcome still decides.
  EXPECT_EQ(Find(comparison, "dq")->category, RecordCategory::kStatusChanged);
}

TEST_F(CompareTest, OnlyALaneChangeWithTheSameOutcomesIsTheSame) {
  MachineFacts upgraded = CudaMachine();
  upgraded.device.power_limit_mw = 600000;
  ASSERT_TRUE(WriteTestEvidence(a_, gpu_, {Qualified("steady", 50.0)}).ok());
  ASSERT_TRUE(
      WriteTestEvidence(b_, TestContract(TestLocked(), upgraded), {Qualified("steady", 80.0)})
          .ok());
  Comparison comparison = CompareDirs(a_, b_);
  EXPECT_EQ(Paths(comparison.lane),
            (std::vector<std::string>{"lane.device.power_limit_w", "lane.id"}));
  EXPECT_TRUE(comparison.Same());
}

TEST_F(CompareTest, ACpuLaneNeverComparesTimings) {
  Json cpu = TestContract(TestLocked(), CpuMachine());
  ASSERT_EQ(cpu["lane"]["device"], (Json{{"kind", "cpu"}}));
  ASSERT_TRUE(WriteTestEvidence(a_, cpu, {Qualified("steady", 500.0)}).ok());
  ASSERT_TRUE(WriteTestEvidence(b_, cpu, {Qualified("steady", 1500.0)}).ok());
  Comparison comparison = CompareDirs(a_, b_);
  EXPECT_TRUE(comparison.same_lane);
  EXPECT_FALSE(comparison.timings_compared);
  EXPECT_EQ(comparison.timings_note, "CPU lane");
  const RecordComparison* steady = Find(comparison, "steady");
  EXPECT_EQ(steady->category, RecordCategory::kSame);
  EXPECT_DOUBLE_EQ(steady->ratio.value_or(0), 3.0);
  EXPECT_EQ(steady->timing_note, "CPU lane");
  EXPECT_TRUE(comparison.Same());
}

TEST_F(CompareTest, OneLaneIdOverDifferentLaneFieldsIsNotOneLane) {
  Json forged = gpu_;
  forged["lane"]["toolchain"]["libtorch"] = "2.6.0";  // the id left as it was
  ASSERT_TRUE(WriteTestEvidence(a_, gpu_, {Qualified("steady", 50.0)}).ok());
  ASSERT_TRUE(WriteTestEvidence(b_, forged, {Qualified("steady", 80.0)}).ok());
  Comparison comparison = CompareDirs(a_, b_);
  EXPECT_EQ(Paths(comparison.lane), std::vector<std::string>{"lane.toolchain.libtorch"});
  EXPECT_FALSE(comparison.timings_compared);
  EXPECT_EQ(Find(comparison, "steady")->category, RecordCategory::kSame);
  EXPECT_EQ(Find(comparison, "steady")->timing_note, "one lane id over different lane fields");
}

TEST(DiffContractPart, GivesBothValuesAndAgreesWithDiffLocked) {
  Json a = TestContract(TestLocked(), CudaMachine());
  Json b = a;
  b["locked"]["workers"].erase("worker.py");
  b["locked"]["scorer"]["version"] = "0.2.0";
  b["lane"]["toolchain"]["libraries"]["libz.so.1"] = std::string(64, 'f');
  std::vector<ContractDifference> locked = DiffContractPart(a, b, "locked");
  EXPECT_EQ(Paths(locked), DiffLocked(a, b));
  ASSERT_EQ(Paths(locked),
            (std::vector<std::string>{"locked.scorer.version", "locked.workers.worker.py"}));
  EXPECT_EQ(locked[0].a, Json("0.1.0"));
  EXPECT_EQ(locked[0].b, Json("0.2.0"));
  EXPECT_EQ(locked[1].a, Json(std::string(64, '5')));
  EXPECT_FALSE(locked[1].b.has_value()) << "absent, which is not null";
  std::vector<ContractDifference> lane = DiffContractPart(a, b, "lane");
  ASSERT_EQ(Paths(lane), std::vector<std::string>{"lane.toolchain.libraries.libz.so.1"});
  EXPECT_FALSE(lane[0].a.has_value());

  // A contract without the part at all: one difference, the part itself.
  Json no_lane = a;
  no_lane.erase("lane");
  lane = DiffContractPart(a, no_lane, "lane");
  ASSERT_EQ(Paths(lane), std::vector<std::string>{"lane"});
  EXPECT_EQ(lane[0].a, a["lane"]);
  EXPECT_FALSE(lane[0].b.has_value());
  EXPECT_TRUE(DiffContractPart(no_lane, no_lane, "lane").empty());
}

}  // namespace
}  // namespace ratchet
