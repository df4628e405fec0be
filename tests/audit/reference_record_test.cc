// The published records of the reference scorer (copied byte for byte into testdata/): each gets
// the verdict its own fields support, and tampered copies of them do not stand.
#include "audit/reference_record.h"

#include <gtest/gtest.h>

#include "audit/audit.h"
#include "core/sha256.h"
#include "fixture.h"
#include "testdata.h"

namespace ratchet {
namespace {

// The reference scorer's rule set: its records name its version.
const RuleSet& Rules() {
  static const RuleSet rules = LoadRuleSet(std::string("mnist-a100/1.2.0")).value();
  return rules;
}

AuditResult AuditJson(const Json& document, const std::string& name = "run-1.json",
                      const std::optional<SubmissionFile>& submission = std::nullopt,
                      const RuleSet& rules = Rules()) {
  AuditResult result;
  Status status = AuditReferenceRecord(document, name, rules, submission, &result);
  EXPECT_TRUE(status.ok()) << status.message();
  return result;
}

TEST(ReferenceRecordTest, TheCopiesAreTheCorpusFilesByteForByte) {
  const std::pair<const char*, const char*> pinned[] = {
      {kStanding, "e531aaee952f6b7b66b9268a3948d50218e4e134b80daabca0596b56c64671be"},
      {kDisqualified, "308cfd911e3f1248c04d8e7fc698f3953b2506881f7003261b7d0bd735f81d8f"},
      {kUnsandboxedBare, "7f6c9abca0ad87370918250eb5ad1c939454068dcef7cb342c383b4f4ad1b97e"},
      {kStandingOtherBoard, "5ca1a6e78442c4469f211a356642f25ffe823d658d13a14abdc1bba927da9646"},
      {kWrapperWithoutRecord, "e19404369a99675b4b903659f14d0a9c72716924f94d7066b69806a85ef5000f"},
  };
  for (const auto& [relative, sha256] : pinned) {
    Result<std::string> bytes = ReadFile(CorpusPath(relative));
    ASSERT_TRUE(bytes.ok()) << bytes.status().message();
    EXPECT_EQ(Sha256Hex(*bytes), sha256) << relative;
  }
}

TEST(ReferenceRecordTest, AStandingRecordStandsWithItsEnergyColumn) {
  for (const char* relative : {kStanding, kStandingOtherBoard}) {
    const AuditResult result = AuditJson(CorpusJson(relative));
    EXPECT_EQ(result.verdict(), AuditVerdict::kStands) << relative << "\n" << Findings(result);
    EXPECT_TRUE(result.unofficial.empty());
    ASSERT_EQ(result.checked.size(), 3u) << relative;
    EXPECT_EQ(result.checked[0],
              "the verdict re-judged from the 15 calls (problems, summary, ranked time)");
    EXPECT_EQ(result.checked[1].rfind(
                  "the energy column recomputed from its windows; telemetry reference ", 0),
              0u);
    EXPECT_EQ(result.checked[2],
              "the exit status and 19 lines of the printed output against the record");
  }
  const AuditResult result = AuditJson(CorpusJson(kStanding));
  ASSERT_EQ(result.claims.size(), 1u);
  EXPECT_EQ(result.claims[0],
            "fast_mlp.py:fast_mlp at 5.40% error: qualified, ranked 61.280 ms, energy 2131.405 mJ "
            "per call");
  EXPECT_EQ(result.checked[1],
            "the energy column recomputed from its windows; telemetry reference 8.23 J/TFLOP at "
            "18.3 TFLOP/s, "
            "within the rule set's band for NVIDIA A100 (6-11 J/TFLOP, 15-23 TFLOP/s)");
}

// A band that names its board whole (as ratchet's H200 band does) judges that board alone; the
// checked line names the board as the band gives it.
TEST(ReferenceRecordTest, ABandGivenByTheWholeNameJudgesThatBoardAlone) {
  Json document = Json::parse(EmbeddedRuleSetText("mnist-a100/1.2.0"));
  Json& band = document["energy"]["reference_bands"][0];
  band.erase("prefix");
  band["name"] = "NVIDIA A100-SXM4-80GB";
  Result<RuleSet> named = ParseRuleSet(document.dump(2), "named.json");
  ASSERT_TRUE(named.ok()) << named.status().message();

  const AuditResult result = AuditJson(CorpusJson(kStanding), "run-1.json", std::nullopt, *named);
  EXPECT_EQ(result.verdict(), AuditVerdict::kStands) << Findings(result);
  ASSERT_EQ(result.checked.size(), 3u);
  EXPECT_EQ(result.checked[1],
            "the energy column recomputed from its windows; telemetry reference 8.23 J/TFLOP at "
            "18.3 TFLOP/s, "
            "within the rule set's band for NVIDIA A100-SXM4-80GB (6-11 J/TFLOP, 15-23 TFLOP/s)");

  // The other published board, an "NVIDIA A100 80GB PCIe", has no band under it: the record's
  // band, the seed's prefix band, is not the rule set's.
  const AuditResult other =
      AuditJson(CorpusJson(kStandingOtherBoard), "run-2-ours.json", std::nullopt, *named);
  EXPECT_TRUE(HasFinding(other, "run-2-ours.json: record.energy.reference.band",
                         "band for NVIDIA A100 80GB PCIe is null"))
      << Findings(other);

  // A name is never a prefix: "NVIDIA A100" given as a name judges neither published board,
  // though both names start with it (as the seed's prefix band, which judges both).
  band["name"] = "NVIDIA A100";
  Result<RuleSet> short_name = ParseRuleSet(document.dump(2), "short.json");
  ASSERT_TRUE(short_name.ok()) << short_name.status().message();
  for (const auto& [relative, file] :
       {std::pair{kStanding, "run-1.json"}, std::pair{kStandingOtherBoard, "run-2-ours.json"}}) {
    const AuditResult unmatched = AuditJson(CorpusJson(relative), file, std::nullopt, *short_name);
    EXPECT_TRUE(
        HasFinding(unmatched, std::string(file) + ": record.energy.reference.band", "is null"))
        << relative << "\n"
        << Findings(unmatched);
    EXPECT_EQ(AuditJson(CorpusJson(relative), file).verdict(), AuditVerdict::kStands) << relative;
  }
}

TEST(ReferenceRecordTest, ADisqualifiedRunIsRederivedAsDisqualifiedWithTheSameProblem) {
  const AuditResult result = AuditJson(CorpusJson(kDisqualified));
  EXPECT_EQ(result.verdict(), AuditVerdict::kStands) << Findings(result);
  ASSERT_EQ(result.claims.size(), 1u);
  EXPECT_EQ(result.claims[0],
            "ladder_t_d3.py:ladder at 2.70% error: disqualified (MNIST accuracy 97.278% "
            "(107,006/110,000); the "
            "band needs 107,030 correct)");
  EXPECT_EQ(result.checked[0],
            "the verdict re-judged from the 15 calls (problems, summary, ranked time)");
  // A copy that drops the problem and claims a time does not stand: the calls still break it.
  Json cleared = CorpusJson(kDisqualified);
  cleared["record"]["problems"] = Json::array();
  cleared["record"]["ranked_ms"] = 5030.800115411932;
  const AuditResult forged = AuditJson(cleared);
  EXPECT_EQ(forged.verdict(), AuditVerdict::kDoesNotStand);
  EXPECT_TRUE(HasFinding(
      forged, "run-1.json: record.problems",
      "re-judging the calls breaks rule accuracy: 'MNIST accuracy 97.278% (107,006/110,000); "
      "the band needs 107,030 correct', which the record does not list"))
      << Findings(forged);
  EXPECT_TRUE(HasFinding(forged, "run-1.json: record.ranked_ms", "for a run the calls disqualify"));
  EXPECT_TRUE(HasFinding(forged, "run-1.json: returncode",
                         "1, but the scorer exits 0 for a run that qualifies"));
}

TEST(ReferenceRecordTest, AnUnsandboxedRecordStandsOnlyAsAnUnofficialClaim) {
  const AuditResult result = AuditJson(CorpusJson(kUnsandboxedBare), "evaluation.json");
  EXPECT_EQ(result.verdict(), AuditVerdict::kStands) << Findings(result);
  EXPECT_EQ(result.unofficial, std::vector<std::string>{"the method ran without the sandbox"});
  EXPECT_EQ(VerdictLine(result),
            "verdict: the claim stands (not official: the method ran without the sandbox): "
            "mlp_neighbor3_register_d1.py:classify at 5.40% error: qualified, ranked 3.653 ms");
}

TEST(ReferenceRecordTest, ACpuRecordIsNotOfficial) {
  Json record = CorpusJson(kUnsandboxedBare);
  record["device"] = "cpu (not an A100 time)";
  const AuditResult result = AuditJson(record, "evaluation.json");
  EXPECT_EQ(result.verdict(), AuditVerdict::kStands) << Findings(result);
  EXPECT_NE(std::find(result.unofficial.begin(), result.unofficial.end(), "a CPU run"),
            result.unofficial.end());
}

TEST(ReferenceRecordTest, AWrapperWithoutARecordHasNothingToAudit) {
  const AuditResult result = AuditJson(CorpusJson(kWrapperWithoutRecord), "run-2.json");
  EXPECT_EQ(result.verdict(), AuditVerdict::kNothingToAudit);
  EXPECT_EQ(result.nothing_to_audit,
            "run-2.json holds no record (no \"record\" field): the 'score 61.388 ms' its stdout "
            "prints cannot be "
            "re-derived without the calls");
}

// Tampered copies: one call's ms or correct changed, a call removed, in the wrapped record (whose
// printed output repeats every call) and in the bare one (which repeats nothing).
TEST(ReferenceRecordTest, AChangedTimeIsFound) {
  Json wrapped = CorpusJson(kStanding);
  wrapped["record"]["calls"][3]["ms"] = wrapped["record"]["calls"][3]["ms"].get<double>() + 0.5;
  AuditResult result = AuditJson(wrapped);
  EXPECT_EQ(result.verdict(), AuditVerdict::kDoesNotStand);
  EXPECT_TRUE(HasFinding(
      result, "run-1.json: stdout, call 4/15",
      "prints '  call  4/15: 60.700 ms, scorer's clock 60.814 ms'; record.calls[3] gives "
      "'  call  4/15: 61.200 ms, scorer's clock 60.814 ms'"))
      << Findings(result);
  EXPECT_TRUE(HasFinding(result, "run-1.json: record.summary", "re-judging the calls gives"));

  Json bare = CorpusJson(kUnsandboxedBare);
  bare["calls"][7]["ms"] =
      bare["calls"][7]["ms"].get<double>() + 0.5;  // a kmnist call: the ranked group
  result = AuditJson(bare, "evaluation.json");
  EXPECT_EQ(result.verdict(), AuditVerdict::kDoesNotStand);
  EXPECT_TRUE(HasFinding(result, "evaluation.json: ranked_ms",
                         "the record says 3.6528089109261055; "
                         "re-judging the calls gives "))
      << Findings(result);
}

TEST(ReferenceRecordTest, AChangedCountOfCorrectLabelsIsFound) {
  Json wrapped = CorpusJson(kDisqualified);
  wrapped["record"]["calls"][0]["correct"] = 9800;
  AuditResult result = AuditJson(wrapped);
  EXPECT_EQ(result.verdict(), AuditVerdict::kDoesNotStand);
  EXPECT_TRUE(
      HasFinding(result, "run-1.json: record.problems[0]", "does not follow from the calls"))
      << Findings(result);
  EXPECT_TRUE(HasFinding(result, "run-1.json: record.summary", "(107,070/110,000)"));

  Json bare = CorpusJson(kUnsandboxedBare);
  bare["calls"][0]["correct"] = 9505;
  result = AuditJson(bare, "evaluation.json");
  EXPECT_TRUE(HasFinding(result, "evaluation.json: summary",
                         "re-judging the calls gives 'MNIST 95.04% (104,543/"))
      << Findings(result);
}

TEST(ReferenceRecordTest, ARemovedCallIsFound) {
  for (const char* relative : {kStanding, kDisqualified}) {
    Json wrapped = CorpusJson(relative);
    wrapped["record"]["calls"].erase(6);
    const AuditResult result = AuditJson(wrapped);
    EXPECT_EQ(result.verdict(), AuditVerdict::kDoesNotStand);
    EXPECT_TRUE(HasFinding(result, "run-1.json: record.calls", "14 calls")) << Findings(result);
    EXPECT_TRUE(HasFinding(result, "run-1.json: stdout, call 7/15")) << Findings(result);
  }
  Json bare = CorpusJson(kUnsandboxedBare);
  bare["calls"].erase(0);
  const AuditResult result = AuditJson(bare, "evaluation.json");
  EXPECT_TRUE(HasFinding(
      result, "evaluation.json: calls",
      "14 calls (10 mnist); a judged run of mnist-a100/1.2.0 makes 15 (11 mnist, 4 hold-out)"))
      << Findings(result);
}

TEST(ReferenceRecordTest, AnEditedEnergyWindowIsFound) {
  Json wrapped = CorpusJson(kStanding);
  wrapped["record"]["energy"]["windows"][5]["joules"] = 1893.331;
  const AuditResult result = AuditJson(wrapped);
  EXPECT_EQ(result.verdict(), AuditVerdict::kDoesNotStand);
  EXPECT_TRUE(HasFinding(result, "run-1.json: record.energy.mj_per_call",
                         "the record says 2131.4053467988415; its windows give "))
      << Findings(result);
}

TEST(ReferenceRecordTest, TheTelemetryIsJudgedAgainstTheRuleSetsBandsNotTheRecords) {
  // A record whose reference read 0.93 J/TFLOP (a broken sensor) but claims a figure anyway.
  Json wrapped = CorpusJson(kStanding);
  wrapped["record"]["energy"]["windows"][1]["joules"] = 400.0;
  const AuditResult result = AuditJson(wrapped);
  EXPECT_TRUE(HasFinding(
      result, "run-1.json: record.energy.mj_per_call",
      "its windows give none (the board's power telemetry is implausible: the reference read "))
      << Findings(result);
  // A board the rule set has no band for: the record's own band is not the rule set's.
  Json other = CorpusJson(kStanding);
  other["record"]["energy"]["device"]["name"] = "NVIDIA L40S";
  const AuditResult unbanded = AuditJson(other);
  EXPECT_TRUE(HasFinding(unbanded, "run-1.json: record.energy.reference.band", "is null"))
      << Findings(unbanded);
}

TEST(ReferenceRecordTest, TheExitStatusMustBeTheVerdicts) {
  Json wrapped = CorpusJson(kStanding);
  wrapped["returncode"] = 1;
  const AuditResult result = AuditJson(wrapped);
  EXPECT_TRUE(HasFinding(result, "run-1.json: returncode",
                         "1, but the scorer exits 0 for a run that qualifies"))
      << Findings(result);
}

TEST(ReferenceRecordTest, TheSubmissionsHashIsCheckedWhenTheFileIsGiven) {
  const std::string source =
      "def ladder(train_x, train_y, test_x):\n    return test_x[:, 0].long()\n";
  Json record = CorpusJson(kDisqualified);
  record["record"]["source_sha256"] = Sha256Hex(source);
  AuditResult result =
      AuditJson(record, "run-1.json", SubmissionFile{"subs/ladder_t_d3.py", source});
  EXPECT_EQ(result.verdict(), AuditVerdict::kStands) << Findings(result);
  EXPECT_NE(std::find(result.checked.begin(), result.checked.end(),
                      "the submission's sha256 (subs/ladder_t_d3.py)"),
            result.checked.end());
  result = AuditJson(record, "run-1.json",
                     SubmissionFile{"subs/ladder_t_d3.py", source + "# changed\n"});
  EXPECT_TRUE(
      HasFinding(result, "run-1.json: record.source_sha256", "but subs/ladder_t_d3.py has sha256 "))
      << Findings(result);
}

TEST(ReferenceRecordTest, ARunStoppedByAFailureStandsAsThatDisqualification) {
  Json record = CorpusJson(kUnsandboxedBare);
  record.erase("summary");
  record["calls"].erase(record["calls"].begin() + 5, record["calls"].end());
  record["problems"] = Json::array({"timed out while running the method on a kmnist draw"});
  record["ranked_ms"] = nullptr;
  AuditResult result = AuditJson(record, "evaluation.json");
  EXPECT_EQ(result.verdict(), AuditVerdict::kStands) << Findings(result);
  EXPECT_EQ(result.claims[0],
            "mlp_neighbor3_register_d1.py:classify at 5.40% error: disqualified (timed out while "
            "running the method on a kmnist draw)");
  // All 15 calls and no verdict: not what a stopped run records.
  Json full = CorpusJson(kUnsandboxedBare);
  full.erase("summary");
  full["problems"] = Json::array({"timed out"});
  full["ranked_ms"] = nullptr;
  result = AuditJson(full, "evaluation.json");
  EXPECT_TRUE(HasFinding(result, "evaluation.json: calls",
                         "a run that stopped on a failure made fewer than 15"));
}

TEST(ReferenceRecordTest, AMalformedFieldIsNamed) {
  Json record = CorpusJson(kUnsandboxedBare);
  record["calls"][2]["parent_ms"] = "5.2";
  const AuditResult result = AuditJson(record, "evaluation.json");
  EXPECT_TRUE(HasFinding(result, "evaluation.json: calls[2].parent_ms",
                         "expected a number, found a string"))
      << Findings(result);
}

TEST(ReferenceRecordTest, ARecordOfAnotherVersionIsRefused) {
  Json record = CorpusJson(kUnsandboxedBare);
  record["version"] = "mnist-a100/1.1.0";
  AuditResult result;
  Status status = AuditReferenceRecord(record, "evaluation.json", Rules(), std::nullopt, &result);
  EXPECT_EQ(status.code(), Status::Code::kBadInput);
  EXPECT_NE(status.message().find("give the record's own rule set with --rules FILE"),
            std::string::npos);
  // No rule set compiled in judges that version either.
  Result<RuleSet> rules = RuleSetForRecord(record, "evaluation.json", &result);
  ASSERT_FALSE(rules.ok());
  EXPECT_EQ(rules.status().code(), Status::Code::kBadInput);
  EXPECT_EQ(
      rules.status().message(),
      "evaluation.json: the record was made by 'mnist-a100/1.1.0'; no rule set compiled into "
      "ratchet judges that version (they are mnist-a100/1.2.0, mnist-a100/1.3.0, "
      "mnist-a100/1.4.0, mnist-a100/1.5.0): give the record's own rule set with --rules FILE");
}

// The seed's records name the seed's version: the seed's rule set judges them, not the default.
TEST(ReferenceRecordTest, TheRecordsVersionPicksItsRuleSet) {
  for (const char* relative : {kStanding, kStandingOtherBoard, kDisqualified, kUnsandboxedBare}) {
    AuditResult result;
    Result<RuleSet> rules = RuleSetForRecord(CorpusJson(relative), "run-1.json", &result);
    ASSERT_TRUE(rules.ok()) << rules.status().message();
    EXPECT_EQ(rules->id, "mnist-a100/1.2.0") << relative;
    EXPECT_EQ(rules->sha256, Rules().sha256);
    EXPECT_EQ(result.rules, "mnist-a100/1.2.0 (compiled in; the rule set of the record's version)");
  }
  // A record under the default's version would be judged by the default.
  Json record = CorpusJson(kUnsandboxedBare);
  record["version"] = LoadRuleSet(std::nullopt).value().version;
  AuditResult result;
  Result<RuleSet> rules = RuleSetForRecord(record, "evaluation.json", &result);
  ASSERT_TRUE(rules.ok()) << rules.status().message();
  EXPECT_EQ(rules->id, "mnist-a100/1.5.0");
  // Under the default, a seed record is refused, and told which rule set is its own.
  Status status = AuditReferenceRecord(CorpusJson(kUnsandboxedBare), "evaluation.json", *rules,
                                       std::nullopt, &result);
  EXPECT_EQ(status.code(), Status::Code::kBadInput);
  EXPECT_NE(status.message().find("; the rule set mnist-a100/1.5.0 judges 'mnist-a100/1.5.0 "
                                  "(ratchet's rules: "),
            std::string::npos)
      << status.message();
  EXPECT_NE(status.message().find(": give the record's own rule set, mnist-a100/1.2.0, with "
                                  "--rules, or leave --rules out"),
            std::string::npos)
      << status.message();
}

// Audit() with no --rules: the record's version chooses, and the result says which judged.
TEST(ReferenceRecordTest, AnAuditWithoutRulesJudgesUnderTheRecordsOwn) {
  Result<AuditResult> result = Audit(CorpusPath(kStanding), AuditOptions{});
  ASSERT_TRUE(result.ok()) << result.status().message();
  EXPECT_EQ(result->verdict(), AuditVerdict::kStands) << Findings(*result);
  EXPECT_EQ(result->rules, "mnist-a100/1.2.0 (compiled in; the rule set of the record's version)");
  AuditOptions options;
  options.rules_path = "mnist-a100/1.2.0";
  result = Audit(CorpusPath(kStanding), options);
  ASSERT_TRUE(result.ok()) << result.status().message();
  EXPECT_EQ(result->verdict(), AuditVerdict::kStands) << Findings(*result);
  EXPECT_EQ(result->rules, "mnist-a100/1.2.0 (given with --rules)");
  options.rules_path = "mnist-a100/1.4.0";
  result = Audit(CorpusPath(kStanding), options);
  ASSERT_FALSE(result.ok());
  EXPECT_EQ(result.status().code(), Status::Code::kBadInput);
  // Nothing judged, no rule set named.
  result = Audit(CorpusPath(kWrapperWithoutRecord), AuditOptions{});
  ASSERT_TRUE(result.ok()) << result.status().message();
  EXPECT_EQ(result->verdict(), AuditVerdict::kNothingToAudit);
  EXPECT_EQ(result->rules, "");
}

}  // namespace
}  // namespace ratchet
