// Evidence directories audited: one written here with every figure consistent stands; any byte
// changed in any of its files breaks it, naming the file; tampering that keeps the manifest clean
// is found by re-deriving what the file claims.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>

#include "audit/audit.h"
#include "audit/evidence.h"
#include "baseline/ratchet_report.h"
#include "contract/contract.h"
#include "core/file.h"
#include "core/sha256.h"
#include "evidence/layout.h"
#include "evidence/manifest.h"
#include "evidence/run_files.h"
#include "evidence/signature.h"
#include "fixture.h"
#include "rules/rule_set.h"
#include "support/run_binary.h"
#include "support/temp_dir.h"

namespace ratchet {
namespace {

// Whether a finding line names `file`: as the file found wrong, or, for MANIFEST.json, as the
// manifest a file disagrees with (a changed hash in the manifest reads as that file's finding).
bool NamesFile(const std::string& out, const std::string& file) {
  if (out.find("\nfinding: " + file + ": ") != std::string::npos) return true;
  return file == kManifestFile && out.find(": does not match MANIFEST.json: ") != std::string::npos;
}

AuditResult AuditOk(const std::string& path, AuditOptions options = {}) {
  options.data_dir = TestDataFolder();
  Result<AuditResult> result = Audit(path, options);
  EXPECT_TRUE(result.ok()) << result.status().message();
  return result.ok() ? *result : AuditResult{};
}

class EvidenceAuditTest : public ::testing::Test {
 protected:
  void SetUp() override { ASSERT_TRUE(WriteFixture(dir_ / "ev").ok()); }
  std::string Evidence() const { return dir_ / "ev"; }

  TempDir dir_;
};

TEST_F(EvidenceAuditTest, ACompleteConsistentDirectoryStandsAsAnUnofficialCpuClaim) {
  const AuditResult result = AuditOk(Evidence());
  EXPECT_EQ(result.verdict(), AuditVerdict::kStands) << Findings(result);
  EXPECT_EQ(result.unofficial, std::vector<std::string>{"a CPU lane"});
  ASSERT_EQ(result.claims.size(), 1u);
  EXPECT_EQ(result.claims[0].rfind("ncm (ncm.py:method) at 5.40% error: qualified, ranked ", 0),
            0u);
  std::vector<std::string> expected = {
      "the manifest (38 files, each with its size and sha256, none missing or extra)",
      "seed.reveal is the seed seed.commit binds", "the submission's sha256 in 1 run",
      "1 run re-judged from 15 calls (problems, summary, ranked time)",
      "the plan of 1 run (hold-out, warm-up, each call's dataset and draw) regenerated from the "
      "revealed seed"};
  if (FixtureDatasetsPresent()) {
    expected.push_back(
        "correct re-counted for 15 calls from their labels against draws regenerated from the "
        "revealed seed");
  }
  EXPECT_EQ(result.checked, expected);
}

// What the audit re-derives for each record comes from its runs, never from the report: a
// report resealed to say otherwise does not stand, and the re-derived outcome is still the runs'.
// A GPU run whose hellos name its board stands, with its records re-derived as well.
TEST(EvidenceAuditRecordsTest, EachRecordsScoringsAreRederivedFromItsRuns) {
  TempDir dir;
  FixtureOptions options;
  options.device_kind = "cuda";
  options.records[0].ms = 1.5;
  options.records[0].rerun_runs = 2;
  options.records[0].rerun_breaks = "dispersion-slow";
  FixtureRecord other;
  other.id = "other";
  other.breaks = "timing-call";
  options.records.push_back(other);
  ASSERT_TRUE(WriteFixture(dir / "ev", options).ok());
  AuditResult result = AuditOk(dir / "ev");
  EXPECT_EQ(result.verdict(), AuditVerdict::kStands) << Findings(result);
  ASSERT_EQ(result.records.size(), 2u);
  const Json report = Json::parse(*ReadFile(dir / "ev/report.json"));
  const AuditedRecord& ncm = result.records.at("ncm");
  EXPECT_TRUE(ncm.first.qualified);
  EXPECT_EQ(ncm.first.ranked_ms, report["records"]["ncm"]["ranked_ms"].get<double>());
  EXPECT_GT(*ncm.first.ranked_ms, 1.5);
  EXPECT_EQ(ncm.first.sha256, report["records"]["ncm"]["sha256"]);
  EXPECT_EQ(ncm.first.band_bp, 540);
  ASSERT_TRUE(ncm.rerun.has_value());
  EXPECT_FALSE(ncm.rerun->qualified);
  EXPECT_EQ(ncm.rerun->broken, std::vector<std::string>{"dispersion-slow"});
  EXPECT_FALSE(ncm.rerun->ranked_ms.has_value());
  const AuditedRecord& disqualified = result.records.at("other");
  EXPECT_EQ(disqualified.first.broken, std::vector<std::string>{"timing-call"});
  EXPECT_FALSE(disqualified.rerun.has_value());

  ASSERT_TRUE(EditJsonAndRemanifest(dir / "ev", "report.json", [](Json& report) {
                Json& entry = report["records"]["other"];
                entry["outcome"] = {{"status", "qualified"}, {"broken", Json::array()}};
                entry["ranked_ms"] = 1.0;
              }).ok());
  result = AuditOk(dir / "ev");
  EXPECT_EQ(result.verdict(), AuditVerdict::kDoesNotStand);
  EXPECT_TRUE(HasFinding(result, "report.json: records.other.outcome.status")) << Findings(result);
  EXPECT_FALSE(result.records.at("other").first.qualified);
}

// Labels are re-counted only against the datasets the contract locks; otherwise (or without
// the datasets) a note says which calls were not re-counted, and why. A contract that locks
// other files than the datasets ratchet knows does not stand: with it, any count of correct
// labels would go unchecked.
TEST_F(EvidenceAuditTest, ALockedDatasetThatIsNotTheKnownOneBreaksTheClaim) {
  ASSERT_TRUE(EditJsonAndRemanifest(Evidence(), kContractFile, [](Json& contract) {
                contract["locked"]["datasets"]["mnist"] = {{"images_sha256", std::string(64, '0')},
                                                           {"labels_sha256", std::string(64, '0')}};
              }).ok());
  const AuditResult result = AuditOk(Evidence());
  EXPECT_EQ(result.verdict(), AuditVerdict::kDoesNotStand) << Findings(result);
  EXPECT_TRUE(HasFinding(result, "contract.json: locked.datasets.mnist.images_sha256",
                         ": the calls were not drawn from the known dataset"))
      << Findings(result);
  EXPECT_TRUE(HasFinding(result, "contract.json: locked.datasets.mnist.labels_sha256"))
      << Findings(result);
  bool said = false;
  for (const AuditFinding& f : result.findings) {
    said = said ||
           (f.kind == AuditFinding::Kind::kNote && f.where.find("/labels/") != std::string::npos &&
            f.where.find(" and 10 more calls") != std::string::npos &&
            f.message.rfind("correct not re-counted: ", 0) == 0 &&
            f.message.find("mnist") != std::string::npos);
  }
  EXPECT_TRUE(said) << Findings(result);
}

// Every file, one byte changed (a byte added to an empty one): `ratchet audit` exits 1 with a
// finding that names the file.
TEST_F(EvidenceAuditTest, OneByteChangedInAnyFileFailsTheAuditNamingThatFile) {
  Result<std::vector<ManifestEntry>> manifest = ReadManifest(Evidence());
  ASSERT_TRUE(manifest.ok());
  std::vector<std::string> files = {kManifestFile};
  for (const ManifestEntry& entry : *manifest) files.push_back(entry.path);
  ASSERT_EQ(files.size(), 39u);
  for (const std::string& file : files) {
    const std::string copy = dir_ / ("m-" + std::to_string(&file - files.data()));
    ASSERT_TRUE(CopyWithOneByteChanged(Evidence(), copy, file).ok()) << file;
    std::vector<std::string> args = {"audit", copy};
    if (TestDataFolder()) args.insert(args.end(), {"--data", *TestDataFolder()});
    BinaryRun run = RunRatchet(args);
    EXPECT_EQ(run.exit_code, 1) << file << "\n" << run.out << run.err;
    EXPECT_TRUE(NamesFile(run.out, file)) << file << "\n" << run.out;
    EXPECT_NE(run.out.find("\nverdict: the claim does not stand ("), std::string::npos)
        << file << "\n"
        << run.out;
    std::filesystem::remove_all(copy);
  }
}

TEST_F(EvidenceAuditTest, AChangedTimeWithACleanManifestIsFoundByReJudging) {
  ASSERT_TRUE(EditJsonAndRemanifest(Evidence(), "records/ncm/run-1/calls.json", [](Json& calls) {
                for (Json& call : calls) call["ms"] = call["ms"].get<double>() - 0.5;
              }).ok());
  const AuditResult result = AuditOk(Evidence());
  EXPECT_EQ(result.verdict(), AuditVerdict::kDoesNotStand);
  EXPECT_TRUE(HasFinding(result, "records/ncm/run-1/judge.json: ranked_ms",
                         ", but re-judging calls.json gives "))
      << Findings(result);
  EXPECT_TRUE(HasFinding(result, "records/ncm/run-1/judge.json: summary")) << Findings(result);
}

// A CPU run relabelled as an H200's (the lane's device and the board edited, the lane id
// recomputed, the manifest resealed): every worker's hello still says where it ran.
TEST_F(EvidenceAuditTest, ACpuRunRelabelledAsAGpuClaimIsFoundInTheWorkersHellos) {
  ASSERT_TRUE(EditJsonAndRemanifest(Evidence(), kContractFile, [](Json& contract) {
                contract["lane"]["device"] = {{"kind", "cuda"}, {"name", "NVIDIA H200"}};
                contract["lane"].erase("id");
                contract["lane"]["id"] = *LaneId(contract["lane"]);
                contract["observed"]["device_uuid"] = "GPU-12345678-1234-1234-1234-123456789abc";
              }).ok());
  const AuditResult result = AuditOk(Evidence());
  EXPECT_EQ(result.verdict(), AuditVerdict::kDoesNotStand) << Findings(result);
  EXPECT_TRUE(HasFinding(result, "records/ncm/run-1/calls.json: calls[0].worker.device",
                         "\"cpu\" (and in 14 more calls), but contract.json's lane.device.kind "
                         "is \"cuda\": the calls did not run on the lane the contract names"))
      << Findings(result);
  EXPECT_TRUE(HasFinding(result, "records/ncm/run-1/calls.json: calls[0].worker.uuid"))
      << Findings(result);

  // The lane's facts edited without their id: the id no longer names them.
  ASSERT_TRUE(EditJsonAndRemanifest(Evidence(), kContractFile, [](Json& contract) {
                contract["lane"]["device"]["name"] = "NVIDIA H100";
              }).ok());
  EXPECT_TRUE(HasFinding(AuditOk(Evidence()), "contract.json: lane.id",
                         ": the lane was edited after the run"));
}

// The compile step's evidence: a run with one stands when its listing's sha256 is re-derived and
// every call names it; a call that names other caches, a listing edited under its sha256, a
// warm-up on a timed draw, a step removed while its calls still name its caches, or its log
// missing, each resealed in the manifest, is found.
TEST_F(EvidenceAuditTest, TheCompileStepsCachesAreTheOnesEveryCallNames) {
  const std::string run = "records/ncm/run-1/";
  CompileEntry compile;
  compile.warmup_dataset = Json::parse(*ReadFile(Evidence() + "/" + run + "calls.json"))[0]
                               .value("warmup_dataset", "");
  compile.warmup_draw_index = 999;
  compile.worker_exit = "signal 9";
  compile.files = {{"triton/k/kernel.cubin", 5, Sha256Hex("cubin")},
                   {"triton/k/kernel.json", 2, Sha256Hex("{}")}};
  compile.caches_sha256 = CachesSha256(compile.files);
  auto write_step = [&](const CompileEntry& entry) {
    ASSERT_TRUE(WriteFileAtomic(Evidence() + "/" + run + "compile.json",
                                CompileJson(entry).dump(2) + "\n")
                    .ok());
    ASSERT_TRUE(WriteFileAtomic(Evidence() + "/" + run + "logs/compile.log", "").ok());
    ASSERT_TRUE(EditJsonAndRemanifest(Evidence(), run + "calls.json", [&](Json& calls) {
                  for (Json& call : calls) call["phases"]["caches_sha256"] = compile.caches_sha256;
                }).ok());
  };
  write_step(compile);
  AuditResult result = AuditOk(Evidence());
  EXPECT_EQ(result.verdict(), AuditVerdict::kStands) << Findings(result);

  ASSERT_TRUE(EditJsonAndRemanifest(Evidence(), run + "calls.json", [](Json& calls) {
                calls[3]["phases"]["caches_sha256"] = Sha256Hex("other caches");
              }).ok());
  EXPECT_TRUE(HasFinding(AuditOk(Evidence()), run + "calls.json: calls[3].phases.caches_sha256",
                         "but the compile step's are " + compile.caches_sha256));

  CompileEntry edited = compile;
  edited.files[0].sha256 = Sha256Hex("another kernel");
  write_step(edited);
  result = AuditOk(Evidence());
  EXPECT_TRUE(HasFinding(result, run + "compile.json: caches_sha256",
                         "but its files' listing has sha256"))
      << Findings(result);

  CompileEntry on_a_timed_draw = compile;
  on_a_timed_draw.warmup_draw_index = 3;
  write_step(on_a_timed_draw);
  EXPECT_TRUE(HasFinding(AuditOk(Evidence()), run + "compile.json: warmup_draw_index",
                         "3, but the compile step draws 999"));

  write_step(compile);
  ASSERT_TRUE(std::filesystem::remove(Evidence() + "/" + run + "logs/compile.log"));
  ASSERT_TRUE(Remanifest(Evidence()).ok());
  EXPECT_TRUE(HasFinding(AuditOk(Evidence()), run + "logs/compile.log", "missing"));

  ASSERT_TRUE(std::filesystem::remove(Evidence() + "/" + run + "compile.json"));
  ASSERT_TRUE(Remanifest(Evidence()).ok());
  result = AuditOk(Evidence());
  EXPECT_EQ(result.verdict(), AuditVerdict::kDoesNotStand);
  EXPECT_TRUE(HasFinding(result, run + "calls.json: calls[0].phases.caches_sha256",
                         "but the run has no compile.json"))
      << Findings(result);
}

TEST_F(EvidenceAuditTest, AChangedCountOfCorrectLabelsIsFoundInTheLabels) {
  ASSERT_TRUE(EditJsonAndRemanifest(Evidence(), "records/ncm/run-1/calls.json", [](Json& calls) {
                calls[4]["correct"] = calls[4]["correct"].get<int64_t>() + 1;
              }).ok());
  const AuditResult result = AuditOk(Evidence());
  EXPECT_EQ(result.verdict(), AuditVerdict::kDoesNotStand);
  if (FixtureDatasetsPresent()) {
    EXPECT_TRUE(
        HasFinding(result, "records/ncm/run-1/calls.json: calls[4].correct",
                   "9601, but the labels of records/ncm/run-1/labels/05.u8 match 9600 of draw "))
        << Findings(result);
  }
  EXPECT_TRUE(HasFinding(result, "records/ncm/run-1/judge.json: summary")) << Findings(result);
}

TEST_F(EvidenceAuditTest, ACallMovedToAnotherDrawIsFoundByThePlan) {
  ASSERT_TRUE(EditJsonAndRemanifest(Evidence(), "records/ncm/run-1/calls.json", [](Json& calls) {
                calls[0]["draw_index"] = calls[0]["draw_index"].get<int64_t>() + 20;
              }).ok());
  const AuditResult result = AuditOk(Evidence());
  EXPECT_TRUE(HasFinding(result, "records/ncm/run-1/calls.json: calls[0]",
                         "but the revealed seed plans draw "))
      << Findings(result);
}

TEST_F(EvidenceAuditTest, AReportThatDisagreesWithItsRunsIsFound) {
  ASSERT_TRUE(EditJsonAndRemanifest(Evidence(), kReportFile, [](Json& report) {
                report["records"]["ncm"]["ranked_ms"] = 9.5;
                report["records"]["ncm"]["runs"][0]["summary"] = "MNIST 99.99%";
              }).ok());
  const AuditResult result = AuditOk(Evidence());
  EXPECT_TRUE(HasFinding(result, "report.json: records.ncm.ranked_ms", "9.5, but its runs give "))
      << Findings(result);
  EXPECT_TRUE(HasFinding(result, "report.json: records.ncm.runs[0].summary",
                         "but records/ncm/run-1/judge.json says"))
      << Findings(result);
}

TEST_F(EvidenceAuditTest, ARecordsEnergyFigureMustComeFromItsRuns) {
  // A CPU run has no energy column: a figure claimed for the record is found, however written.
  ASSERT_TRUE(EditJsonAndRemanifest(Evidence(), kReportFile, [](Json& report) {
                report["records"]["ncm"]["energy"] = {{"mj_per_call", 3.8}, {"runs_measured", 1}};
              }).ok());
  const AuditResult result = AuditOk(Evidence());
  EXPECT_TRUE(HasFinding(result, "report.json: records.ncm.energy.mj_per_call",
                         "3.8, but its runs give null"))
      << Findings(result);
  EXPECT_TRUE(HasFinding(result, "report.json: records.ncm.energy.runs_measured",
                         "1, but 0 of its runs have an energy figure"))
      << Findings(result);
}

// A run with no energy.json says no more of energy than the scorer does: on a CPU lane, the
// reason it writes for the lane its workers named (or nothing); any other text, resealed, is found.
TEST_F(EvidenceAuditTest, ARunsEnergyTextWithoutAFileIsTheScorersOwn) {
  const Json scorers = {
      {"mj_per_call", nullptr},
      {"reason", "a CPU lane has no energy column (it is read from a GPU's energy counter)"}};
  ASSERT_TRUE(EditJsonAndRemanifest(Evidence(), kReportFile, [&](Json& report) {
                report["records"]["ncm"]["runs"][0]["energy"] = scorers;
              }).ok());
  AuditResult result = AuditOk(Evidence());
  EXPECT_EQ(result.verdict(), AuditVerdict::kStands) << Findings(result);
  ASSERT_TRUE(EditJsonAndRemanifest(Evidence(), kReportFile, [](Json& report) {
                report["records"]["ncm"]["runs"][0]["energy"] = {
                    {"mj_per_call", nullptr}, {"reason", "measured at 0.1 mJ a call on an H200"}};
              }).ok());
  result = AuditOk(Evidence());
  EXPECT_TRUE(HasFinding(result, "report.json: records.ncm.runs[0].energy",
                         "but a run on a CPU lane has no energy column, and the scorer says so"))
      << Findings(result);
}

TEST_F(EvidenceAuditTest, ASwappedSubmissionIsFound) {
  std::ofstream(Evidence() + "/records/ncm/run-1/submission/ncm.py", std::ios::trunc)
      << "def method(a, b, c):\n";
  ASSERT_TRUE(Remanifest(Evidence()).ok());
  const AuditResult result = AuditOk(Evidence());
  EXPECT_TRUE(HasFinding(result, "records/ncm/run-1/submission/ncm.py",
                         "but report.json's records.ncm.sha256 is"))
      << Findings(result);
}

TEST_F(EvidenceAuditTest, AFileThatNoRunWritesIsFound) {
  std::ofstream(Evidence() + "/records/ncm/run-1/notes.txt") << "hello\n";
  ASSERT_TRUE(Remanifest(Evidence()).ok());
  const AuditResult result = AuditOk(Evidence());
  EXPECT_TRUE(HasFinding(result, "records/ncm/run-1/notes.txt", "not part of a run's evidence"))
      << Findings(result);
}

// A device kind other than cpu or cuda is no lane ratchet scores on: neither a CPU claim nor an
// official one.
TEST_F(EvidenceAuditTest, AnUnknownDeviceKindBreaksTheClaim) {
  ASSERT_TRUE(EditJsonAndRemanifest(Evidence(), kContractFile, [](Json& contract) {
                contract["lane"]["device"]["kind"] = "CPU";
              }).ok());
  const AuditResult result = AuditOk(Evidence());
  EXPECT_EQ(result.verdict(), AuditVerdict::kDoesNotStand) << Findings(result);
  EXPECT_TRUE(HasFinding(result, "contract.json: lane.device.kind",
                         "\"CPU\": not a device ratchet scores on (cpu or cuda)"))
      << Findings(result);
}

// The report's sandbox and the contract's observation of it are made from one fact: a report
// that says full over a contract that saw a partial sandbox does not stand.
TEST_F(EvidenceAuditTest, AReportedSandboxTheContractDidNotSeeBreaksTheClaim) {
  ASSERT_TRUE(EditJsonAndRemanifest(Evidence(), kContractFile, [](Json& contract) {
                contract["observed"] = {{"sandbox", "partial"}};
              }).ok());
  const AuditResult result = AuditOk(Evidence());
  EXPECT_EQ(result.verdict(), AuditVerdict::kDoesNotStand) << Findings(result);
  EXPECT_TRUE(HasFinding(result, "report.json: sandbox",
                         "'full', but contract.json's observed.sandbox is 'partial'"))
      << Findings(result);
}

// No clock ratchet reads gives a negative time (the scorer takes -0.0 for zero, as the audit
// does); judged as it is, one would lower a group's mean.
TEST_F(EvidenceAuditTest, ANegativeTimeBreaksTheClaim) {
  ASSERT_TRUE(EditJsonAndRemanifest(Evidence(), "records/ncm/run-1/calls.json", [](Json& calls) {
                calls[2]["ms"] = -1.0;
                calls[3]["overhead_ms"] = -0.25;
              }).ok());
  const AuditResult result = AuditOk(Evidence());
  EXPECT_EQ(result.verdict(), AuditVerdict::kDoesNotStand) << Findings(result);
  EXPECT_TRUE(
      HasFinding(result, "records/ncm/run-1/calls.json: calls[2].ms", "a time is never negative"))
      << Findings(result);
  EXPECT_TRUE(HasFinding(result, "records/ncm/run-1/calls.json: calls[3].overhead_ms"))
      << Findings(result);
}

// A file at the top of the directory that no run writes, listed in the manifest all the same.
TEST_F(EvidenceAuditTest, ATopLevelFileThatNoRunWritesIsFound) {
  std::ofstream(Evidence() + "/NOTES.txt") << "hello\n";
  ASSERT_TRUE(Remanifest(Evidence()).ok());
  const AuditResult result = AuditOk(Evidence());
  EXPECT_EQ(result.verdict(), AuditVerdict::kDoesNotStand) << Findings(result);
  EXPECT_TRUE(HasFinding(result, "NOTES.txt", "not part of a run's evidence")) << Findings(result);
}

// The rule set `ratchet run` names in the report must be the one the contract locks.
TEST_F(EvidenceAuditTest, ARunsRuleSetOtherThanTheContractsBreaksTheClaim) {
  ASSERT_TRUE(EditJsonAndRemanifest(Evidence(), kReportFile, [](Json& report) {
                RatchetReport part;
                part.baseline = "records.json";
                part.baseline_sha256 = std::string(64, 'a');
                part.rule_set = {{"id", "mnist-a100/0.9.0"}};
                report["ratchet"] = RatchetReportJson(part);
              }).ok());
  const AuditResult result = AuditOk(Evidence());
  EXPECT_EQ(result.verdict(), AuditVerdict::kDoesNotStand) << Findings(result);
  EXPECT_TRUE(HasFinding(result, "report.json: ratchet.rule_set.id",
                         "\"mnist-a100/0.9.0\", but contract.json locks the rule set "))
      << Findings(result);
}

// The part `ratchet run` writes is read by its owner: one it cannot read breaks the claim naming
// the field, and never turns the check of the run's exit code off.
TEST_F(EvidenceAuditTest, ARatchetPartThatCannotBeReadBreaksTheClaim) {
  ASSERT_TRUE(EditJsonAndRemanifest(Evidence(), kReportFile, [](Json& report) {
                RatchetReport part;
                part.baseline = "records.json";
                part.baseline_sha256 = std::string(64, 'a');
                part.rule_set = {{"id", "mnist-a100/1.5.0"}};
                report["ratchet"] = RatchetReportJson(part);
                report["ratchet"]["errors"] = "outcome-changed: none";
              }).ok());
  const AuditResult result = AuditOk(Evidence());
  EXPECT_EQ(result.verdict(), AuditVerdict::kDoesNotStand) << Findings(result);
  EXPECT_TRUE(HasFinding(result, "report.json: ratchet.errors", "expected an array"))
      << Findings(result);
  EXPECT_TRUE(HasFinding(result, "status.json: exit_code",
                         "0, but report.json's ratchet part cannot be read: the run exits 1"))
      << Findings(result);
}

// A finding elsewhere in report.json does not make a well-formed ratchet part unread: its errors
// still hold the exit code.
TEST_F(EvidenceAuditTest, ARatchetPartIsReadBesideAMalformedSandbox) {
  ASSERT_TRUE(EditJsonAndRemanifest(Evidence(), kReportFile, [](Json& report) {
                RatchetReport part;
                part.baseline = "records.json";
                part.baseline_sha256 = std::string(64, 'a');
                part.rule_set = {{"id", "mnist-a100/1.5.0"}};
                part.errors = {{"outcome-changed", "ncm", "changed"}};
                report["ratchet"] = RatchetReportJson(part);
                report["sandbox"] = 7;
              }).ok());
  const AuditResult result = AuditOk(Evidence());
  EXPECT_EQ(result.verdict(), AuditVerdict::kDoesNotStand) << Findings(result);
  EXPECT_TRUE(HasFinding(result, "report.json: sandbox", "")) << Findings(result);
  EXPECT_TRUE(HasFinding(result, "status.json: exit_code",
                         "0, but report.json's ratchet.errors lists errors"))
      << Findings(result);
}

TEST_F(EvidenceAuditTest, APartialSandboxIsNotOfficial) {
  ASSERT_TRUE(EditJsonAndRemanifest(Evidence(), kReportFile, [](Json& report) {
                report["sandbox"] = "partial: not root";
              }).ok());
  ASSERT_TRUE(EditJsonAndRemanifest(Evidence(), kContractFile, [](Json& contract) {
                contract["observed"]["sandbox"] = "partial";
              }).ok());
  const AuditResult result = AuditOk(Evidence());
  EXPECT_EQ(result.verdict(), AuditVerdict::kStands) << Findings(result);
  EXPECT_EQ(VerdictLine(result).rfind(
                "verdict: the claim stands (not official: a CPU lane; the workers ran "
                "without the full sandbox (partial: not root)): ncm ",
                0),
            0u)
      << VerdictLine(result);
}

TEST_F(EvidenceAuditTest, AnotherRuleSetThanTheContractsIsAUsageError) {
  Json rules = Json::parse(EmbeddedRuleSetText(kDefaultRuleSetId));
  rules["timing"]["group_slack_ms"] = 30.0;
  ASSERT_TRUE(WriteFileAtomic(dir_ / "rules.json", rules.dump(2)).ok());
  AuditOptions options;
  options.rules_path = dir_ / "rules.json";
  options.data_dir = TestDataFolder();
  Result<AuditResult> result = Audit(Evidence(), options);
  ASSERT_FALSE(result.ok());
  EXPECT_EQ(result.status().code(), Status::Code::kUsage);
  // The contract's rule set is compiled in: the message names it.
  EXPECT_NE(result.status().message().find("give --rules mnist-a100/1.5.0, or leave --rules out"),
            std::string::npos)
      << result.status().message();
  options.rules_path = "mnist-a100/1.2.0";
  result = Audit(Evidence(), options);
  ASSERT_FALSE(result.ok());
  EXPECT_EQ(result.status().code(), Status::Code::kUsage);
  EXPECT_EQ(result.status().message(),
            "the evidence was scored under the rule set \"mnist-a100/1.5.0\" (sha256 \"" +
                LoadRuleSet(std::nullopt)->sha256 +
                "\" in contract.json); this audit judges with mnist-a100/1.2.0 (sha256 " +
                LoadRuleSet(std::string("mnist-a100/1.2.0"))->sha256 +
                "): give --rules mnist-a100/1.5.0, or leave --rules out");
}

// Without --rules the audit judges with the compiled-in rule set contract.json locks: the
// default for evidence of today, the seed's for evidence scored under it.
TEST_F(EvidenceAuditTest, TheContractsRuleSetJudgesWhenNoneIsGiven) {
  AuditResult result = AuditOk(Evidence());
  EXPECT_EQ(result.verdict(), AuditVerdict::kStands) << Findings(result);
  const RuleSet newest = LoadRuleSet(std::nullopt).value();
  EXPECT_EQ(result.rules,
            "mnist-a100/1.5.0 (compiled in; the rule set contract.json locks, "
            "sha256 " +
                newest.sha256 + ")");

  FixtureOptions older;
  older.rules = "mnist-a100/1.2.0";
  ASSERT_TRUE(WriteFixture(dir_ / "older", older).ok());
  result = AuditOk(dir_ / "older");
  EXPECT_EQ(result.verdict(), AuditVerdict::kStands) << Findings(result);
  const RuleSet seed = LoadRuleSet(std::string("mnist-a100/1.2.0")).value();
  EXPECT_EQ(result.rules,
            "mnist-a100/1.2.0 (compiled in; the rule set contract.json locks, "
            "sha256 " +
                seed.sha256 + ")");
  AuditOptions options;
  options.rules_path = "mnist-a100/1.2.0";
  result = AuditOk(dir_ / "older", options);
  EXPECT_EQ(result.verdict(), AuditVerdict::kStands) << Findings(result);
  EXPECT_EQ(result.rules,
            "mnist-a100/1.2.0 (given with --rules; the rule set contract.json "
            "locks, sha256 " +
                seed.sha256 + ")");
  // The run's rule set as a file is the same rule set.
  ASSERT_TRUE(WriteFileAtomic(dir_ / "seed.json", EmbeddedRuleSetText("mnist-a100/1.2.0")).ok());
  options.rules_path = dir_ / "seed.json";
  EXPECT_EQ(AuditOk(dir_ / "older", options).verdict(), AuditVerdict::kStands);
}

// A rule set ratchet does not carry must be given.
TEST_F(EvidenceAuditTest, ARuleSetNotCompiledInMustBeGiven) {
  ASSERT_TRUE(EditJsonAndRemanifest(Evidence(), kContractFile, [](Json& contract) {
                contract["locked"]["rules"] = {{"id", "mnist-a100/0.9.0"},
                                               {"sha256", std::string(64, 'a')}};
              }).ok());
  Result<AuditResult> result = Audit(Evidence(), AuditOptions{});
  ASSERT_FALSE(result.ok());
  EXPECT_EQ(result.status().code(), Status::Code::kUsage);
  EXPECT_EQ(result.status().message(),
            "the evidence was scored under the rule set \"mnist-a100/0.9.0\" (sha256 \"" +
                std::string(64, 'a') +
                "\" in contract.json); no rule set compiled into ratchet has that sha256 (they "
                "are mnist-a100/1.2.0, mnist-a100/1.3.0, mnist-a100/1.4.0, mnist-a100/1.5.0): give "
                "that rule set with "
                "--rules FILE");
}

TEST(EvidenceAuditStatusTest, AnInterruptedRunMakesNoClaim) {
  TempDir dir;
  FixtureOptions options;
  options.status = kStatusInterrupted;
  ASSERT_TRUE(WriteFixture(dir / "ev", options).ok());
  const AuditResult result = AuditOk(dir / "ev");
  EXPECT_EQ(result.verdict(), AuditVerdict::kDoesNotStand);
  EXPECT_TRUE(HasFinding(result, "status.json",
                         "the run ended interrupted (exit 130): stopped; only a complete "
                         "run makes a claim"))
      << Findings(result);
}

TEST(EvidenceAuditStatusTest, TwoRunsGiveTheMedian) {
  TempDir dir;
  FixtureOptions options;
  options.records[0].runs = 2;
  ASSERT_TRUE(WriteFixture(dir / "ev", options).ok());
  const AuditResult result = AuditOk(dir / "ev");
  EXPECT_EQ(result.verdict(), AuditVerdict::kStands) << Findings(result);
  ASSERT_EQ(result.claims.size(), 1u);
  EXPECT_NE(result.claims[0].find("(median of 2 runs)"), std::string::npos) << result.claims[0];
}

TEST(EvidenceAuditStatusTest, ARecordScoredAgainHasItsRunsAuditedToo) {
  TempDir dir;
  FixtureOptions options;
  options.records[0].rerun_runs = 1;
  ASSERT_TRUE(WriteFixture(dir / "ev", options).ok());
  AuditResult result = AuditOk(dir / "ev");
  EXPECT_EQ(result.verdict(), AuditVerdict::kStands) << Findings(result);
  ASSERT_EQ(result.claims.size(), 1u);
  EXPECT_NE(result.claims[0].find("; scored again: qualified, ranked "), std::string::npos)
      << result.claims[0];
  EXPECT_NE(std::find(result.checked.begin(), result.checked.end(),
                      "2 runs re-judged from 30 calls (problems, summary, ranked time)"),
            result.checked.end());
  // Its run is judged like any other.
  ASSERT_TRUE(EditJsonAndRemanifest(dir / "ev", "records/ncm/run-2/judge.json", [](Json& judge) {
                judge["ranked_ms"] = 1.0;
              }).ok());
  result = AuditOk(dir / "ev");
  EXPECT_TRUE(HasFinding(result, "records/ncm/run-2/judge.json: ranked_ms")) << Findings(result);
  EXPECT_TRUE(HasFinding(result, "report.json: records.ncm.rerun.runs[0].ranked_ms"))
      << Findings(result);
}

// Evidence ratchet wrote on both lanes stands as it is: the GPU run (scored on the device, with
// an energy column measured for one run of each record and noted as not measured for the others)
// and the CPU run.
TEST(EvidenceAuditBundledTest, TheBundledBaselinesEvidenceStands) {
  for (const std::string kind : {"cuda", "cpu"}) {
    const std::string evidence = BundledEvidence(kind);
    ASSERT_FALSE(evidence.empty()) << "the bundled baseline reviews no " << kind << " lane";
    const AuditResult result = AuditOk(evidence);
    EXPECT_EQ(result.verdict(), AuditVerdict::kStands) << evidence << "\n" << Findings(result);
  }
}

// The energy column's board must be the contract's: the band it is checked against is looked up
// by the board's name. Tried on the bundled baseline's GPU evidence, scored on the device, whatever
// board the device lent: the board named in the finding is the one its contract.json names.
TEST(EvidenceAuditBundledTest, AnEnergyColumnOfAnotherBoardBreaksTheClaim) {
  const std::string evidence = BundledEvidence("cuda");
  ASSERT_FALSE(evidence.empty()) << "the bundled baseline reviews no GPU lane";
  TempDir dir;
  std::filesystem::copy(evidence, dir / "ev", std::filesystem::copy_options::recursive);
  std::string energy;  // a measured column: one with windows
  for (const auto& entry : std::filesystem::recursive_directory_iterator(dir / "ev/records")) {
    if (entry.path().filename() == "energy.json" &&
        Json::parse(*ReadFile(entry.path().string())).contains("windows")) {
      energy = std::filesystem::relative(entry.path(), dir / "ev").string();
      break;
    }
  }
  ASSERT_FALSE(energy.empty()) << evidence << " has no measured energy.json";
  ASSERT_TRUE(EditJsonAndRemanifest(dir / "ev", energy, [](Json& column) {
                column["device"]["name"] = "NVIDIA H200 NVL";
                column["device"]["uuid"] = "GPU-00000000-0000-0000-0000-000000000000";
              }).ok());
  const std::string board =
      Json::parse(*ReadFile(dir / "ev/contract.json"))["lane"]["device"]["name"];
  ASSERT_NE(board, "NVIDIA H200 NVL");
  const AuditResult result = AuditOk(dir / "ev");
  EXPECT_EQ(result.verdict(), AuditVerdict::kDoesNotStand) << Findings(result);
  EXPECT_TRUE(HasFinding(result, energy + ": device.name",
                         "\"NVIDIA H200 NVL\", but contract.json's lane.device.name is \"" +
                             board + "\""))
      << Findings(result);
  EXPECT_TRUE(HasFinding(result, energy + ": device.uuid",
                         "but contract.json's observed.device_uuid is \"GPU-"))
      << Findings(result);
}

// The signature must be over the manifest the audit read: a MANIFEST.json swapped between the
// audit's read and the signature's (here, the audit is handed another sha256) does not stand.
TEST(EvidenceAuditSignatureTest, ASignatureOverOtherManifestBytesThanTheAuditReadBreaks) {
  TempDir dir;
  Result<KeyPair> key = NewKeyPair();
  ASSERT_TRUE(key.ok());
  FixtureOptions options;
  options.signing_key = key->private_pem;
  ASSERT_TRUE(WriteFixture(dir / "ev", options).ok());
  const std::string read = Sha256Hex(*ReadFile(dir / "ev/" + kManifestFile));

  AuditResult same;
  AuditSignature(dir / "ev", kManifestFile, &same, read);
  EXPECT_EQ(same.verdict(), AuditVerdict::kStands) << Findings(same);
  EXPECT_EQ(same.signed_by, key->public_hex);

  AuditResult other;
  const std::string swapped = Sha256Hex("another manifest");
  AuditSignature(dir / "ev", kManifestFile, &other, swapped);
  EXPECT_EQ(other.verdict(), AuditVerdict::kDoesNotStand) << Findings(other);
  const std::string finding =
      "MANIFEST.json changed while it was read: the audit read bytes of sha256 " + swapped +
      ", the signature verified bytes of sha256 " + read;
  EXPECT_TRUE(HasFinding(other, kManifestFile, finding)) << Findings(other);
  EXPECT_EQ(other.signed_by, "");
}

}  // namespace
}  // namespace ratchet
