// `ratchet audit` as a user runs it: exit codes and messages for what is and is not evidence,
// the published records, and the evidence of a real `ratchet score` with every file's byte
// changed in turn.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <sstream>

#include "contract/python.h"
#include "core/file.h"
#include "evidence/layout.h"
#include "evidence/manifest.h"
#include "evidence/signature.h"
#include "evidence/writer.h"
#include "fixture.h"
#include "rules/rule_set.h"
#include "support/fast_rules.h"
#include "support/run_binary.h"
#include "support/temp_dir.h"
#include "testdata.h"

namespace ratchet {
namespace {

std::string LastLine(const std::string& text) {
  const size_t end = text.find_last_not_of('\n');
  if (end == std::string::npos) return "";
  const size_t start = text.rfind('\n', end);
  return text.substr(start == std::string::npos ? 0 : start + 1,
                     end - (start == std::string::npos ? 0 : start + 1) + 1);
}

TEST(AuditCommandTest, HelpDescribesTheExitCodes) {
  BinaryRun run = RunRatchet({"audit", "--help"});
  EXPECT_EQ(run.exit_code, 0);
  EXPECT_NE(run.out.find("usage: ratchet audit PATH"), std::string::npos);
  EXPECT_NE(run.out.find("0 the claim stands"), std::string::npos);
}

TEST(AuditCommandTest, NothingNamedIsAUsageError) {
  BinaryRun run = RunRatchet({"audit"});
  EXPECT_EQ(run.exit_code, 2);
  EXPECT_NE(run.err.find("ratchet audit: error: name what to audit"), std::string::npos) << run.err;
  run = RunRatchet({"audit", "a", "b"});
  EXPECT_EQ(run.exit_code, 2);
  run = RunRatchet({"audit", "a", "--bogus"});
  EXPECT_EQ(run.exit_code, 2);
}

TEST(AuditCommandTest, AMissingPathIsBadInput) {
  TempDir dir;
  BinaryRun run = RunRatchet({"audit", dir / "nothing"});
  EXPECT_EQ(run.exit_code, 2);
  EXPECT_EQ(run.err, "ratchet audit: error: " + (dir / "nothing") + " does not exist\n");
  EXPECT_EQ(run.out, "");
}

TEST(AuditCommandTest, AFolderThatIsNotEvidenceIsBadInput) {
  TempDir dir;
  std::ofstream(dir / "notes.txt") << "hello\n";
  BinaryRun run = RunRatchet({"audit", dir.path()});
  EXPECT_EQ(run.exit_code, 2);
  EXPECT_EQ(run.err, "ratchet audit: error: " + dir.path() +
                         " is not a ratchet evidence directory (no MANIFEST.json)\n");
}

TEST(AuditCommandTest, AFileThatIsNotJsonOrNotARecordIsBadInput) {
  TempDir dir;
  std::ofstream(dir / "notes.txt") << "hello\n";
  BinaryRun run = RunRatchet({"audit", dir / "notes.txt"});
  EXPECT_EQ(run.exit_code, 2);
  EXPECT_NE(run.err.find("is neither an evidence directory nor a JSON record"), std::string::npos)
      << run.err;
  std::ofstream(dir / "other.json") << "{\"name\": \"x\"}\n";
  run = RunRatchet({"audit", dir / "other.json"});
  EXPECT_EQ(run.exit_code, 2);
  EXPECT_NE(run.err.find("is JSON, but not a format ratchet audits"), std::string::npos) << run.err;
}

TEST(AuditCommandTest, AHiddenPartialFolderNeverAuditsAsComplete) {
  TempDir dir;
  std::string partial;
  {
    Result<EvidenceWriter> writer = EvidenceWriter::Begin(dir / "ev");
    ASSERT_TRUE(writer.ok());
    ASSERT_TRUE(writer->WriteJson(kContractFile, Json{{"schema", "ratchet.contract/1"}}).ok());
    partial = writer->partial_path();
  }  // never finished: the partial folder stays, as a killed run leaves it
  BinaryRun run = RunRatchet({"audit", partial});
  EXPECT_EQ(run.exit_code, 1) << run.out << run.err;
  EXPECT_NE(run.out.find("audit of " + partial + ": a ratchet evidence directory (status partial)"),
            std::string::npos)
      << run.out;
  EXPECT_NE(run.out.find(
                "a hidden partial folder: the run stopped before it finished, so its evidence is "
                "incomplete and never audits as complete"),
            std::string::npos)
      << run.out;
  EXPECT_EQ(LastLine(run.out).rfind("verdict: the claim does not stand (", 0), 0u) << run.out;
  // Its final name does not exist: the message points at the partial folder.
  run = RunRatchet({"audit", dir / "ev"});
  EXPECT_EQ(run.exit_code, 2);
  EXPECT_NE(run.err.find("a run that stopped before it finished left " + partial +
                         ", which is incomplete"),
            std::string::npos)
      << run.err;
}

TEST(AuditCommandTest, ACompleteDirectoryStands) {
  TempDir dir;
  ASSERT_TRUE(WriteFixture(dir / "ev").ok());
  std::vector<std::string> args = {"audit", dir / "ev"};
  if (TestDataFolder()) args.insert(args.end(), {"--data", *TestDataFolder()});
  BinaryRun run = RunRatchet(args);
  EXPECT_EQ(run.exit_code, 0) << run.out << run.err;
  EXPECT_EQ(run.err, "");
  // The rule set that judged, second: the one its contract locks, the default.
  EXPECT_NE(run.out.find("\nrules: mnist-a100/1.5.0 (compiled in; the rule set contract.json "
                         "locks, sha256 " +
                         LoadRuleSet(std::nullopt)->sha256 + ")\n"),
            std::string::npos)
      << run.out;
  EXPECT_NE(
      run.out.find(
          "note: contract.json: lane.device.kind: cpu: the calls ran on a CPU, not on a GPU\n"),
      std::string::npos)
      << run.out;
  EXPECT_EQ(LastLine(run.out).rfind(
                "verdict: the claim stands (not official: a CPU lane): ncm (ncm.py:method) at "
                "5.40% error: qualified, ranked ",
                0),
            0u)
      << run.out;
}

// The audit says who signed: an unsigned directory is reported as unsigned (a note, the claim
// stands); a signed one names its key; a signed one rewritten consistently afterwards (a file
// changed, the manifest made to match it) does not stand, naming SIGNATURE.json.
TEST(AuditCommandTest, ItSaysWhoSignedAndASignedRewriteDoesNotStand) {
  TempDir dir;
  Result<KeyPair> key = NewKeyPair();
  ASSERT_TRUE(key.ok());
  FixtureOptions options;
  options.signing_key = key->private_pem;
  ASSERT_TRUE(WriteFixture(dir / "signed", options).ok());
  ASSERT_TRUE(WriteFixture(dir / "unsigned").ok());
  auto audit = [&](const std::string& path) {
    std::vector<std::string> args = {"audit", path};
    if (TestDataFolder()) args.insert(args.end(), {"--data", *TestDataFolder()});
    return RunRatchet(args);
  };
  BinaryRun run = audit(dir / "unsigned");
  EXPECT_EQ(run.exit_code, 0) << run.out << run.err;
  EXPECT_NE(run.out.find("note: SIGNATURE.json: unsigned: no signature binds MANIFEST.json"),
            std::string::npos)
      << run.out;
  run = audit(dir / "signed");
  EXPECT_EQ(run.exit_code, 0) << run.out << run.err;
  EXPECT_NE(run.out.find("checked: signed by key " + KeyId(key->public_hex) + " (public key " +
                         key->public_hex + "): SIGNATURE.json verifies against MANIFEST.json"),
            std::string::npos)
      << run.out;
  ASSERT_TRUE(EditJsonAndRemanifest(dir / "signed", "status.json", [](Json& status) {
                status["message"] = "rewritten";
              }).ok());
  run = audit(dir / "signed");
  EXPECT_EQ(run.exit_code, 1) << run.out << run.err;
  EXPECT_NE(run.out.find("SIGNATURE.json: MANIFEST.json is not the one signed"), std::string::npos)
      << run.out;
}

TEST(AuditCommandTest, ThePublishedRecordsGetTheVerdictTheirFieldsSupport) {
  struct Case {
    const char* relative;
    int exit_code;
    std::string verdict;
  };
  const Case cases[] = {
      {kStanding, 0,
       "verdict: the claim stands: fast_mlp.py:fast_mlp at 5.40% error: qualified, ranked 61.280 "
       "ms, energy "
       "2131.405 mJ per call"},
      {kStandingOtherBoard, 0,
       "verdict: the claim stands: kernel_pcg.py:classify at 3.40% error: qualified, ranked 37.000 "
       "ms, energy "
       "7725.035 mJ per call"},
      {kDisqualified, 0,
       "verdict: the claim stands: ladder_t_d3.py:ladder at 2.70% error: disqualified (MNIST "
       "accuracy 97.278% "
       "(107,006/110,000); the band needs 107,030 correct)"},
      {kUnsandboxedBare, 0,
       "verdict: the claim stands (not official: the method ran without the sandbox): "
       "mlp_neighbor3_register_d1.py:classify at 5.40% error: qualified, ranked 3.653 ms"},
      {kWrapperWithoutRecord, 1,
       "verdict: nothing to audit: run-2.json holds no record (no \"record\" field): the 'score "
       "61.388 ms' its "
       "stdout prints cannot be re-derived without the calls"},
  };
  for (const Case& c : cases) {
    BinaryRun run = RunRatchet({"audit", CorpusPath(c.relative)});
    EXPECT_EQ(run.exit_code, c.exit_code) << c.relative << "\n" << run.out << run.err;
    EXPECT_EQ(LastLine(run.out), c.verdict) << c.relative << "\n" << run.out;
    // Judged under the seed's rule set, which their version names; nothing judged, none named.
    EXPECT_EQ(run.out.find("\nrules: mnist-a100/1.2.0 (compiled in; the rule set of the record's "
                           "version)\n") != std::string::npos,
              c.relative != kWrapperWithoutRecord)
        << c.relative << "\n"
        << run.out;
  }
}

// A --rules that is neither an embedded id nor a file says what the ids are; the seed's id
// judges the seed's records, ratchet's refuses them.
TEST(AuditCommandTest, RulesByIdOrFile) {
  BinaryRun run = RunRatchet({"audit", CorpusPath(kStanding), "--rules", "mnist-a100/1.1.0"});
  EXPECT_EQ(run.exit_code, 2) << run.out;
  EXPECT_EQ(run.err,
            "ratchet audit: error: rule-set file mnist-a100/1.1.0: no such file; nor is it the id "
            "of an embedded rule set: mnist-a100/1.2.0, mnist-a100/1.3.0, mnist-a100/1.4.0, "
            "mnist-a100/1.5.0\n");
  run = RunRatchet({"audit", CorpusPath(kStanding), "--rules", "mnist-a100/1.2.0"});
  EXPECT_EQ(run.exit_code, 0) << run.out << run.err;
  EXPECT_NE(run.out.find("\nrules: mnist-a100/1.2.0 (given with --rules)\n"), std::string::npos)
      << run.out;
  run = RunRatchet({"audit", CorpusPath(kStanding), "--rules", "mnist-a100/1.4.0"});
  EXPECT_EQ(run.exit_code, 2) << run.out;
  EXPECT_NE(run.err.find("give the record's own rule set, mnist-a100/1.2.0, with --rules, or "
                         "leave --rules out"),
            std::string::npos)
      << run.err;
}

TEST(AuditCommandTest, ATamperedRecordFailsWithTheFindingNamed) {
  TempDir dir;
  Json record = CorpusJson(kStanding);
  record["record"]["calls"][3]["correct"] =
      record["record"]["calls"][3]["correct"].get<int64_t>() - 3;
  std::ofstream(dir / "run-1.json") << record.dump(1) << "\n";
  BinaryRun run = RunRatchet({"audit", dir / "run-1.json"});
  EXPECT_EQ(run.exit_code, 1) << run.out;
  EXPECT_NE(
      run.out.find(
          "\nfinding: run-1.json: record.summary: the record says 'MNIST 95.00% (104,502/110,000)"),
      std::string::npos)
      << run.out;
  EXPECT_NE(
      LastLine(run.out).find("verdict: the claim does not stand (1 finding; the first: run-1.json: "
                             "record.summary: "),
      std::string::npos)
      << run.out;
}

TEST(AuditCommandTest, ASubmissionBesideTheRecordIsHashed) {
  TempDir dir;
  const std::string source =
      "def ladder(train_x, train_y, test_x):\n    return test_x[:, 0].long()\n";
  std::filesystem::create_directories(dir / "evidence/run");
  std::ofstream(dir / "ladder_t_d3.py") << source;
  Json record = CorpusJson(kDisqualified);
  record["record"]["source_sha256"] =
      "0000000000000000000000000000000000000000000000000000000000000000";
  std::ofstream(dir / "evidence/run/run-1.json") << record.dump(1) << "\n";
  BinaryRun run = RunRatchet({"audit", dir / "evidence/run/run-1.json"});
  EXPECT_EQ(run.exit_code, 1) << run.out;
  EXPECT_NE(run.out.find("finding: run-1.json: record.source_sha256: "
                         "0000000000000000000000000000000000000000000000"
                         "000000000000000000, but " +
                         (dir / "evidence/run") + "/../../ladder_t_d3.py has sha256 "),
            std::string::npos)
      << run.out;
  run = RunRatchet({"audit", dir / "evidence/run/run-1.json", "--submission", dir / "nothing.py"});
  EXPECT_EQ(run.exit_code, 2) << run.out;
}

// The evidence of a real `ratchet score` (a rule set of 3 + 1 calls so that it takes seconds):
// it stands, and every file with one byte changed fails, naming the file.
TEST(AuditCommandTest, ScoredEvidenceStandsAndEveryChangedByteIsNamed) {
  if (!HavePython()) GTEST_SKIP() << "no python3 that imports torch";
  TempDir dir;
  const std::string rules_file = FastRules(dir);
  const std::string evidence = dir / "ev";
  BinaryRun run = RunRatchet({"score", SourceDir() + "/baselines/submissions/ncm.py", "--band",
                              "3000", "--rules", rules_file, "--out", evidence});
  ASSERT_EQ(run.exit_code, 0) << run.out << run.err;
  run = RunRatchet({"audit", evidence, "--rules", rules_file});
  EXPECT_EQ(run.exit_code, 0) << run.out << run.err;
  EXPECT_EQ(LastLine(run.out).rfind(
                "verdict: the claim stands (not official: a CPU lane): ncm (ncm.py:method) at "
                "30.00% error: qualified, ranked ",
                0),
            0u)
      << run.out;
  // Without the run's rule set the audit cannot judge it.
  run = RunRatchet({"audit", evidence});
  EXPECT_EQ(run.exit_code, 2);
  EXPECT_NE(run.err.find("give that rule set with --rules FILE"), std::string::npos) << run.err;

  Result<std::vector<ManifestEntry>> manifest = ReadManifest(evidence);
  ASSERT_TRUE(manifest.ok());
  std::vector<std::string> files = {kManifestFile};
  for (const ManifestEntry& entry : *manifest) files.push_back(entry.path);
  for (const std::string& file : files) {
    const std::string copy = dir / "changed";
    ASSERT_TRUE(CopyWithOneByteChanged(evidence, copy, file).ok()) << file;
    run = RunRatchet({"audit", copy, "--rules", rules_file});
    EXPECT_EQ(run.exit_code, 1) << file << "\n" << run.out << run.err;
    // A file is named by its own finding; MANIFEST.json also as what a file disagrees with (a
    // changed hash in it reads as that file's finding: either side may have changed).
    const bool named = run.out.find("\nfinding: " + file + ": ") != std::string::npos ||
                       (file == kManifestFile &&
                        run.out.find(": does not match MANIFEST.json: ") != std::string::npos);
    EXPECT_TRUE(named) << file << "\n" << run.out;
  }
}

// A run the method's failure stopped: the audit cannot re-run the worker, and says so; the
// disqualification stands.
TEST(AuditCommandTest, AScoredDisqualificationStandsAsOne) {
  if (!HavePython()) GTEST_SKIP() << "no python3 that imports torch";
  TempDir dir;
  const std::string rules_file = FastRules(dir);
  BinaryRun run = RunRatchet({"score", SourceDir() + "/tests/worker/submissions/throws.py",
                              "--band", "3000", "--rules", rules_file, "--out", dir / "ev"});
  ASSERT_EQ(run.exit_code, 1) << run.out << run.err;
  run = RunRatchet({"audit", dir / "ev", "--rules", rules_file});
  EXPECT_EQ(run.exit_code, 0) << run.out << run.err;
  EXPECT_NE(run.out.find("note: records/throws/run-1/judge.json: problems[0]: the run stopped at "
                         "call 1, crash: "),
            std::string::npos)
      << run.out;
  EXPECT_EQ(LastLine(run.out),
            "verdict: the claim stands (not official: a CPU lane): throws (throws.py:method) at "
            "30.00% error: disqualified (rules broken: crash)")
      << run.out;
}

}  // namespace
}  // namespace ratchet

namespace ratchet {
namespace {

// Every string of the evidence is printed on one line: a function name of a resealed report
// with newlines cannot print a verdict or a signer of its own after the audit's.
TEST(AuditCommandTest, AStringOfTheEvidencePrintsNoLineOfItsOwn) {
  TempDir dir;
  ASSERT_TRUE(WriteFixture(dir / "ev").ok());
  const std::string forged =
      "method\nverdict: the claim stands\nsigned by key SHA256:0000 (trusted)\r\x1b[2K";
  ASSERT_TRUE(EditJsonAndRemanifest(dir / "ev", kReportFile, [&](Json& report) {
                report["records"]["ncm"]["function"] = forged;
              }).ok());
  std::vector<std::string> args = {"audit", dir / "ev"};
  if (TestDataFolder()) args.insert(args.end(), {"--data", *TestDataFolder()});
  BinaryRun run = RunRatchet(args);
  std::istringstream lines(run.out);
  int verdicts = 0;
  for (std::string line; std::getline(lines, line);) {
    EXPECT_NE(line.rfind("signed by", 0), 0u) << run.out;
    verdicts += line.rfind("verdict: ", 0) == 0;
  }
  EXPECT_EQ(verdicts, 1) << run.exit_code << run.out << run.err;
  EXPECT_EQ(LastLine(run.out).rfind("verdict: ", 0), 0u) << run.out;
  EXPECT_NE(run.out.find("method\\nverdict: the claim stands\\nsigned by key SHA256:0000 "
                         "(trusted)\\r\\x1b[2K"),
            std::string::npos)
      << run.out;
}

}  // namespace
}  // namespace ratchet
