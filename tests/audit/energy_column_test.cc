// The energy column re-derived from its windows: by hand on plain values, and to the bit on the
// published records.
#include "audit/energy_column.h"

#include <gtest/gtest.h>

#include "audit/result.h"
#include "energy/energy_file.h"
#include "evidence/fields.h"
#include "fixture.h"
#include "testdata.h"

namespace ratchet {
namespace {

// The reference scorer's rule set, which its published records were made under.
const RuleSet& Rules() {
  static const RuleSet rules = LoadRuleSet(std::string("mnist-a100/1.2.0")).value();
  return rules;
}

// ratchet's own rule set, the default: the seed's plus an NVIDIA H200 telemetry band.
const RuleSet& DefaultRules() {
  static const RuleSet rules = LoadRuleSet(std::nullopt).value();
  return rules;
}

EnergyWindow Idle(const std::string& name, double joules = 300.0) {
  EnergyWindow w;
  w.name = name;
  w.seconds = 5.0;
  w.joules = joules;
  w.contexts = 1;
  return w;
}

// 60 W idle; the reference 788 J above idle over 94.558 TFLOP (8.33 J/TFLOP at 18.2 TFLOP/s);
// the control 30 J over 1,800 calls; the method 800 J over 4 calls.
std::vector<EnergyWindow> Healthy() {
  EnergyWindow reference;
  reference.name = "reference";
  reference.seconds = 5.2;
  reference.joules = 1100.0;
  reference.matmuls = 688;
  reference.dim = 4096;
  reference.exact = true;
  EnergyWindow control;
  control.name = "control";
  control.seconds = 5.0;
  control.joules = 330.0;
  control.calls = 1800;
  EnergyWindow method;
  method.name = "method";
  method.seconds = 20.0;
  method.joules = 2000.0;
  method.calls = 4;
  method.ms = {50.0, 51.0, 49.0, 50.5};
  method.correct = {9500, 9600, 9550, 9450};
  return {Idle("idle 1"), reference, Idle("idle 2"), control,
          Idle("idle 3"), method,    Idle("idle 4")};
}

constexpr char kA100[] = "NVIDIA A100-SXM4-80GB";
constexpr double kTimedMedian = 50.0;

EnergyColumn Recompute(const std::vector<EnergyWindow>& windows, const std::string& device = kA100,
                       double timed_median = kTimedMedian) {
  Result<EnergyColumn> column = RecomputeEnergy(windows, device, timed_median, 540, Rules());
  EXPECT_TRUE(column.ok()) << column.status().message();
  return column.ok() ? *column : EnergyColumn{};
}

TEST(EnergyTest, AHealthyColumnIsTheMethodsEnergyAboveIdleLessTheRoundTrip) {
  const EnergyColumn column = Recompute(Healthy());
  EXPECT_TRUE(column.problems.empty());
  const double tflop = 2.0 * 4096.0 * 4096.0 * 4096.0 * 688.0 / 1e12;
  EXPECT_DOUBLE_EQ(column.j_per_tflop, 788.0 / tflop);
  EXPECT_DOUBLE_EQ(column.tflops_per_s, tflop / 5.2);
  EXPECT_DOUBLE_EQ(column.control_mj_per_call, 30.0 * 1e3 / 1800);
  EXPECT_DOUBLE_EQ(column.net_mj_before_control, 800.0 * 1e3 / 4);
  ASSERT_TRUE(column.mj_per_call.has_value());
  EXPECT_DOUBLE_EQ(*column.mj_per_call, 200000.0 - 30.0 * 1e3 / 1800);
  EXPECT_DOUBLE_EQ(column.gross_mj_per_call, 500000.0);
  EXPECT_DOUBLE_EQ(column.idle_w, 60.0);
  EXPECT_DOUBLE_EQ(column.active_w, 100.0);
  EXPECT_DOUBLE_EQ(column.ms_median, 50.25);
  EXPECT_EQ(column.correct, 38100);
  EXPECT_EQ(column.total, 40000);
  ASSERT_NE(column.band, nullptr);
  EXPECT_EQ(column.band->prefix, "NVIDIA A100");
}

TEST(EnergyTest, ImplausibleTelemetryLeavesTheColumnEmpty) {
  std::vector<EnergyWindow> windows = Healthy();
  windows[1].joules = 400.0;  // 88 J above idle: 0.93 J/TFLOP, a broken sensor
  const EnergyColumn column = Recompute(windows);
  EXPECT_FALSE(column.mj_per_call.has_value());
  ASSERT_EQ(column.problems.size(), 1u);
  EXPECT_EQ(
      column.problems[0],
      "the board's power telemetry is implausible: the reference read 0.93 J/TFLOP above idle at "
      "18.2 TFLOP/s, where a healthy NVIDIA A100-SXM4-80GB reads 6-11 J/TFLOP at 15-23 TFLOP/s");
}

TEST(EnergyTest, ABoardWithoutABandIsNotJudgedOnTheReference) {
  std::vector<EnergyWindow> windows = Healthy();
  windows[1].joules = 400.0;
  const EnergyColumn column = Recompute(windows, "NVIDIA L40S");
  EXPECT_EQ(column.band, nullptr);
  EXPECT_TRUE(column.problems.empty());
  EXPECT_TRUE(column.mj_per_call.has_value());
}

TEST(EnergyTest, EveryReasonNotToTrustTheColumnIsAProblem) {
  struct Case {
    const char* what;
    std::function<void(std::vector<EnergyWindow>&)> change;
    std::string problem;
  };
  const std::vector<Case> cases = {
      {"counter backwards", [](auto& w) { w[6].joules = -1.0; },
       "the board's energy counter went backwards"},
      {"wrong product", [](auto& w) { w[1].exact = false; },
       "the telemetry reference computed a wrong product"},
      {"busy idle", [](auto& w) { w[4].utilization_max = 3; },
       "the GPU was busy in an idle window, with the method's processes frozen"},
      {"another context", [](auto& w) { w[0].contexts = 2; },
       "another process held a CUDA context on the GPU"},
      {"weak draw", [](auto& w) { w[5].correct[2] = 9309; },
       "a draw in the energy window scored 9,309/10,000; no timed MNIST draw may fall below 9,310"},
      {"other work",
       [](auto& w) {
         w[5].ms = {102.5, 102.5, 102.5, 102.5};
       },
       "calls in the energy window took 102.500 ms (median) against 50.000 ms in the timed calls; "
       "every call "
       "must do the same work"},
      {"no energy", [](auto& w) { w[5].joules = 1200.0; },
       "the method's window read no energy above idle"},
  };
  for (const Case& c : cases) {
    std::vector<EnergyWindow> windows = Healthy();
    c.change(windows);
    const EnergyColumn column = Recompute(windows);
    EXPECT_FALSE(column.mj_per_call.has_value()) << c.what;
    EXPECT_NE(std::find(column.problems.begin(), column.problems.end(), c.problem),
              column.problems.end())
        << c.what << ": " << (column.problems.empty() ? "no problem" : column.problems[0]);
  }
}

TEST(EnergyTest, AWindowTheArithmeticNeedsMustBeThere) {
  std::vector<EnergyWindow> windows = Healthy();
  windows.erase(windows.begin() + 4);  // idle 3
  Result<EnergyColumn> column = RecomputeEnergy(windows, kA100, kTimedMedian, 540, Rules());
  ASSERT_FALSE(column.ok());
  EXPECT_EQ(column.status().message(), "no window named \"idle 3\"");
}

// The published columns, recomputed: every figure to the bit, and the telemetry within the rule
// set's A100 band.
TEST(EnergyTest, ThePublishedColumnsAreRederivedToTheBit) {
  for (const char* relative : {kStanding, kStandingOtherBoard}) {
    const Json record = CorpusJson(relative)["record"];
    ASSERT_TRUE(record.is_object()) << relative;
    std::vector<double> mnist_ms;
    for (const Json& call : record["calls"]) {
      if (call["dataset"] == "mnist") mnist_ms.push_back(call["ms"].get<double>());
    }
    std::sort(mnist_ms.begin(), mnist_ms.end());
    AuditResult result;
    FieldReader reader("run.json", &result);
    std::optional<EnergyColumn> column =
        AuditEnergy(record["energy"], "record.energy", reader, mnist_ms[mnist_ms.size() / 2],
                    record["band_bp"].get<int64_t>(), Rules());
    ASSERT_TRUE(column.has_value())
        << relative << ": " << (result.findings.empty() ? "" : result.findings[0].message);
    EXPECT_TRUE(result.findings.empty())
        << result.findings[0].where << ": " << result.findings[0].message;
    ASSERT_TRUE(column->mj_per_call.has_value());
    EXPECT_EQ(*column->mj_per_call, record["energy"]["mj_per_call"].get<double>()) << relative;
    EXPECT_EQ(column->j_per_tflop, record["energy"]["reference"]["j_per_tflop"].get<double>())
        << relative;
    ASSERT_NE(column->band, nullptr);
  }
}

TEST(EnergyTest, AnyWindowsJoulesEditedIsFound) {
  const Json record = CorpusJson(kStanding)["record"];
  ASSERT_TRUE(record.is_object());
  for (size_t i = 0; i < record["energy"]["windows"].size(); ++i) {
    Json energy = record["energy"];
    energy["windows"][i]["joules"] = energy["windows"][i]["joules"].get<double>() + 0.001;
    AuditResult result;
    FieldReader reader("run-1.json", &result);
    EXPECT_FALSE(AuditEnergy(energy, "record.energy", reader,
                             record["energy"]["timed_mnist_ms_median"].get<double>(), 540, Rules())
                     .has_value())
        << "window " << i;
    ASSERT_GT(result.breaking(), 0u) << "window " << i;
    EXPECT_EQ(result.findings[0].where.rfind("run-1.json: record.energy.", 0), 0u)
        << result.findings[0].where;
    EXPECT_NE(result.findings[0].message.find("its windows give"), std::string::npos);
  }
}

TEST(EnergyTest, WindowsTheProtocolWouldNotMeasureAreFound) {
  const Json record = CorpusJson(kStanding)["record"];
  ASSERT_TRUE(record.is_object());
  const double median = record["energy"]["timed_mnist_ms_median"].get<double>();
  struct Case {
    std::function<void(Json&)> change;
    std::string where;
    std::string words;
  };
  const std::vector<Case> cases = {
      {[](Json& e) { e["windows"][5]["seconds"] = 12.0; }, "record.energy.windows[5].seconds",
       "the method window lasted 12 s; the rule set's protocol keeps it open at least 20 s"},
      {[](Json& e) { std::swap(e["windows"][0], e["windows"][2]); }, "record.energy.windows",
       "in that order"},
      {[](Json& e) { e["windows"][1]["dim"] = 2048; }, "record.energy.windows[1].dim", "2048-wide"},
      {[](Json& e) { e["windows"][5]["calls"] = 355; }, "record.energy.windows[5]",
       "355 calls, but 356 times"},
      {[](Json& e) { e["reference"]["band"] = Json::parse("[[1.0, 20.0], [15.0, 23.0]]"); },
       "record.energy.reference.band",
       "the rule set mnist-a100/1.2.0's band for NVIDIA A100-SXM4-80GB"},
      {[](Json& e) { e["windows"][3].erase("calls"); }, "record.energy.windows[3].calls",
       "missing"},
  };
  for (const Case& c : cases) {
    Json energy = record["energy"];
    c.change(energy);
    AuditResult result;
    FieldReader reader("run-1.json", &result);
    EXPECT_FALSE(AuditEnergy(energy, "record.energy", reader, median, 540, Rules()).has_value())
        << c.where;
    bool found = false;
    for (const AuditFinding& f : result.findings) {
      found = found ||
              (f.where == "run-1.json: " + c.where && f.message.find(c.words) != std::string::npos);
    }
    EXPECT_TRUE(found) << c.where << ": "
                       << (result.findings.empty()
                               ? "none"
                               : result.findings[0].where + ": " + result.findings[0].message);
  }
}

// Healthy() on an H200: the reference 5 s of 1,800 matmuls (49.5 TFLOP/s), `j_per_tflop` above
// idle.
std::vector<EnergyWindow> OnAnH200(double j_per_tflop) {
  std::vector<EnergyWindow> windows = Healthy();
  EnergyWindow& reference = windows[1];
  reference.seconds = 5.0;
  reference.matmuls = 1800;
  const double tflop = 2.0 * 4096.0 * 4096.0 * 4096.0 * 1800.0 / 1e12;
  reference.joules = 60.0 * 5.0 + j_per_tflop * tflop;  // idle power is 60 W
  return windows;
}

constexpr char kH200[] = "NVIDIA H200";

// The column as a record gives it, computed under `rules`, audited under `audit_rules`.
AuditResult AuditH200(const std::vector<EnergyWindow>& windows, const RuleSet& rules,
                      const RuleSet& audit_rules, std::optional<EnergyColumn>* audited,
                      const std::string& device = kH200) {
  Result<EnergyColumn> column = RecomputeEnergy(windows, device, kTimedMedian, 540, rules);
  EXPECT_TRUE(column.ok()) << column.status().message();
  const Json energy = EnergyColumnJson(*column, windows, {{"name", device}}, Json::object());
  AuditResult result;
  FieldReader reader("run-1.json", &result);
  *audited = AuditEnergy(energy, "record.energy", reader, kTimedMedian, 540, audit_rules);
  return result;
}

// Under ratchet's rule set an H200's telemetry is checked against its band: a healthy reading
// stands, checked; the broken sensor's ~0.07 J/TFLOP leaves the column empty, and a record that
// claims a figure anyway (as one made under the seed's rule set, which has no H200 band, does)
// is a finding.
TEST(EnergyTest, AnH200IsJudgedAgainstItsBandUnderTheDefaultRuleSet) {
  std::optional<EnergyColumn> column;
  AuditResult healthy = AuditH200(OnAnH200(5.6), DefaultRules(), DefaultRules(), &column);
  EXPECT_TRUE(healthy.findings.empty()) << Findings(healthy);
  ASSERT_TRUE(column.has_value());
  ASSERT_NE(column->band, nullptr);
  EXPECT_EQ(column->band->name, "NVIDIA H200");
  EXPECT_NEAR(column->j_per_tflop, 5.6, 1e-9);
  EXPECT_NEAR(column->tflops_per_s, 49.48, 0.01);
  EXPECT_TRUE(column->mj_per_call.has_value());

  // Measured under the default rule set, the broken sensor's column is empty, and says why.
  const std::vector<EnergyWindow> broken = OnAnH200(0.07);
  Result<EnergyColumn> empty = RecomputeEnergy(broken, kH200, kTimedMedian, 540, DefaultRules());
  ASSERT_TRUE(empty.ok());
  EXPECT_FALSE(empty->mj_per_call.has_value());
  ASSERT_EQ(empty->problems.size(), 1u);
  EXPECT_EQ(empty->problems[0],
            "the board's power telemetry is implausible: the reference read 0.07 J/TFLOP above "
            "idle at 49.5 TFLOP/s, where a healthy NVIDIA H200 reads 4.5-7 J/TFLOP at 42-60 "
            "TFLOP/s");
  // The band is for the board of that name alone: another board is not judged by it.
  Result<EnergyColumn> other =
      RecomputeEnergy(broken, "NVIDIA H200 NVL", kTimedMedian, 540, DefaultRules());
  ASSERT_TRUE(other.ok());
  EXPECT_EQ(other->band, nullptr);
  EXPECT_TRUE(other->problems.empty()) << other->problems[0];
  EXPECT_TRUE(other->mj_per_call.has_value());

  // A figure claimed on it: unchecked under the seed's rules, a finding under ratchet's.
  AuditResult unchecked = AuditH200(broken, Rules(), Rules(), &column);
  EXPECT_EQ(unchecked.breaking(), 0u) << Findings(unchecked);
  EXPECT_TRUE(column.has_value());
  AuditResult claimed = AuditH200(broken, Rules(), DefaultRules(), &column);
  EXPECT_FALSE(column.has_value());
  EXPECT_TRUE(HasFinding(claimed, "run-1.json: record.energy.mj_per_call",
                         "its windows give none (the board's power telemetry is implausible: the "
                         "reference read 0.07 J/TFLOP"))
      << Findings(claimed);
  EXPECT_TRUE(HasFinding(claimed, "run-1.json: record.energy.reference.band",
                         "the rule set mnist-a100/1.5.0's band for NVIDIA H200 is "))
      << Findings(claimed);
}

// An NVIDIA H200 NVL was never measured here: under the default rule set its column is
// unchecked (no band, a note) and stands; one computed under mnist-a100/1.3.0, whose H200 band
// was a prefix and judged it, is a finding when audited under the default.
TEST(EnergyTest, AnH200NvlIsNotJudgedByTheH200Band) {
  constexpr char kNvl[] = "NVIDIA H200 NVL";
  const RuleSet first = LoadRuleSet(std::string("mnist-a100/1.3.0")).value();
  std::optional<EnergyColumn> column;
  AuditResult unchecked = AuditH200(OnAnH200(0.07), DefaultRules(), DefaultRules(), &column, kNvl);
  EXPECT_EQ(unchecked.breaking(), 0u) << Findings(unchecked);
  ASSERT_TRUE(column.has_value());
  EXPECT_EQ(column->band, nullptr);
  EXPECT_TRUE(column->mj_per_call.has_value());

  AuditResult judged = AuditH200(OnAnH200(5.6), first, first, &column, kNvl);
  EXPECT_EQ(judged.breaking(), 0u) << Findings(judged);
  ASSERT_TRUE(column.has_value());
  ASSERT_NE(column->band, nullptr);
  EXPECT_EQ(column->band->boards(), "NVIDIA H200");
  AuditResult moved = AuditH200(OnAnH200(5.6), first, DefaultRules(), &column, kNvl);
  EXPECT_GT(moved.breaking(), 0u) << Findings(moved);
  EXPECT_TRUE(HasFinding(moved, "run-1.json: record.energy.reference.band",
                         "; the rule set mnist-a100/1.5.0's band for NVIDIA H200 NVL is null"))
      << Findings(moved);
}

TEST(EnergyTest, AColumnThatWasNotMeasuredIsANote) {
  AuditResult result;
  FieldReader reader("run.json", &result);
  const Json energy = {{"mj_per_call", nullptr}, {"reason", "no NVML here"}};
  EXPECT_FALSE(AuditEnergy(energy, "record.energy", reader, 50.0, 540, Rules()).has_value());
  ASSERT_EQ(result.findings.size(), 1u);
  EXPECT_EQ(result.findings[0].kind, AuditFinding::Kind::kNote);
  EXPECT_EQ(result.findings[0].message, "the energy column was not measured: no NVML here");
}

}  // namespace
}  // namespace ratchet
