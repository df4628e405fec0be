// `ratchet contract`: the run contract of this machine, as a listing or as JSON.
#include <algorithm>
#include <ostream>
#include <string>

#include "cli/args.h"
#include "cli/commands.h"
#include "cli/exit_codes.h"
#include "contract/gather.h"
#include "contract/python.h"
#include "contract/source_sha256.h"
#include "core/status.h"

namespace ratchet {

const char kContractUsage[] =
    "usage: ratchet contract [--json] [--data DIR] [--rules ID|FILE] [--python PATH]\n"
    "\n"
    "Prints the run contract of this machine: what a run here is bound to (the harness, the\n"
    "rule set, the worker files, the datasets, the sandbox policy; a baseline's must be equal)\n"
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

namespace {

std::string Text(const Json& value) {
  if (value.is_string()) return value.get<std::string>();
  if (value.is_null()) return "unknown";
  return value.dump();
}

// Every value starts in this column, whatever its label's indent.
constexpr size_t kValueColumn = 16;

void Line(std::ostream& out, size_t indent, const std::string& label, const std::string& value) {
  out << std::string(indent, ' ') << label;
  if (!value.empty()) {
    const size_t used = indent + label.size();
    out << std::string(used < kValueColumn ? kValueColumn - used : 1, ' ') << value;
  }
  out << "\n";
}

std::string DeviceText(const Json& device) {
  if (device.value("kind", "") != "cuda") return Text(device["kind"]);
  std::string power =
      device["power_limit_w"].is_null() ? "unknown" : device["power_limit_w"].dump() + " W";
  auto count = [&](const char* key) {
    const Json& value = device.value(key, Json());
    return value.is_number_integer() ? value.dump() : std::string("unknown");
  };
  std::string l2 = device.value("l2_bytes", Json()).is_number_integer()
                       ? std::to_string(device["l2_bytes"].get<int64_t>() >> 20) + " MiB"
                       : "unknown";
  return "cuda " + Text(device["name"]) + ", driver " + Text(device["driver"]) + ", CUDA " +
         Text(device["cuda_driver"]) + ", VBIOS " + Text(device["vbios"]) + ", power limit " +
         power + ", L2 " + l2 + ", " + count("sm_count") + " SMs";
}

// The members of `table` as "    NAME VALUE" lines, the values in one column; `value` words each.
void Table(std::ostream& out, const Json& table, std::string (*value)(const Json&)) {
  size_t width = 0;
  for (auto it = table.begin(); it != table.end(); ++it) width = std::max(width, it.key().size());
  for (auto it = table.begin(); it != table.end(); ++it) {
    std::string name = it.key();
    name.resize(width, ' ');
    out << "    " << name << " " << value(it.value()) << "\n";
  }
}

std::string HashText(const Json& sha256) { return "sha256 " + Text(sha256); }

std::string WorkerText(const Json& sha256) {
  return sha256.is_null() ? "absent" : HashText(sha256);
}

void PrintListing(std::ostream& out, const Json& contract) {
  const Json& locked = contract["locked"];
  const Json& lane = contract["lane"];
  out << "contract " << Text(contract["schema"]) << "\n";
  out << "locked (a baseline's must be equal)\n";
  const Json& harness = locked["harness"];
  Line(out, 2, "harness", Text(harness["name"]) + " " + Text(harness["version"]));
  Line(out, 4, "sources",
       "sha256 " + Text(harness["source_sha256"]) + " (" +
           std::to_string(HarnessSourceFileCount()) + " files)");
  Line(out, 2, "rules", Text(locked["rules"]["id"]));
  Line(out, 4, "file", "sha256 " + Text(locked["rules"]["sha256"]));
  Line(out, 2, "workers", "");
  Table(out, locked["workers"], WorkerText);
  Line(out, 2, "datasets", "");
  for (auto it = locked["datasets"].begin(); it != locked["datasets"].end(); ++it) {
    if (it.value().is_null()) {
      Line(out, 4, it.key(), "absent");
      continue;
    }
    Line(out, 4, it.key(), "images sha256 " + Text(it.value()["images_sha256"]));
    Line(out, 4, "", "labels sha256 " + Text(it.value()["labels_sha256"]));
  }
  const Json& sandbox = locked["sandbox"];
  Line(out, 2, "sandbox", "uid " + Text(sandbox["uid"]));
  Line(out, 4, "policy", "sha256 " + Text(sandbox["policy_sha256"]));

  out << "lane " << Text(lane["id"]) << " (timings compare only within one lane)\n";
  for (auto it = lane["binaries"].begin(); it != lane["binaries"].end(); ++it) {
    Line(out, 2, "binary",
         it.key() + (it.value().is_null() ? " not built" : " sha256 " + Text(it.value())));
  }
  const Json& toolchain = lane["toolchain"];
  Line(out, 2, "compiler", Text(toolchain["cxx"]));
  Line(out, 2, "libtorch",
       toolchain["libtorch"].is_null() ? "none (no native worker description)"
                                       : Text(toolchain["libtorch"]));
  Line(out, 2, "python",
       toolchain["python"].is_null()
           ? "none (no interpreter that has torch)"
           : Text(toolchain["python"]) + ", torch " + Text(toolchain["python_torch"]));
  Line(out, 2, "glibc", Text(toolchain["glibc"]));
  Line(out, 2, "libraries", "");
  Table(out, toolchain["libraries"], HashText);
  Line(out, 2, "device", DeviceText(lane["device"]));

  out << "observed (recorded, never compared)\n";
  const Json& observed = contract["observed"];
  for (auto it = observed.begin(); it != observed.end(); ++it) {
    Line(out, 2, it.key(), Text(it.value()));
  }
}

}  // namespace

int RunContract(CommandContext& context) {
  Result<Args> args = Args::Parse(
      context.argv, {{"json", false}, {"data", true}, {"rules", true}, {"python", true}});
  if (!args.ok()) return ReportError(context.err, "contract", args.status());
  if (!args->positional().empty()) {
    return ReportError(context.err, "contract",
                       Status::Usage("unexpected argument " + args->positional().front()));
  }
  ContractOptions options;
  options.data_dir = args->Get("data");
  options.rules_path = args->Get("rules");
  // An interpreter the user named must have torch; none found on PATH is recorded as null.
  Result<std::optional<PythonFacts>> python = FindPythonIfAny(args->Get("python"));
  if (!python.ok()) return ReportError(context.err, "contract", python.status());
  options.python = *python;
  Result<Json> contract = GatherContract(options);
  if (!contract.ok()) return ReportError(context.err, "contract", contract.status());
  if (args->Has("json")) {
    // A path that is not UTF-8 has no JSON form: its bad bytes print as U+FFFD.
    context.out << contract->dump(2, ' ', false, Json::error_handler_t::replace) << "\n";
  } else {
    PrintListing(context.out, *contract);
  }
  return kExitSuccess;
}

}  // namespace ratchet
