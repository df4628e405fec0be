// `ratchet telemetry`: the energy column's telemetry reference alone, in fresh sandboxed workers
// that run no submission, so that a maintainer can see what a board reads on it. A reference band
// for a new board goes into a rule set only from readings like these (docs/energy.md).
#include <signal.h>

#include <atomic>
#include <memory>
#include <optional>
#include <ostream>
#include <string>
#include <vector>

#include "core/args.h"
#include "cli/commands.h"
#include "core/exit_codes.h"
#include "cli/score_args.h"
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

namespace ratchet {

const char kTelemetryUsage[] =
    "usage: ratchet telemetry [--runs N] [--out DIR] [--python PATH] [--rules ID|FILE]\n"
    "\n"
    "Measures what this machine's GPU reads on the energy column's telemetry reference, as a\n"
    "run measures it before the method is imported: in each of N fresh sandboxed workers that\n"
    "run no submission, an idle window with the worker frozen, FP32 matmuls of the rule set's\n"
    "reference_dim for reference_s, and another idle window, the board's NVML energy counter\n"
    "read at every window's edges. Prints per run the throughput and the joules above idle per\n"
    "10^12 FLOPs, then their min, median and max over the runs without a problem, and the rule\n"
    "set's band for the board if it has one. A band for a new board is added to a new rule-set\n"
    "version from readings like these (docs/energy.md). Needs an NVIDIA GPU and its driver.\n"
    "\n"
    "  --runs N         how many workers, one after another (default 5; 1-100)\n"
    "  --out DIR        also write DIR/telemetry.json with every window; DIR must not exist\n"
    "  --python PATH    the interpreter for worker.py when build/ratchet-worker is not built\n"
    "                   (default: $RATCHET_PYTHON, else the first python3 on PATH that has\n"
    "                   torch)\n"
    "  --rules ID|FILE  the rule set whose reference and band apply: the id of one compiled in,\n"
    "                   mnist-a100/1.5.0 (the default: the reference scorer's rules plus a\n"
    "                   telemetry band for the board named NVIDIA H200 and the sandbox's limits\n"
    "                   written out), mnist-a100/1.4.0 (the same with the limits unwritten, at\n"
    "                   those values), mnist-a100/1.3.0 (that band for every name starting so)\n"
    "                   or mnist-a100/1.2.0 (the reference scorer's own, with an NVIDIA A100\n"
    "                   band only), or a rule-set file (docs/rules.md)\n"
    "\n"
    "exit codes: 0 every run read without a problem; 1 a run showed a problem (a counter that\n"
    "            went backwards, a busy idle window, another process on the GPU, a wrong product,\n"
    "            a reading outside the board's band); 2 bad usage; 3 no GPU or NVML, or a worker\n"
    "            that could not run the reference; 130 interrupted\n";

namespace {

std::atomic<bool> g_telemetry_interrupted{false};

void OnTelemetrySignal(int) { g_telemetry_interrupted.store(true); }

std::string IdleWatts(const TelemetryRun& run) {
  const EnergyWindow& before = run.windows[0];
  const EnergyWindow& after = run.windows[2];
  return FormatFixed((before.joules / before.seconds + after.joules / after.seconds) / 2, 1);
}

int Run(CommandContext& context) {
  auto fail = [&](const Status& status) { return ReportError(context.err, "telemetry", status); };
  Result<Args> args =
      Args::Parse(context.argv, {{"runs", true}, {"out", true}, {"python", true}, {"rules", true}});
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
    Result<SandboxLock> held = SandboxLock::Acquire(/*wait=*/false);
    if (!held.ok()) {
      context.err << "ratchet telemetry: " << held.status().message() << "; waiting for it\n";
      held = SandboxLock::Acquire(/*wait=*/true);
    }
    if (!held.ok()) return fail(held.status());
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

  g_telemetry_interrupted.store(false);
  struct sigaction action = {};
  action.sa_handler = OnTelemetrySignal;
  sigaction(SIGINT, &action, nullptr);
  sigaction(SIGTERM, &action, nullptr);

  context.out << "telemetry reference: " << *runs << " fresh worker(s), each idle "
              << FormatGeneral(rules->energy.idle_s) << " s (frozen), "
              << FormatGeneral(rules->energy.reference_s) << " s of " << rules->energy.reference_dim
              << "x" << rules->energy.reference_dim << " FP32 matmuls, idle again\n";
  context.out.flush();
  std::vector<TelemetryRun> measured;
  bool problems = false;
  for (int64_t k = 1; k <= *runs; ++k) {
    Result<TelemetryRun> run =
        MeasureTelemetryRun(*launch, *rules, **driver, &g_telemetry_interrupted);
    if (g_telemetry_interrupted.load()) {
      if (out) out->Abandon();
      context.err << "ratchet telemetry: interrupted; nothing was written\n";
      return kExitInterrupted;
    }
    if (!run.ok()) {
      if (out) out->Abandon();
      return fail(run.status().Annotate("run " + std::to_string(k)));
    }
    if (k == 1) {
      const Json name = run->device.value("name", Json());
      context.out << "  " << (name.is_string() ? name.get<std::string>() : "the GPU") << "\n";
    }
    context.out << "run " << k << "/" << *runs << ": " << FormatFixed(run->reading.tflops_per_s, 1)
                << " TFLOP/s at " << FormatFixed(run->reading.j_per_tflop, 2)
                << " J/TFLOP above idle (idle " << IdleWatts(*run) << " W)\n";
    for (const std::string& problem : run->problems)
      context.out << "  problem: " << problem << "\n";
    context.out.flush();
    problems = problems || !run->problems.empty();
    measured.push_back(std::move(run).value());
  }

  const TelemetrySpread spread = SpreadOf(measured);
  if (spread.runs == 0) {
    context.out << "no run read without a problem: no figures to give\n";
  } else {
    context.out << "over " << spread.runs << " run(s) without a problem (min / median / max):\n"
                << "  " << FormatFixed(spread.tflops_min, 1) << " / "
                << FormatFixed(spread.tflops_median, 1) << " / "
                << FormatFixed(spread.tflops_max, 1) << " TFLOP/s\n"
                << "  " << FormatFixed(spread.j_min, 2) << " / " << FormatFixed(spread.j_median, 2)
                << " / " << FormatFixed(spread.j_max, 2) << " J/TFLOP above idle\n";
  }
  const Json name = measured.front().device.value("name", Json());
  const std::string device = name.is_string() ? name.get<std::string>() : "None";
  if (const ReferenceBand* band = rules->ReferenceBandFor(device)) {
    context.out << "the rule set " << rules->id << "'s band for " << band->boards() << ": "
                << FormatGeneral(band->j_per_tflop.low) << "-"
                << FormatGeneral(band->j_per_tflop.high) << " J/TFLOP at "
                << FormatGeneral(band->tflops_per_s.low) << "-"
                << FormatGeneral(band->tflops_per_s.high) << " TFLOP/s\n";
  } else {
    context.out << "the rule set " << rules->id << " has no band for " << device
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
    context.out << "telemetry: " << out->final_path() << "/telemetry.json\n";
  }
  return problems ? kExitFinding : kExitSuccess;
}

}  // namespace

int RunTelemetry(CommandContext& context) { return Run(context); }

}  // namespace ratchet
