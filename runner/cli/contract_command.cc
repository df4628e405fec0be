// `ratchet contract`: the run contract of this machine, as a listing or as JSON. The contract is
// the scorer's (its source hash, its binaries), so ratchet-scorer prints it
// (session/contract_command.cc), with this process's terminal; the tool adds its own identity,
// recorded as observed.
#include <string>
#include <vector>

#include "cli/commands.h"
#include "cli/scorer_client.h"
#include "cli/tool_sha256.h"
#include "core/version.h"

namespace ratchet {

const char kContractUsage[] =
    "usage: ratchet contract [--json] [--data DIR] [--rules ID|FILE] [--python PATH]\n"
    "\n"
    "Prints the run contract of this machine: what a run here is bound to (the scorer, the rule\n"
    "set, the worker files, the datasets, the sandbox policy; a baseline's must be equal)\n"
    "and the lane it runs on (the binaries, the toolchains, libtorch and Python, the loaded\n"
    "libraries, the device). docs/contract.md describes every field.\n"
    "\n"
    "options:\n"
    "  --json           print the contract as JSON (2-space indent, keys sorted)\n"
    "  --data DIR       look for the datasets in DIR first, then in $RATCHET_DATA and the\n"
    "                   packages' standard places\n"
    "  --rules ID|FILE  the rule set to lock: the id of one compiled in,\n"
    "                   mnist-a100/1.5.0 (the default: the reference scorer's rules plus a\n"
    "                   telemetry band for the board named NVIDIA H200 and the sandbox's limits\n"
    "                   written out), mnist-a100/1.4.0 (the same with the limits unwritten, at\n"
    "                   those values), mnist-a100/1.3.0 (that band for every name starting so)\n"
    "                   or mnist-a100/1.2.0 (the reference scorer's own), or a rule-set file\n"
    "                   (docs/rules.md)\n"
    "  --python PATH    the interpreter of Python submissions, whose versions the lane records\n"
    "                   (default: $RATCHET_PYTHON, else the first python3 on PATH that has\n"
    "                   torch, else none: recorded as null)\n"
    "\n"
    "exit codes: 0 printed; 2 bad usage, a --rules that is neither a compiled-in id nor a file,\n"
    "a --rules file over 1 MiB, one that does not parse or names a dataset ratchet does not\n"
    "know, a --data folder that does not exist, a dataset file with the wrong hash, a --python\n"
    "or $RATCHET_PYTHON interpreter that has no torch;\n"
    "3 a fact of this machine could not be read.\n";

int RunContract(CommandContext& context) {
  return RunScorerCommand(
      "contract", context.argv,
      {"--tool-version", kRatchetVersion, "--tool-source-sha256", ToolSourceSha256()}, context);
}

}  // namespace ratchet
