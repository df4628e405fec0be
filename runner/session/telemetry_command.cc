// `ratchet-scorer telemetry` (what `ratchet telemetry` runs; its options are described there): the
// energy column's telemetry reference alone, in fresh sandboxed workers
// that run no submission, so that a maintainer can see what a board reads on it. A reference band
// for a new board goes into a rule set only from readings like these (docs/energy.md).
#include <memory>
#include <optional>
#include <ostream>
#include <string>
#include <vector>

#include "core/args.h"
#include "core/exit_codes.h"
#include "core/file.h"
#include "core/fresh_directory.h"
#include "energy/board.h"
#include "energy/telemetry.h"
#include "evidence/layout.h"
#include "rules/pyformat.h"
#include "rules/rule_set.h"
#include "sandbox/lock.h"
#include "sandbox/policy.h"
#include "sandbox/reap.h"
#include "sandbox/spawn.h"
#include "session/interrupt.h"
#include "session/scorer_commands.h"

namespace ratchet {

namespace {

std::string IdleWatts(const TelemetryRun& run) {
  const EnergyWindow& before = run.windows[0];
  const EnergyWindow& after = run.windows[2];
  return FormatFixed((before.joules / before.seconds + after.joules / after.seconds) / 2, 1);
}

int Run(const std::vector<std::string>& argv, std::ostream& print, std::ostream& warn) {
  // Before the --out folder begins: a signal from now on removes it instead of leaving it partial.
  InstallInterruptHandlers();
  auto fail = [&](const Status& status) { return ReportError(warn, "telemetry", status); };
  auto interrupted = [&] {
    warn << "ratchet telemetry: interrupted; nothing was written\n";
    return kExitInterrupted;
  };
  Result<Args> args =
      Args::Parse(argv, {{"runs", true}, {"out", true}, {"python", true}, {"rules", true}});
  if (!args.ok()) return fail(args.status());
  if (!args->positional().empty()) {
    return fail(Status::Usage("unexpected argument '" + args->positional().front() + "'"));
  }
  Result<int64_t> runs = ParseCount("runs", args->Get("runs").value_or("5"), 1, 100);
  if (!runs.ok()) return fail(runs.status());
  Result<RuleSet> rules = LoadRuleSet(args->Get("rules"));
  if (!rules.ok()) return fail(rules.status());
  if (args->Has("out") && PathExists(*args->Get("out"))) {
    return fail(Status::Usage("--out " + *args->Get("out") + " exists; name a new folder"));
  }

  // The driver first: a machine without a GPU says so before any worker starts.
  Result<std::unique_ptr<BoardDriver>> driver = OpenNvml();
  if (!driver.ok()) {
    return fail(Status::Unavailable(driver.status().message() +
                                    "; the telemetry reference reads an NVIDIA GPU's energy "
                                    "counter, so it needs one and its driver"));
  }
  Result<WorkerLaunch> launch = TelemetryLaunch(*rules, args->Get("python"));
  if (!launch.ok()) return fail(launch.status());
  std::optional<SandboxLock> lock;
  if (DescribeSandbox().full) {
    Result<SandboxLock> held = SandboxLock::AcquireSlot("telemetry", warn, InterruptFlag());
    if (!held.ok()) return Interrupted() ? interrupted() : fail(held.status());
    lock.emplace(std::move(*held));
    Status reaped = ReapWorkerUids();
    if (!reaped.ok()) return fail(reaped);
  }
  std::optional<FreshDirectory> out;
  if (args->Has("out")) {
    Result<FreshDirectory> begun = FreshDirectory::Begin(*args->Get("out"));
    if (!begun.ok()) return fail(begun.status());
    out.emplace(std::move(*begun));
  }

  print << "telemetry reference: " << *runs << " fresh worker(s), each idle "
        << FormatGeneral(rules->energy.idle_s) << " s (frozen), "
        << FormatGeneral(rules->energy.reference_s) << " s of " << rules->energy.reference_dim
        << "x" << rules->energy.reference_dim << " FP32 matmuls, idle again\n";
  print.flush();
  std::vector<TelemetryRun> measured;
  bool problems = false;
  for (int64_t k = 1; k <= *runs; ++k) {
    Result<TelemetryRun> run = MeasureTelemetryRun(*launch, *rules, **driver, InterruptFlag());
    if (Interrupted()) {
      if (out) out->Abandon();
      return interrupted();
    }
    if (!run.ok()) {
      if (out) out->Abandon();
      return fail(run.status().Annotate("run " + std::to_string(k)));
    }
    if (k == 1) {
      const Json name = run->device.value("name", Json());
      print << "  " << (name.is_string() ? name.get<std::string>() : "the GPU") << "\n";
    }
    print << "run " << k << "/" << *runs << ": " << FormatFixed(run->reading.tflops_per_s, 1)
          << " TFLOP/s at " << FormatFixed(run->reading.j_per_tflop, 2)
          << " J/TFLOP above idle (idle " << IdleWatts(*run) << " W)\n";
    for (const std::string& problem : run->problems) print << "  problem: " << problem << "\n";
    print.flush();
    problems = problems || !run->problems.empty();
    measured.push_back(std::move(run).value());
  }

  const TelemetrySpread spread = SpreadOf(measured);
  if (spread.runs == 0) {
    print << "no run read without a problem: no figures to give\n";
  } else {
    print << "over " << spread.runs << " run(s) without a problem (min / median / max):\n"
          << "  " << FormatFixed(spread.tflops_min, 1) << " / "
          << FormatFixed(spread.tflops_median, 1) << " / " << FormatFixed(spread.tflops_max, 1)
          << " TFLOP/s\n"
          << "  " << FormatFixed(spread.j_min, 2) << " / " << FormatFixed(spread.j_median, 2)
          << " / " << FormatFixed(spread.j_max, 2) << " J/TFLOP above idle\n";
  }
  const Json name = measured.front().device.value("name", Json());
  const std::string device = name.is_string() ? name.get<std::string>() : "None";
  if (const ReferenceBand* band = rules->ReferenceBandFor(device)) {
    print << "the rule set " << rules->id << "'s band for " << band->boards() << ": "
          << FormatGeneral(band->j_per_tflop.low) << "-" << FormatGeneral(band->j_per_tflop.high)
          << " J/TFLOP at " << FormatGeneral(band->tflops_per_s.low) << "-"
          << FormatGeneral(band->tflops_per_s.high) << " TFLOP/s\n";
  } else {
    print << "the rule set " << rules->id << " has no band for " << device
          << ": a run's energy column on it is reported unchecked\n";
  }
  if (out) {
    Result<std::string> text = EvidenceJsonText(TelemetryJson(measured, *rules), "telemetry.json");
    Status written = text.ok() ? out->WriteFile("telemetry.json", *text) : text.status();
    if (written.ok()) written = out->Commit();
    if (!written.ok()) {
      out->Abandon();
      return fail(written);
    }
    print << "telemetry: " << out->final_path() << "/telemetry.json\n";
  }
  return problems ? kExitFinding : kExitSuccess;
}

}  // namespace

int RunScorerTelemetry(const std::vector<std::string>& argv, std::ostream& out, std::ostream& err) {
  return Run(argv, out, err);
}

}  // namespace ratchet
