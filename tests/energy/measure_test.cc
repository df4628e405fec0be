// The measurement itself, around the real CPU worker (ratchet-worker, the nearest class mean of
// tests/worker) under a rule set with windows of a fraction of a second and a small reference,
// with a fake board that records, at every read, whether the worker was stopped.
#include "energy/measure.h"

#include <dirent.h>
#include <gtest/gtest.h>
#include <unistd.h>

#include <chrono>
#include <fstream>
#include <sstream>
#include <thread>

#include "audit/energy_column.h"
#include "audit/result.h"
#include "core/file.h"
#include "data/locate.h"
#include "energy/energy_rules.h"
#include "evidence/fields.h"
#include "sandbox/lock.h"
#include "sandbox/spawn.h"
#include "support/checkout.h"
#include "support/temp_dir.h"

namespace ratchet {
namespace {

#ifdef RATCHET_TEST_NCM_LIBRARY
constexpr char kNcmLibrary[] = RATCHET_TEST_NCM_LIBRARY;
#else
constexpr char kNcmLibrary[] = "";
#endif

// This process's live children (the sandbox starts a worker as a direct child) and their states
// from /proc/<pid>/stat: 'T' is stopped.
std::vector<char> ChildStates() {
  std::vector<char> states;
  DIR* proc = opendir("/proc");
  if (proc == nullptr) return states;
  const pid_t self = getpid();
  while (dirent* entry = readdir(proc)) {
    const int pid = std::atoi(entry->d_name);
    if (pid <= 0) continue;
    std::ifstream file("/proc/" + std::to_string(pid) + "/stat");
    std::string text((std::istreambuf_iterator<char>(file)), std::istreambuf_iterator<char>());
    const size_t paren = text.rfind(')');
    if (paren == std::string::npos) continue;
    std::istringstream fields(text.substr(paren + 1));
    char state = '?';
    long parent = 0;
    fields >> state >> parent;
    if (parent == self && state != 'Z' && state != 'X') states.push_back(state);
  }
  closedir(proc);
  return states;
}

bool WorkerStopped() {
  const std::vector<char> states = ChildStates();
  return !states.empty() &&
         std::all_of(states.begin(), states.end(), [](char s) { return s == 'T'; });
}

struct Reading {
  std::string what;  // "energy", "utilization", "contexts"
  bool stopped;
};

enum class Counter { kHealthy, kBackwards, kFlat };

// A board whose counter moves at a set power per window (the edges of window k are its reads
// 2k and 2k + 1): 60 W idle, 300 W on the reference, 70 W for empty calls, 200 W for the method.
class FakeBoard : public Board {
 public:
  FakeBoard(Counter counter, int64_t utilization, std::optional<int64_t> contexts,
            std::vector<Reading>* log)
      : counter_(counter), utilization_(utilization), contexts_(contexts), log_(log) {}

  Result<uint64_t> EnergyMj() override {
    log_->push_back({"energy", WorkerStopped()});
    const auto now = std::chrono::steady_clock::now();
    static const double kWatts[] = {60, 300, 62, 70, 61, 200, 59};
    if (reads_ % 2 == 1) {
      const double seconds = std::chrono::duration<double>(now - last_).count();
      const double mj = kWatts[(reads_ / 2) % 7] * seconds * 1e3;
      if (counter_ == Counter::kHealthy) mj_ += static_cast<uint64_t>(mj);
      if (counter_ == Counter::kBackwards) mj_ -= static_cast<uint64_t>(mj);
    }
    ++reads_;
    last_ = now;
    return mj_;
  }
  Result<int64_t> Utilization() override {
    log_->push_back({"utilization", WorkerStopped()});
    return utilization_;
  }
  std::optional<int64_t> Contexts() override {
    log_->push_back({"contexts", WorkerStopped()});
    return contexts_;
  }
  Json Describe() override {
    return {{"name", "Fake GPU"},
            {"uuid", nullptr},
            {"vbios", nullptr},
            {"driver", nullptr},
            {"power_limit_w", nullptr}};
  }

 private:
  Counter counter_;
  int64_t utilization_;
  std::optional<int64_t> contexts_;
  std::vector<Reading>* log_;
  uint64_t mj_ = 1000000000000ull;
  int reads_ = 0;
  std::chrono::steady_clock::time_point last_;
};

class FakeDriver : public BoardDriver {
 public:
  FakeDriver(Counter counter, int64_t utilization, std::optional<int64_t> contexts,
             std::vector<Reading>* log, std::vector<std::optional<std::string>>* selected)
      : counter_(counter),
        utilization_(utilization),
        contexts_(contexts),
        log_(log),
        selected_(selected) {}
  Result<std::unique_ptr<Board>> Select(const std::optional<std::string>& uuid) override {
    selected_->push_back(uuid);
    return std::unique_ptr<Board>(new FakeBoard(counter_, utilization_, contexts_, log_));
  }

 private:
  Counter counter_;
  int64_t utilization_;
  std::optional<int64_t> contexts_;
  std::vector<Reading>* log_;
  std::vector<std::optional<std::string>>* selected_;
};

RuleSet EnergyRules(double factor, bool fake_band) {
  Result<RuleSet> parsed =
      ParseRuleSet(EnergyRulesJson(factor, fake_band ? "Fake GPU" : "").dump(), "energy rules");
  EXPECT_TRUE(parsed.ok()) << parsed.status().message();
  return parsed.ok() ? *parsed : RuleSet{};
}

class EnergyMeasureTest : public ::testing::Test {
 protected:
  void SetUp() override {
    if (std::string(kNcmLibrary).empty()) GTEST_SKIP() << "no ratchet-worker (libtorch absent)";
    Result<DataSearch> search = MakeDataSearch(SourceDir() + "/data");
    ASSERT_TRUE(search.ok()) << search.status().message();
    Result<std::vector<LocatedDataset>> located = LocateDatasets(*search);
    ASSERT_TRUE(located.ok()) << located.status().message();
    datasets_ = *located;
    bool mnist = false;
    for (const LocatedDataset& d : datasets_) {
      if (d.name == "mnist") mnist = d.present;
      if (d.name != "mnist" && d.present && warmup_.empty()) warmup_ = d.name;
    }
    if (!mnist || warmup_.empty()) GTEST_SKIP() << "mnist or a foreign dataset is absent";
    // Like every ratchet that starts sandboxed workers as root: one at a time on the machine,
    // since each kills and stops every process of the sandbox user.
    if (DescribeSandbox().full) {
      Result<SandboxLock> held = SandboxLock::Acquire(/*wait=*/true);
      ASSERT_TRUE(held.ok()) << held.status().message();
      lock_.emplace(std::move(*held));
    }
  }

  EnergyInputs Inputs(const RuleSet& rules, double timed_ms, int64_t band_bp) {
    EnergyInputs inputs;
    inputs.submission.native = true;
    inputs.submission.library = kNcmLibrary;
    inputs.submission.path = "ncm.cpp";
    inputs.submission.function = "method";
    inputs.rules = &rules;
    inputs.seed.bytes.fill(3);
    inputs.datasets = datasets_;
    inputs.warmup_dataset = warmup_;
    inputs.timed_mnist_ms_median = timed_ms;
    inputs.band_bp = band_bp;
    return inputs;
  }

  EnergyOutcome Measure(const EnergyInputs& inputs, Counter counter, int64_t utilization = 0,
                        std::optional<int64_t> contexts = 1) {
    return MeasureEnergyColumn(inputs, [&]() -> Result<std::unique_ptr<BoardDriver>> {
      return std::unique_ptr<BoardDriver>(
          new FakeDriver(counter, utilization, contexts, &log_, &selected_));
    });
  }

  std::optional<SandboxLock> lock_;
  std::vector<LocatedDataset> datasets_;
  std::string warmup_;
  std::vector<Reading> log_;
  std::vector<std::optional<std::string>> selected_;
};

TEST_F(EnergyMeasureTest, SevenWindowsInOrderTheWorkerFrozenInEachIdleOne) {
  const RuleSet rules = EnergyRules(1000.0, false);
  const EnergyOutcome outcome = Measure(Inputs(rules, 10.0, 5000), Counter::kHealthy);
  ASSERT_TRUE(outcome.column.has_value()) << outcome.reason;
  EXPECT_TRUE(outcome.column->problems.empty())
      << (outcome.column->problems.empty() ? "" : outcome.column->problems[0]);
  ASSERT_TRUE(outcome.column->mj_per_call.has_value());
  EXPECT_GT(*outcome.column->mj_per_call, 0.0);

  std::vector<std::string> names;
  for (const EnergyWindow& w : outcome.windows) names.push_back(w.name);
  EXPECT_EQ(names, EnergyWindowOrder());

  // The counter at both edges of every window: stopped exactly at the idle windows' edges.
  std::vector<bool> energy_stopped;
  size_t samples = 0, contexts = 0;
  for (const Reading& r : log_) {
    if (r.what == "energy") energy_stopped.push_back(r.stopped);
    if (r.what == "utilization") {
      ++samples;
      EXPECT_TRUE(r.stopped) << "a utilization sample with the worker running";
    }
    if (r.what == "contexts") {
      ++contexts;
      EXPECT_TRUE(r.stopped) << "contexts read with the worker running";
    }
  }
  EXPECT_EQ(energy_stopped, (std::vector<bool>{true, true, false, false, true, true, false, false,
                                               true, true, false, false, true, true}));
  EXPECT_GE(samples, 4u * 4);  // 0.25 s sampled every 0.05 s, in four idle windows
  EXPECT_EQ(contexts, 4u);
  // The board chosen by the worker's uuid: null on the CPU.
  EXPECT_EQ(selected_, std::vector<std::optional<std::string>>{std::nullopt});
  // Closed: no worker is left, stopped or running.
  EXPECT_TRUE(ChildStates().empty());

  // Every method call scored against its draw: the two fresh draws, then rereleases of them
  // (a wrong label map would score about one in ten).
  const EnergyWindow& method = outcome.windows[5];
  EXPECT_GT(method.calls, rules.energy.energy_draws);
  ASSERT_EQ(method.correct.size(), static_cast<size_t>(method.calls));
  ASSERT_EQ(method.ms.size(), static_cast<size_t>(method.calls));
  for (int64_t correct : method.correct) EXPECT_GT(correct, 6000);
  EXPECT_GE(outcome.windows[3].calls, rules.energy.energy_min_calls);
  EXPECT_GE(outcome.windows[5].seconds, rules.energy.energy_window_s);
  EXPECT_EQ(outcome.windows[1].dim, 64);
  EXPECT_TRUE(outcome.windows[1].exact);
  EXPECT_GT(outcome.windows[1].matmuls, 0);

  // energy.json: the draws it used, by index, and what the audit accepts.
  EXPECT_EQ(outcome.evidence["draws"],
            (Json{{"warmup", {{"dataset", warmup_}, {"draw_index", kEnergyWarmupDraw}}},
                  {"method",
                   {{"dataset", "mnist"}, {"first_draw_index", kEnergyDrawBase}, {"draws", 2}}}}));
  EXPECT_EQ(outcome.evidence["device"]["name"], "Fake GPU");
  AuditResult result;
  FieldReader reader("energy.json", &result);
  EXPECT_TRUE(AuditEnergy(outcome.evidence, "", reader, 10.0, 5000, rules).has_value());
  for (const AuditFinding& f : result.findings) {
    EXPECT_NE(f.kind, AuditFinding::Kind::kBreaks) << f.where << ": " << f.message;
  }
  EXPECT_FALSE(outcome.ReportJson().contains("windows"));
  EXPECT_EQ(outcome.ReportJson()["mj_per_call"], outcome.evidence["mj_per_call"]);

  const std::vector<std::string> lines = EnergyLines(outcome);
  ASSERT_EQ(lines.size(), 4u);
  EXPECT_NE(lines[0].find("Fake GPU: idle "), std::string::npos) << lines[0];
  EXPECT_NE(lines[0].find("(unchecked on this GPU)"), std::string::npos) << lines[0];
  EXPECT_NE(lines[1].find("the round trip alone: "), std::string::npos) << lines[1];
  EXPECT_NE(lines[2].find("the method: "), std::string::npos) << lines[2];
  EXPECT_EQ(lines[3].rfind("energy ", 0), 0u);
  EXPECT_NE(lines[3].find(" mJ per call above idle"), std::string::npos) << lines[3];
}

// A board that reads backwards, is busy and shared while the method is frozen, and is outside
// its band; a band the method misses in the window, at another pace than its timed calls.
TEST_F(EnergyMeasureTest, EveryReasonNotToTrustTheWindowsIsAProblem) {
  const RuleSet rules = EnergyRules(2.0, true);
  const EnergyOutcome outcome = Measure(Inputs(rules, 1e6, 100), Counter::kBackwards, 7, 2);
  ASSERT_TRUE(outcome.column.has_value()) << outcome.reason;
  EXPECT_FALSE(outcome.column->mj_per_call.has_value());
  EXPECT_TRUE(outcome.evidence["mj_per_call"].is_null());
  const std::vector<std::string> expected = {
      "the board's energy counter went backwards",
      "the board's power telemetry is implausible: the reference read ",
      "the GPU was busy in an idle window, with the method's processes frozen",
      "another process held a CUDA context on the GPU",
      "a draw in the energy window scored ",
      "calls in the energy window took "};
  const std::vector<std::string>& problems = outcome.column->problems;
  size_t at = 0;
  for (const std::string& start : expected) {
    while (at < problems.size() && problems[at].rfind(start, 0) != 0) ++at;
    EXPECT_LT(at, problems.size()) << "missing, or out of order: " << start;
  }
  const std::vector<std::string> lines = EnergyLines(outcome);
  EXPECT_NE(std::find(lines.begin(), lines.end(),
                      "energy not measured: another process held a CUDA context on the GPU"),
            lines.end());
  EXPECT_EQ(lines.back().rfind("energy not measured: ", 0), 0u);
  EXPECT_TRUE(ChildStates().empty());
}

TEST_F(EnergyMeasureTest, ACounterThatDoesNotMoveReadsNoEnergyAboveIdle) {
  const RuleSet rules = EnergyRules(1000.0, false);
  const EnergyOutcome outcome = Measure(Inputs(rules, 10.0, 5000), Counter::kFlat);
  ASSERT_TRUE(outcome.column.has_value()) << outcome.reason;
  EXPECT_EQ(outcome.column->problems,
            std::vector<std::string>{"the method's window read no energy above idle"});
}

TEST_F(EnergyMeasureTest, NoDriverIsAColumnNotMeasuredBeforeAnyWorker) {
  const RuleSet rules = EnergyRules(1000.0, false);
  const EnergyOutcome outcome =
      MeasureEnergyColumn(Inputs(rules, 10.0, 5000), []() -> Result<std::unique_ptr<BoardDriver>> {
        return Status::Unavailable("no NVIDIA driver: libnvidia-ml.so.1: cannot open it");
      });
  EXPECT_FALSE(outcome.column.has_value());
  EXPECT_FALSE(outcome.interrupted);
  EXPECT_EQ(outcome.evidence,
            (Json{{"mj_per_call", nullptr},
                  {"reason", "no NVIDIA driver: libnvidia-ml.so.1: cannot open it"}}));
  EXPECT_TRUE(outcome.windows.empty());
  EXPECT_EQ(EnergyLines(outcome),
            std::vector<std::string>{"energy not measured: no NVIDIA driver: libnvidia-ml.so.1: "
                                     "cannot open it"});
}

// A method that cannot be imported in the energy worker: the windows before it are kept, the
// worker is thawed and closed, and the column says why it is empty.
TEST_F(EnergyMeasureTest, AWorkerThatFailsLeavesTheColumnEmptyWithItsReason) {
  const RuleSet rules = EnergyRules(1000.0, false);
  TempDir dir;
  ASSERT_TRUE(WriteFileAtomic(dir / "broken.so", "not a shared object").ok());
  EnergyInputs inputs = Inputs(rules, 10.0, 5000);
  inputs.submission.library = dir / "broken.so";
  const EnergyOutcome outcome = Measure(inputs, Counter::kHealthy);
  EXPECT_FALSE(outcome.column.has_value());
  EXPECT_EQ(outcome.reason.rfind("importing the method file failed", 0), 0u) << outcome.reason;
  EXPECT_TRUE(outcome.evidence["mj_per_call"].is_null());
  EXPECT_EQ(outcome.evidence["reason"], outcome.reason);
  ASSERT_EQ(outcome.windows.size(), 4u);
  EXPECT_EQ(outcome.windows[3].name, "control");
  EXPECT_TRUE(ChildStates().empty());
}

TEST_F(EnergyMeasureTest, ASignalStopsTheMeasurementAndTheWorkerGoes) {
  const RuleSet rules = EnergyRules(1000.0, false);
  std::atomic<bool> interrupted{false};
  EnergyInputs inputs = Inputs(rules, 10.0, 5000);
  inputs.interrupted = &interrupted;
  std::thread signal([&] {
    std::this_thread::sleep_for(std::chrono::milliseconds(1500));
    interrupted.store(true);
  });
  const auto start = std::chrono::steady_clock::now();
  const EnergyOutcome outcome = Measure(inputs, Counter::kHealthy);
  signal.join();
  EXPECT_TRUE(outcome.interrupted) << outcome.reason;
  EXPECT_FALSE(outcome.column.has_value());
  EXPECT_LT(std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count(), 30.0);
  EXPECT_TRUE(ChildStates().empty());
}

}  // namespace
}  // namespace ratchet
