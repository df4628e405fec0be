// The text and Markdown a comparison prints, pinned by files under testdata/ for one upgrade
// that touches every category, plus what each must say in the other cases.
#include "compare/render.h"

#include <gtest/gtest.h>

#include <cstdlib>
#include <fstream>

#include "core/file.h"
#include "evidence/reader.h"
#include "support/temp_dir.h"
#include "test_evidence.h"

namespace ratchet {
namespace {

std::string TestData(const std::string& name) {
  const char* root = std::getenv("RATCHET_SOURCE_DIR");
  return std::string(root ? root : RATCHET_COMPARE_TEST_SOURCE_DIR) + "/tests/compare/testdata/" +
         name;
}

// Compares `actual` with the pinned file; RATCHET_UPDATE_TESTDATA=1 rewrites the file instead.
void ExpectPinned(const std::string& actual, const std::string& name) {
  const std::string path = TestData(name);
  if (std::getenv("RATCHET_UPDATE_TESTDATA") != nullptr) {
    std::ofstream(path, std::ios::binary) << actual;
  }
  Result<std::string> pinned = ReadFile(path);
  ASSERT_TRUE(pinned.ok()) << pinned.status().ToString();
  EXPECT_EQ(actual, *pinned) << "the output differs from " << path << "; it is now:\n" << actual;
}

Comparison Compare(const std::string& a, const std::string& b) {
  return CompareEvidence(ReportSide("evidence/old", a), ReportSide("evidence/new", b),
                         CompareOptions());
}

// A rule-set upgrade on one H200 lane: every category once.
Comparison Upgrade(const TempDir& dir) {
  LockedInputs upgraded = TestLocked();
  upgraded.rules_sha256 = std::string(64, '9');
  Json old_contract = TestContract(TestLocked(), CudaMachine());
  Json new_contract = TestContract(upgraded, CudaMachine());
  TestRecord edited = Qualified("edited", 10.0);
  EXPECT_TRUE(WriteTestEvidence(dir / "old", old_contract,
                                {Qualified("steady", 61.875), Qualified("slower", 50.0),
                                 Qualified("faster", 40.0), Qualified("lost", 30.0),
                                 Qualified("gone", 20.0), edited})
                  .ok());
  edited.source += "# tuned\n";
  EXPECT_TRUE(WriteTestEvidence(
                  dir / "new", new_contract,
                  {Qualified("steady", 62.5), Qualified("slower", 55.0), Qualified("faster", 36.0),
                   Disqualified("lost", {"accuracy"}), Qualified("new", 25.0), edited})
                  .ok());
  return Compare(dir / "old", dir / "new");
}

TEST(RenderComparison, TextIsPinned) {
  TempDir dir;
  ExpectPinned(RenderComparisonText(Upgrade(dir), CompareOptions()), "upgrade.txt");
}

TEST(RenderComparison, MarkdownIsPinned) {
  TempDir dir;
  ExpectPinned(RenderComparisonMarkdown(Upgrade(dir), CompareOptions()), "upgrade.md");
}

TEST(RenderComparison, WhatIsWrongComesFirst) {
  TempDir dir;
  Json cpu = TestContract(TestLocked(), CpuMachine());
  ASSERT_TRUE(WriteTestEvidence(dir / "old", cpu, {Qualified("steady", 50.0)}).ok());
  ASSERT_TRUE(WriteTestEvidence(dir / "new", cpu, {Qualified("steady", 50.0)}, "interrupted").ok());
  Comparison comparison = Compare(dir / "old", dir / "new");
  const std::string text = RenderComparisonText(comparison, CompareOptions());
  EXPECT_EQ(text.rfind("incomplete evidence: the comparison below is no verdict on the records\n"
                       "  B evidence/new: status.json: the run is interrupted (exit 130): "
                       "interrupted by a signal\n",
                       0),
            0u)
      << text;
  const std::string markdown = RenderComparisonMarkdown(comparison, CompareOptions());
  EXPECT_EQ(markdown.rfind("## ratchet compare\n\n> [!WARNING]\n> **Incomplete evidence**", 0), 0u)
      << markdown;
  EXPECT_NE(
      markdown.find("> - B evidence/new\\: status\\.json\\: the run is interrupted (exit 130)"),
      std::string::npos)
      << markdown;
  EXPECT_NE(text.find("verdict: differs: incomplete evidence, 1 record differs\n"),
            std::string::npos)
      << text;
}

TEST(RenderComparison, ARatioThatWasNotComparedSaysWhy) {
  TempDir dir;
  Json cpu = TestContract(TestLocked(), CpuMachine());
  ASSERT_TRUE(WriteTestEvidence(dir / "old", cpu, {Qualified("steady", 500.0)}).ok());
  ASSERT_TRUE(WriteTestEvidence(dir / "new", cpu, {Qualified("steady", 750.0)}).ok());
  const std::string text =
      RenderComparisonText(Compare(dir / "old", dir / "new"), CompareOptions());
  EXPECT_NE(text.find("timings: not compared (CPU lane, whose timings are never compared)"),
            std::string::npos)
      << text;
  EXPECT_NE(text.find("  steady  same          500.000      750.000  1.500x  "
                      "not compared: CPU lane\n"),
            std::string::npos)
      << text;
  EXPECT_NE(text.find("verdict: the same\n"), std::string::npos) << text;
}

TEST(RenderComparison, MarkdownCellsCannotBreakTheTable) {
  TempDir dir;
  Json contract = TestContract(TestLocked(), CudaMachine());
  Json report = TestReport({Qualified("a|b`c", 50.0)});
  ASSERT_TRUE(WriteTestEvidenceWithReport(dir / "old", contract, report).ok());
  ASSERT_TRUE(WriteTestEvidence(dir / "new", contract, {}).ok());
  const std::string markdown =
      RenderComparisonMarkdown(Compare(dir / "old", dir / "new"), CompareOptions());
  EXPECT_NE(markdown.find("| ``a\\|b`c`` | removed | 50.000 | - | - | |\n"), std::string::npos)
      << markdown;
}

// A record `ratchet run` scored twice is compared at its second scoring, the one the run held
// to the baseline: a first scoring broken by a busy machine is no status change.
TEST(RenderComparison, ARecordScoredTwiceIsComparedAtItsSecondScoring) {
  TempDir dir;
  Json cpu = TestContract(TestLocked(), CpuMachine());
  ASSERT_TRUE(
      WriteTestEvidence(dir / "old", cpu, {Disqualified("weak", {"accuracy", "draw-floor"})}).ok());
  Json report = TestReport({Disqualified("weak", {"accuracy", "dispersion-slow", "draw-floor"})});
  report["records"]["weak"]["rerun"] =
      TestReport({Disqualified("weak", {"accuracy", "draw-floor"})})["records"]["weak"];
  ASSERT_TRUE(WriteTestEvidenceWithReport(dir / "new", cpu, report).ok());
  const Comparison comparison = Compare(dir / "old", dir / "new");
  ASSERT_EQ(comparison.records.size(), 1u);
  EXPECT_EQ(comparison.records[0].category, RecordCategory::kSame);
  const std::string text = RenderComparisonText(comparison, CompareOptions());
  EXPECT_NE(text.find("  weak    same                -            -    -  "
                      "B: the run's second scoring\n"),
            std::string::npos)
      << text;
}

}  // namespace
}  // namespace ratchet
