// The verdict line: what a reader sees last.
#include "audit/result.h"

#include <gtest/gtest.h>

namespace ratchet {
namespace {

TEST(VerdictTest, AClaimWithNoFindingsStandsAndIsRepeated) {
  AuditResult result;
  result.claims = {"ncm (ncm.py:method) at 5.40% error: qualified, ranked 61.280 ms"};
  EXPECT_EQ(result.verdict(), AuditVerdict::kStands);
  EXPECT_EQ(
      VerdictLine(result),
      "verdict: the claim stands: ncm (ncm.py:method) at 5.40% error: qualified, ranked 61.280 ms");
}

TEST(VerdictTest, NotesQualifyAClaimWithoutBreakingIt) {
  AuditResult result;
  result.claims = {"x: qualified"};
  result.Note("run.json: source_sha256", "not checked");
  result.NotOfficial("run.json: sandboxed", "false", "the method ran without the sandbox");
  result.NotOfficial("run.json: device", "cpu", "a CPU run");
  result.NotOfficial("run.json: sandboxed", "false", "the method ran without the sandbox");
  EXPECT_EQ(result.verdict(), AuditVerdict::kStands);
  EXPECT_EQ(
      VerdictLine(result),
      "verdict: the claim stands (not official: the method ran without the sandbox; a CPU run): "
      "x: qualified");
}

TEST(VerdictTest, OneBreakingFindingIsEnoughAndTheFirstIsNamed) {
  AuditResult result;
  result.claims = {"x: qualified"};
  result.NotOfficial("report.json: sandbox", "partial", "partial sandbox");
  result.Breaks("records/x/run-1/calls.json: calls[2].correct",
                "9736, but the labels match 9735\nmore");
  result.Breaks("report.json: records.x.ranked_ms", "differs");
  EXPECT_EQ(result.verdict(), AuditVerdict::kDoesNotStand);
  EXPECT_EQ(result.breaking(), 2u);
  EXPECT_EQ(VerdictLine(result),
            "verdict: the claim does not stand (2 findings; the first: "
            "records/x/run-1/calls.json: calls[2].correct: 9736, but the labels match 9735)");
}

TEST(VerdictTest, ALongFindingIsCutInTheVerdictLine) {
  AuditResult result;
  result.Breaks("f", std::string(300, 'a'));
  const std::string line = VerdictLine(result);
  EXPECT_LT(line.size(), 200u);
  EXPECT_NE(line.find("...)"), std::string::npos);
}

// A finding may quote a value of the evidence: a long one is kept to its first 2,000 bytes, cut
// at a character's start, and says how long it was.
TEST(VerdictTest, AFindingQuotingALongValueIsKeptShort) {
  AuditResult result;
  result.Breaks("calls.json", "dataset \"" + std::string(1990, 'a') + "\u00e9" +
                                  std::string(100000, 'b') + "\" is no dataset");
  result.Note(std::string(5000, 'w'), "a note");
  ASSERT_EQ(result.findings.size(), 2u);
  const std::string& kept = result.findings[0].message;
  EXPECT_EQ(kept, "dataset \"" + std::string(1990, 'a') + "... (102016 bytes in all)");
  EXPECT_LT(result.findings[1].where.size(), 2100u);
}

TEST(VerdictTest, NothingToAuditSaysWhy) {
  AuditResult result;
  result.nothing_to_audit = "run-2.json holds no record";
  EXPECT_EQ(result.verdict(), AuditVerdict::kNothingToAudit);
  EXPECT_EQ(VerdictLine(result), "verdict: nothing to audit: run-2.json holds no record");
}

}  // namespace
}  // namespace ratchet
