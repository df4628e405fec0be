// Black-box runs of the binary: on this CPU machine a qualified run has no energy column and
// says why, --no-energy is accepted, and `ratchet telemetry` without a GPU fails as the harness
// (exit 3) with a message that says what is missing.
#include <dlfcn.h>
#include <gtest/gtest.h>

#include "core/canonical_json.h"
#include "core/file.h"
#include "energy/energy_rules.h"
#include "support/checkout.h"
#include "support/fast_rules.h"
#include "support/run_binary.h"
#include "support/temp_dir.h"

namespace ratchet {
namespace {

bool HaveNvml() {
  void* handle = dlopen("libnvidia-ml.so.1", RTLD_NOW | RTLD_LOCAL);
  if (handle != nullptr) dlclose(handle);
  return handle != nullptr;
}

// ncm.py where a python3 with torch is installed, else the native ncm.cpp (compiled into a cache
// of the test's own).
std::vector<std::string> ScoreArgs(const TempDir& dir, const std::string& out) {
  const std::string file =
      HavePython() ? "/baselines/submissions/ncm.py" : "/baselines/submissions/ncm.cpp";
  return {"score", SourceDir() + file, "--band", "3000", "--rules", FastRules(dir), "--out", out};
}

void ExpectNoColumnOnTheCpuLane(const BinaryRun& run, const std::string& out,
                                const std::string& rules) {
  ASSERT_EQ(run.exit_code, 0) << run.out << run.err;
  EXPECT_NE(run.out.find("energy: none: a CPU lane has no energy column"), std::string::npos)
      << run.out;
  EXPECT_FALSE(PathExists(out + "/records/ncm/run-1/energy.json"));
  Result<std::string> text = ReadFile(out + "/report.json");
  ASSERT_TRUE(text.ok()) << text.status().message();
  const Json report = Json::parse(*text);
  const Json& record = report["records"]["ncm"];
  EXPECT_TRUE(record["energy"]["mj_per_call"].is_null());
  EXPECT_EQ(record["energy"]["runs_measured"], 0);
  const Json& energy = record["runs"][0]["energy"];
  EXPECT_TRUE(energy["mj_per_call"].is_null());
  EXPECT_NE(energy["reason"].get<std::string>().find("a CPU lane has no energy column"),
            std::string::npos);
  // The audit reads the evidence as whole, the run's energy entry included.
  BinaryRun audit = RunRatchet({"audit", out, "--rules", rules});
  EXPECT_EQ(audit.exit_code, 0) << audit.out << audit.err;
}

TEST(EnergyCommandTest, ACpuRunHasNoEnergyColumnAndSaysWhy) {
  if (HaveNvml()) GTEST_SKIP() << "this machine has NVML";
  TempDir dir;
  const std::string out = dir / "evidence";
  BinaryRun run = RunRatchet(ScoreArgs(dir, out), {"RATCHET_CACHE=" + (dir / "cache")});
  ExpectNoColumnOnTheCpuLane(run, out, dir / "fast-rules.json");
}

TEST(EnergyCommandTest, NoEnergyIsAnOptionOfScoreAndRun) {
  if (HaveNvml()) GTEST_SKIP() << "this machine has NVML";
  TempDir dir;
  const std::string out = dir / "evidence";
  std::vector<std::string> args = ScoreArgs(dir, out);
  args.push_back("--no-energy");
  BinaryRun run = RunRatchet(args, {"RATCHET_CACHE=" + (dir / "cache")});
  ExpectNoColumnOnTheCpuLane(run, out, dir / "fast-rules.json");
  for (const char* command : {"score", "run"}) {
    BinaryRun help = RunRatchet({command, "--help"});
    EXPECT_EQ(help.exit_code, 0);
    EXPECT_NE(help.out.find("--no-energy"), std::string::npos) << command;
  }
}

TEST(EnergyCommandTest, TelemetryWithoutAGpuIsTheHarnessFailing) {
  if (HaveNvml()) GTEST_SKIP() << "this machine has NVML";
  BinaryRun run = RunRatchet({"telemetry", "--runs", "1"});
  EXPECT_EQ(run.exit_code, 3) << run.out << run.err;
  EXPECT_EQ(run.err.rfind("ratchet telemetry: error: no NVIDIA driver: libnvidia-ml.so.1", 0), 0u)
      << run.err;
  EXPECT_NE(run.err.find("needs one and its driver"), std::string::npos) << run.err;
  EXPECT_EQ(run.out, "");
}

TEST(EnergyCommandTest, TelemetryIsACommandWithItsOptions) {
  BinaryRun help = RunRatchet({"telemetry", "--help"});
  EXPECT_EQ(help.exit_code, 0);
  EXPECT_EQ(help.out.rfind("usage: ratchet telemetry [--runs N] [--out DIR]", 0), 0u) << help.out;
  BinaryRun listed = RunRatchet({"--help"});
  EXPECT_NE(listed.out.find("  telemetry   "), std::string::npos) << listed.out;
  BinaryRun zero = RunRatchet({"telemetry", "--runs", "0"});
  EXPECT_EQ(zero.exit_code, 2) << zero.err;
  EXPECT_NE(zero.err.find("--runs must be a whole number from 1 to 100"), std::string::npos)
      << zero.err;
  TempDir dir;
  BinaryRun exists = RunRatchet({"telemetry", "--out", dir.path()});
  EXPECT_EQ(exists.exit_code, 2) << exists.err;
  EXPECT_NE(exists.err.find("exists"), std::string::npos) << exists.err;
}

#ifdef RATCHET_TEST_FAKE_NVML_DIR
// With a stand-in NVML first on the loader's path, the whole command runs on the CPU worker.
TEST(EnergyCommandTest, TelemetryReadsTheReferenceInFreshWorkers) {
  TempDir dir;
  const std::string rules = dir / "rules.json";
  ASSERT_TRUE(WriteFileAtomic(rules, EnergyRulesJson(2.0).dump()).ok());
  const std::string nvml = std::string("LD_LIBRARY_PATH=") + RATCHET_TEST_FAKE_NVML_DIR;
  BinaryRun run =
      RunRatchet({"telemetry", "--runs", "2", "--rules", rules, "--out", dir / "t"}, {nvml});
  ASSERT_EQ(run.exit_code, 0) << run.out << run.err;
  for (const char* line : {"\n  Fake NVML Board\n", "\nrun 1/2: ", "\nrun 2/2: ",
                           "\nover 2 run(s) without a problem (min / median / max):\n",
                           "has no band for Fake NVML Board"}) {
    EXPECT_NE(run.out.find(line), std::string::npos) << line << " in:\n" << run.out;
  }
  EXPECT_NE(run.out.find("telemetry: " + (dir / "t") + "/telemetry.json"), std::string::npos);
  Result<std::string> text = ReadFile(dir / "t/telemetry.json");
  ASSERT_TRUE(text.ok()) << text.status().message();
  const Json telemetry = Json::parse(*text);
  EXPECT_EQ(telemetry["schema"], "ratchet.telemetry/1");
  EXPECT_EQ(telemetry["device"]["name"], "Fake NVML Board");
  EXPECT_EQ(telemetry["dim"], 64);
  ASSERT_EQ(telemetry["runs"].size(), 2u);
  for (const Json& r : telemetry["runs"]) {
    ASSERT_EQ(r["windows"].size(), 3u);
    EXPECT_EQ(r["windows"][0]["name"], "idle 1");
    EXPECT_EQ(r["windows"][1]["name"], "reference");
    EXPECT_EQ(r["windows"][2]["name"], "idle 2");
    EXPECT_GT(r["windows"][1]["matmuls"].get<int64_t>(), 0);
    EXPECT_GE(r["windows"][0]["seconds"].get<double>(), 0.25);
  }
  EXPECT_EQ(telemetry["spread"]["runs"], 2);

  // Outside a band the rule set has for the board: a finding.
  const std::string banded = dir / "banded.json";
  ASSERT_TRUE(WriteFileAtomic(banded, EnergyRulesJson(2.0, "Fake NVML").dump()).ok());
  BinaryRun outside = RunRatchet({"telemetry", "--runs", "1", "--rules", banded}, {nvml});
  EXPECT_EQ(outside.exit_code, 1) << outside.out << outside.err;
  EXPECT_NE(outside.out.find("  problem: the board's power telemetry is implausible: "),
            std::string::npos)
      << outside.out;
  EXPECT_NE(outside.out.find("no run read without a problem"), std::string::npos) << outside.out;
  EXPECT_NE(outside.out.find("'s band for Fake NVML: "), std::string::npos) << outside.out;

  // A band given by the board's whole name applies to that name alone, and is named by it.
  Json named = EnergyRulesJson(2.0);
  named["energy"]["reference_bands"].push_back(
      {{"name", "Fake NVML Board"}, {"j_per_tflop", {0.0, 0.0}}, {"tflops_per_s", {1e6, 1e7}}});
  ASSERT_TRUE(WriteFileAtomic(banded, named.dump()).ok());
  outside = RunRatchet({"telemetry", "--runs", "1", "--rules", banded}, {nvml});
  EXPECT_EQ(outside.exit_code, 1) << outside.out << outside.err;
  EXPECT_NE(outside.out.find("'s band for Fake NVML Board: "), std::string::npos) << outside.out;
  named["energy"]["reference_bands"].back()["name"] = "Fake NVML";
  ASSERT_TRUE(WriteFileAtomic(banded, named.dump()).ok());
  outside = RunRatchet({"telemetry", "--runs", "1", "--rules", banded}, {nvml});
  EXPECT_EQ(outside.exit_code, 0) << outside.out << outside.err;
  EXPECT_NE(outside.out.find("has no band for Fake NVML Board"), std::string::npos) << outside.out;
}
#endif

}  // namespace
}  // namespace ratchet
