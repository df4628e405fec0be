// The column from its windows: the seed's arithmetic on known numbers, the published records'
// columns written again byte for byte from their windows alone, and the audit accepting what
// the writer writes.
#include "energy/column.h"
#include "energy/energy_file.h"

#include <gtest/gtest.h>

#include "audit/energy_column.h"
#include "audit/result.h"
#include "audit/testdata.h"
#include "evidence/fields.h"

namespace ratchet {
namespace {

const RuleSet& Rules() {
  static const RuleSet rules = LoadRuleSet(std::nullopt).value();
  return rules;
}

EnergyWindow Window(const std::string& name, double seconds, double joules) {
  EnergyWindow w;
  w.name = name;
  w.seconds = seconds;
  w.joules = joules;
  if (IsIdleWindow(name)) w.contexts = 1;
  return w;
}

// Idle at 50 W before the reference and 70 W after it (60 W on average); 2 x 1024^3 x 1000
// FLOPs of reference in 4 s; 200 empty calls; 10 method calls.
std::vector<EnergyWindow> Known() {
  EnergyWindow reference = Window("reference", 4.0, 1000.0);
  reference.matmuls = 1000;
  reference.dim = 1024;
  reference.exact = true;
  EnergyWindow control = Window("control", 2.0, 150.0);
  control.calls = 200;
  EnergyWindow method = Window("method", 10.0, 1100.0);
  method.calls = 10;
  method.ms = {40, 41, 42, 43, 44, 45, 46, 47, 48, 49};
  method.correct = {9800, 9810, 9820, 9830, 9840, 9850, 9860, 9870, 9880, 9890};
  return {Window("idle 1", 5.0, 250.0), reference, Window("idle 2", 5.0, 350.0), control,
          Window("idle 3", 5.0, 300.0), method,    Window("idle 4", 5.0, 400.0)};
}

// The seed's energy_summary, done by hand on Known().
TEST(EnergyColumnTest, TheFiguresAreTheSeedsArithmeticOnKnownNumbers) {
  Result<EnergyColumn> column = RecomputeEnergy(Known(), "NVIDIA L40S", 44.0, 540, Rules());
  ASSERT_TRUE(column.ok()) << column.status().message();
  const double tflop = 2.0 * 1024 * 1024 * 1024 * 1000 / 1e12;
  EXPECT_DOUBLE_EQ(column->j_per_tflop, (1000.0 - 60.0 * 4.0) / tflop);
  EXPECT_DOUBLE_EQ(column->tflops_per_s, tflop / 4.0);
  // control: 150 J less (70 + 60) / 2 W over 2 s, per call, in mJ
  EXPECT_DOUBLE_EQ(column->control_mj_per_call, (150.0 - 65.0 * 2.0) * 1e3 / 200);
  // method: 1100 J less (60 + 80) / 2 W over 10 s, per call
  EXPECT_DOUBLE_EQ(column->net_mj_before_control, (1100.0 - 70.0 * 10.0) * 1e3 / 10);
  ASSERT_TRUE(column->mj_per_call.has_value());
  EXPECT_DOUBLE_EQ(*column->mj_per_call, 40000.0 - 100.0);
  EXPECT_DOUBLE_EQ(column->gross_mj_per_call, 110000.0);
  EXPECT_DOUBLE_EQ(column->idle_w, 70.0);
  EXPECT_DOUBLE_EQ(column->active_w, 110.0);
  EXPECT_DOUBLE_EQ(column->ms_median, 44.5);
  EXPECT_EQ(column->calls, 10);
  EXPECT_EQ(column->control_calls, 200);
  EXPECT_EQ(column->correct, 98450);
  EXPECT_EQ(column->total, 100000);
  EXPECT_EQ(column->band, nullptr);  // no L40S band in mnist-a100/1.2.0
  EXPECT_TRUE(column->problems.empty());

  const ReferenceReading reading = ReadReference(Known()[1], Known()[0], Known()[2]);
  EXPECT_EQ(reading.j_per_tflop, column->j_per_tflop);
  EXPECT_EQ(reading.tflops_per_s, column->tflops_per_s);
}

// Each reason not to trust the column, alone, in the seed's words; the column is then empty.
TEST(EnergyColumnTest, EachBadCaseIsItsProblem) {
  struct Case {
    const char* what;
    std::function<void(std::vector<EnergyWindow>&)> change;
    std::string device;
    double timed_ms;
    int64_t band_bp;
    std::string problem;
  };
  const std::vector<Case> cases = {
      {"counter backwards", [](auto& w) { w[4].joules = -0.001; }, "NVIDIA L40S", 44.0, 540,
       "the board's energy counter went backwards"},
      {"busy idle window", [](auto& w) { w[6].utilization_max = 1; }, "NVIDIA L40S", 44.0, 540,
       "the GPU was busy in an idle window, with the method's processes frozen"},
      {"another context", [](auto& w) { w[2].contexts = 3; }, "NVIDIA L40S", 44.0, 540,
       "another process held a CUDA context on the GPU"},
      {"implausible reference", [](auto&) {}, "NVIDIA A100-SXM4-40GB", 44.0, 540,
       "the board's power telemetry is implausible: the reference read 353.90 J/TFLOP above idle "
       "at 0.5 TFLOP/s, where a healthy NVIDIA A100-SXM4-40GB reads 6-11 J/TFLOP at 15-23 "
       "TFLOP/s"},
      {"a draw below the floor", [](auto& w) { w[5].correct[3] = 9309; }, "NVIDIA L40S", 44.0, 540,
       "a draw in the energy window scored 9,309/10,000; no timed MNIST draw may fall below "
       "9,310"},
      {"dispersion", [](auto&) {}, "NVIDIA L40S", 21.0, 540,
       "calls in the energy window took 44.500 ms (median) against 21.000 ms in the timed calls; "
       "every call must do the same work"},
      {"no energy above idle", [](auto& w) { w[5].joules = 700.0 + 0.13; }, "NVIDIA L40S", 44.0,
       540, "the method's window read no energy above idle"},
  };
  for (const Case& c : cases) {
    std::vector<EnergyWindow> windows = Known();
    c.change(windows);
    Result<EnergyColumn> column =
        RecomputeEnergy(windows, c.device, c.timed_ms, c.band_bp, Rules());
    ASSERT_TRUE(column.ok()) << c.what;
    EXPECT_EQ(column->problems, std::vector<std::string>{c.problem}) << c.what;
    EXPECT_FALSE(column->mj_per_call.has_value()) << c.what;
  }
}

EnergyWindow FromJson(const Json& w) {
  EnergyWindow window = Window(w["name"], w["seconds"], w["joules"]);
  if (IsIdleWindow(window.name)) {
    window.utilization_max = w["utilization_max"];
    window.contexts =
        w["contexts"].is_null() ? std::nullopt : std::optional<int64_t>(w["contexts"]);
  } else if (window.name == "reference") {
    window.matmuls = w["matmuls"];
    window.dim = w["dim"];
    window.exact = w["exact"];
  } else {
    window.calls = w["calls"];
    if (window.name == "method") {
      window.ms = w["ms"].get<std::vector<double>>();
      window.correct = w["correct"].get<std::vector<int64_t>>();
    }
  }
  return window;
}

// The seed scorer's published columns: from their windows alone, the writer gives back every
// field of the record, to the bit.
TEST(EnergyColumnTest, ThePublishedColumnsAreWrittenAgainFromTheirWindows) {
  for (const char* relative : {kStanding, kStandingOtherBoard}) {
    const Json record = CorpusJson(relative)["record"];
    ASSERT_TRUE(record.is_object()) << relative;
    const Json& published = record["energy"];
    std::vector<EnergyWindow> windows;
    for (const Json& w : published["windows"]) windows.push_back(FromJson(w));
    Result<EnergyColumn> column = RecomputeEnergy(windows, published["device"]["name"],
                                                  published["timed_mnist_ms_median"].get<double>(),
                                                  record["band_bp"].get<int64_t>(), Rules());
    ASSERT_TRUE(column.ok()) << column.status().message();
    const Json written = EnergyColumnJson(*column, windows, published["device"], Json::object());
    for (auto it = published.begin(); it != published.end(); ++it) {
      EXPECT_EQ(written.value(it.key(), Json("(absent)")), it.value())
          << relative << ": " << it.key();
    }
    EXPECT_EQ(written.size(), published.size()) << relative;
  }
}

// What the writer writes is what the audit reads: a column written from windows audits clean.
TEST(EnergyColumnTest, TheAuditAcceptsWhatTheWriterWrites) {
  const std::vector<EnergyWindow> windows = Known();
  Result<EnergyColumn> column = RecomputeEnergy(windows, "NVIDIA L40S", 44.0, 540, Rules());
  ASSERT_TRUE(column.ok());
  const Json device = {{"name", "NVIDIA L40S"},
                       {"uuid", "GPU-1"},
                       {"vbios", nullptr},
                       {"driver", "570.1"},
                       {"power_limit_w", 700.0}};
  const Json written =
      EnergyColumnJson(*column, windows, device, Json{{"draws", {{"method", {{"draws", 3}}}}}});
  EXPECT_TRUE(AllFinite(written));
  // A rule set whose windows are as short as these.
  Json lenient = Rules().document;
  lenient["energy"]["energy_window_s"] = 1.0;
  lenient["energy"]["control_window_s"] = 1.0;
  lenient["energy"]["reference_s"] = 1.0;
  lenient["energy"]["reference_dim"] = 1024;
  Result<RuleSet> rules = ParseRuleSet(lenient.dump(), "lenient rules");
  ASSERT_TRUE(rules.ok()) << rules.status().message();
  AuditResult result;
  FieldReader reader("energy.json", &result);
  std::optional<EnergyColumn> audited = AuditEnergy(written, "", reader, 44.0, 540, *rules);
  EXPECT_TRUE(audited.has_value());
  for (const AuditFinding& f : result.findings) {
    EXPECT_NE(f.kind, AuditFinding::Kind::kBreaks) << f.where << ": " << f.message;
  }
}

TEST(EnergyColumnTest, NotMeasuredIsANullFigureAndAReason) {
  EXPECT_EQ(EnergyNotMeasuredJson("no NVML here"),
            (Json{{"mj_per_call", nullptr}, {"reason", "no NVML here"}}));
  EXPECT_FALSE(AllFinite(Json{{"a", {1.0, std::numeric_limits<double>::infinity()}}}));
  EXPECT_TRUE(AllFinite(Json{{"a", {1.0, 2}}, {"b", nullptr}}));
}

}  // namespace
}  // namespace ratchet
