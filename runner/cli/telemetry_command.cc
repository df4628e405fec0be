// `ratchet telemetry`: the energy column's telemetry reference alone, in fresh sandboxed workers
// that run no submission. The workers are the scorer's: ratchet-scorer measures it
// (session/telemetry_command.cc), with this process's terminal.
#include <string>
#include <vector>

#include "cli/commands.h"
#include "cli/scorer_client.h"

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

int RunTelemetry(CommandContext& context) {
  return RunScorerCommand("telemetry", context.argv, {}, context);
}

}  // namespace ratchet
