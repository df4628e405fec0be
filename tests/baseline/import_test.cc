// `ratchet import`: published claims taken into a baseline. The corpus's five records (the
// reference scorer's, tests/audit/testdata/mnist-a100/) are audited against a method file written
// here, since the corpus has none of theirs, and each is refused, saying why. Claims written for
// the bundled ncm.py (tests/support/reference_claim.h) are imported; `ratchet run --baseline`
// then reports the one the method reproduces and the one it no longer reaches, and `ratchet
// promote` reviews the claimed record like any other.
#include <gtest/gtest.h>

#include <filesystem>
#include <map>
#include <string>
#include <vector>

#include "core/canonical_json.h"
#include "core/file.h"
#include "core/sha256.h"
#include "support/checkout.h"
#include "support/reference_claim.h"
#include "support/run_binary.h"
#include "support/temp_dir.h"

namespace ratchet {
namespace {

bool Contains(const std::string& text, const std::string& part) {
  return text.find(part) != std::string::npos;
}

// A baseline with the bundled one's contract and no record, and ncm.py beside it.
class ImportTest : public ::testing::Test {
 protected:
  void SetUp() override {
    const Json bundled = Json::parse(*ReadFile(SourceDir() + "/baselines/records.json"));
    const Json doc = {{"schema", bundled["schema"]},
                      {"contract", bundled["contract"]},
                      {"lanes", Json::object()},
                      {"records", Json::object()}};
    ASSERT_TRUE(WriteFileAtomic(baseline(), doc.dump(2) + "\n").ok());
    std::filesystem::create_directories(dir_ / "submissions");
    std::filesystem::create_directories(dir_ / "claims");
    ncm_ = *ReadFile(SourceDir() + "/baselines/submissions/ncm.py");
    ASSERT_TRUE(WriteFileAtomic(dir_ / "submissions/ncm.py", ncm_).ok());
  }
  std::string baseline() const { return dir_ / "records.json"; }
  std::string Claim(const std::string& name, ReferenceClaimSpec spec) {
    spec.source = ncm_;
    const std::string path = dir_ / ("claims/" + name + ".json");
    EXPECT_TRUE(WriteFileAtomic(path, ReferenceClaimJson(spec).dump(1) + "\n").ok());
    return path;
  }
  BinaryRun Import(const std::string& id, const std::string& submission,
                   const std::vector<std::string>& claims) {
    std::vector<std::string> args = {"import", "--baseline", baseline(), "--record", id,
                                     "--submission", submission};
    for (const std::string& claim : claims) args.insert(args.end(), {"--claim", claim});
    return RunRatchet(args);
  }
  TempDir dir_;
  std::string ncm_;
};

TEST_F(ImportTest, TheCorpusRecordsAreAuditedAndEachIsRefusedSayingWhy) {
  const std::string corpus = SourceDir() + "/tests/audit/testdata/mnist-a100/submissions/";
  // The corpus holds no method file: this one stands for each record's, and hashes otherwise.
  const std::string method = dir_ / "submissions/written-for-the-test.py";
  ASSERT_TRUE(WriteFileAtomic(method, "def method(train_x, train_y, test_x):\n"
                                      "    return test_x[:, 0].long() % 10\n")
                  .ok());
  const std::string before = *ReadFile(baseline());
  struct Case {
    std::string record;
    std::string why;  // in the refusal
  };
  const std::vector<Case> cases = {
      // Four stand under `ratchet audit` (ThePublishedRecordsGetTheVerdictTheirFieldsSupport)
      // and are refused here: they name their own method's sha256, not this file's.
      {"graph-mlp-20260926/evidence/scorer-1.2.0/run-1.json",
       "record.source_sha256: 44cb0c03d4ac869e99186c584d234c8743c12565e0a3b49cf3172bd5c8a82325, "
       "but " + method + " has sha256 " + Sha256Hex(*ReadFile(method))},
      {"kernel-pcg-20260929/evidence/same-board/run-2-ours.json", "record.source_sha256: "},
      {"ladder-triton-20260928/evidence/d3-5000-steps/run-1.json", "record.source_sha256: "},
      {"native-mlp-d1-20261007/evaluation.json", "source_sha256: "},
      // A wrapper with no record: nothing to audit.
      {"graph-mlp-20260926/evidence/run-2.json", "holds no record (no \"record\" field)"},
  };
  for (const Case& c : cases) {
    BinaryRun run = Import("corpus", method, {corpus + c.record});
    EXPECT_EQ(run.exit_code, 1) << c.record << "\n" << run.out << run.err;
    EXPECT_TRUE(Contains(run.err, "ratchet import: refused: ")) << run.err;
    EXPECT_TRUE(Contains(run.err, c.why)) << c.record << "\n" << run.err;
    EXPECT_TRUE(Contains(run.err, "nothing was written")) << run.err;
  }
  // A claim that stands but is not official (no sandbox) is refused for that, once its method is
  // the one it names: here, a claim written for ncm.py without the sandbox.
  Json claim = ReferenceClaimJson([&] {
    ReferenceClaimSpec spec;
    spec.source = ncm_;
    return spec;
  }());
  claim["sandboxed"] = false;
  ASSERT_TRUE(WriteFileAtomic(dir_ / "claims/unsandboxed.json", claim.dump()).ok());
  BinaryRun run = Import("ncm", dir_ / "submissions/ncm.py", {dir_ / "claims/unsandboxed.json"});
  EXPECT_EQ(run.exit_code, 1) << run.out << run.err;
  EXPECT_TRUE(Contains(run.err, "stands but is not an official claim (the method ran without the "
                                "sandbox)"))
      << run.err;

  // A board's name a baseline would not keep (long, or not printable): refused, not echoed whole.
  for (const std::string& device : {std::string(300, 'A'), std::string("NVIDIA \x1b[2J")}) {
    ReferenceClaimSpec odd;
    odd.device = device;
    run = Import("ncm", dir_ / "submissions/ncm.py", {Claim("odd", odd)});
    EXPECT_EQ(run.exit_code, 2) << run.out << run.err;
    EXPECT_TRUE(Contains(run.err, "is not a board's name or a scorer's version")) << run.err;
    EXPECT_LT(run.err.size(), 600u) << run.err;
  }

  // Claims that disagree, and bad usage: refused, nothing written.
  ReferenceClaimSpec loose;
  ReferenceClaimSpec tight;
  tight.band_bp = 1500;
  run = Import("ncm", dir_ / "submissions/ncm.py", {Claim("loose", loose), Claim("tight", tight)});
  EXPECT_EQ(run.exit_code, 1);
  EXPECT_TRUE(Contains(run.err, "the claims name more than one band (2000 and 1500 bp)")) << run.err;
  run = Import("ncm", dir_ / "submissions/ncm.py:classify", {Claim("loose", loose)});
  EXPECT_EQ(run.exit_code, 1);
  EXPECT_TRUE(Contains(run.err, "not the function classify")) << run.err;
  run = Import("bad id!", dir_ / "submissions/ncm.py", {Claim("loose", loose)});
  EXPECT_EQ(run.exit_code, 2);
  EXPECT_TRUE(Contains(run.err, "is not a record id")) << run.err;
  run = Import("ncm", dir_ / "submissions/ncm.py", {});
  EXPECT_EQ(run.exit_code, 2);
  EXPECT_TRUE(Contains(run.err, "give one to three claims")) << run.err;
  // A name `ratchet run` would refuse is refused here, before any claim is audited.
  ASSERT_TRUE(WriteFileAtomic(dir_ / "submissions/.ncm.py", ncm_).ok());
  run = Import("ncm", dir_ / "submissions/.ncm.py", {Claim("loose", loose)});
  EXPECT_EQ(run.exit_code, 2);
  EXPECT_TRUE(Contains(run.err, "\".ncm.py\" is not a plain name")) << run.err;
  EXPECT_EQ(*ReadFile(baseline()), before);
}

TEST_F(ImportTest, AnImportedClaimIsReproducedOrNotThenPromoted) {
  if (!HavePython()) GTEST_SKIP() << "no python3 that imports torch";
  // ncm.py qualifies at 20% (the bundled baseline's ncm-py); it does not reach 5.4% (ncm-py-d1).
  ReferenceClaimSpec at_20;
  ReferenceClaimSpec at_20_again = at_20;
  at_20_again.ms = 14.5;
  ReferenceClaimSpec at_5_4;
  at_5_4.band_bp = 540;
  at_5_4.mnist_correct = 9600;
  BinaryRun run = Import("ncm-claimed", dir_ / "submissions/ncm.py",
                         {Claim("a", at_20), Claim("b", at_20_again)});
  ASSERT_EQ(run.exit_code, 0) << run.out << run.err;
  run = Import("ncm-overclaimed", dir_ / "submissions/ncm.py", {Claim("c", at_5_4)});
  ASSERT_EQ(run.exit_code, 0) << run.out << run.err;
  EXPECT_EQ(Import("ncm-claimed", dir_ / "submissions/ncm.py", {Claim("a", at_20)}).exit_code, 2)
      << "an id imported twice";
  // Two records the reference scorer itself made of ncm.py on an H200 (testdata/, SOURCE.md).
  const std::string seed = SourceDir() + "/tests/baseline/testdata/seed-claims-h200/";
  run = Import("ncm-h200", dir_ / "submissions/ncm.py",
               {seed + "ncm-run-1.json", seed + "ncm-run-2.json"});
  ASSERT_EQ(run.exit_code, 0) << run.out << run.err;
  const Json h200 = Json::parse(*ReadFile(baseline()))["records"]["ncm-h200"]["claimed"];
  EXPECT_EQ(h200["board"], "NVIDIA H200");
  EXPECT_DOUBLE_EQ(h200["ranked_ms"].get<double>(),
                   (0.8355069200599172 + 0.8811474904609691) / 2);

  const Json record = Json::parse(*ReadFile(baseline()))["records"]["ncm-claimed"];
  EXPECT_EQ(record["submission"], "submissions/ncm.py");
  EXPECT_EQ(record["sha256"], Sha256Hex(ncm_));
  EXPECT_EQ(record["band_bp"], 2000);
  EXPECT_FALSE(record.contains("expected")) << "a claim is not a review";
  const Json& claimed = record["claimed"];
  EXPECT_EQ(claimed["outcome"], Json({{"status", "qualified"}, {"broken", Json::array()}}));
  EXPECT_EQ(claimed["board"], "NVIDIA A100-SXM4-80GB");
  EXPECT_EQ(claimed["scorer"],
            "mnist-a100/1.2.0 (protections of sutro-mnist-medium/3.0.0, tightened; energy column)");
  ASSERT_EQ(claimed["claims"].size(), 2u);
  EXPECT_EQ(claimed["claims"][0]["path"], "claims/a.json");
  EXPECT_EQ(claimed["claims"][0]["sha256"], Sha256Hex(*ReadFile(dir_ / "claims/a.json")));
  // The median of the two claims' ranked times (each the slower dataset's mean).
  const double a = ReferenceClaimJson([&] {
                     ReferenceClaimSpec s = at_20;
                     s.source = ncm_;
                     return s;
                   }())["ranked_ms"],
               b = ReferenceClaimJson([&] {
                     ReferenceClaimSpec s = at_20_again;
                     s.source = ncm_;
                     return s;
                   }())["ranked_ms"];
  EXPECT_DOUBLE_EQ(claimed["ranked_ms"].get<double>(), (a + b) / 2);

  std::filesystem::create_directories(dir_ / "evidence");
  const std::string evidence = dir_ / "evidence/run";
  run = RunRatchet({"run", "--baseline", baseline(), "--out", evidence, "--json"});
  EXPECT_EQ(run.exit_code, 1) << run.out << run.err;
  const Json result = Json::parse(run.out);
  // The overclaimed record is not reproduced; the others reproduce, and a claim reproduced is
  // still not reviewed, so the run fails until they are promoted.
  std::map<std::string, std::string> errors;
  for (const Json& error : result["errors"]) errors[error["record"]] = error["code"];
  EXPECT_EQ(errors, (std::map<std::string, std::string>{
                        {"ncm-claimed", "record-unreviewed"},
                        {"ncm-h200", "record-unreviewed"},
                        {"ncm-overclaimed", "claim-not-reproduced"}}))
      << result.dump(2);
  for (const Json& error : result["errors"]) {
    if (error["record"] == "ncm-overclaimed") {
      EXPECT_TRUE(Contains(error["message"], "claimed qualified")) << result.dump(2);
    }
  }
  std::string reproduced;
  for (const Json& note : result["notes"]) {
    if (Contains(note, "claim-reproduced: ncm-claimed: ")) reproduced = note;
  }
  EXPECT_TRUE(Contains(reproduced, "the outcome only, since the claim's time was taken on another "
                                   "kind of board"))
      << result.dump(2);
  // The reference scorer's own claims: on a CPU lane, their outcome reproduced.
  const std::string contract = *ReadFile(evidence + "/contract.json");
  if (Json::parse(contract)["lane"]["device"]["kind"] == "cpu") {
    bool seen = false;
    for (const Json& note : result["notes"]) {
      seen = seen || Contains(note, "claim-reproduced: ncm-h200: claimed qualified, 0.858 ms at "
                                    "2000 bp on NVIDIA H200; scored qualified at the same band on "
                                    "a CPU lane: the outcome only");
    }
    EXPECT_TRUE(seen) << result.dump(2);
  }

  run = RunRatchet({"promote", "--baseline", baseline(), "--evidence", evidence, "--record",
                    "ncm-claimed", "--reason", "reproduced on this lane", "--reviewer", "a test"});
  EXPECT_EQ(run.exit_code, 0) << run.out << run.err;
  const Json promoted = Json::parse(*ReadFile(baseline()))["records"]["ncm-claimed"];
  EXPECT_EQ(promoted["expected"], Json({{"status", "qualified"}, {"broken", Json::array()}}));
  EXPECT_EQ(promoted["claimed"], claimed) << "the claim it came from is kept";
}

}  // namespace
}  // namespace ratchet
