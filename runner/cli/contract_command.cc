// `ratchet contract`: the run contract of this machine, as a listing or as JSON.
#include <algorithm>
#include <ostream>
#include <string>

#include "cli/args.h"
#include "cli/commands.h"
#include "cli/exit_codes.h"
#include "contract/gather.h"
#include "contract/source_sha256.h"
#include "core/status.h"

namespace ratchet {

const char kContractUsage[] =
    "usage: ratchet contract [--json] [--data DIR] [--rules FILE]\n"
    "\n"
    "Prints the run contract of this machine: what a run here is bound to (the harness, the\n"
    "rule set, the datasets; a baseline's must be equal) and the lane it runs on (the binary,\n"
    "the toolchain and loaded libraries, the device). docs/contract.md describes every field.\n"
    "\n"
    "options:\n"
    "  --json        print the contract as JSON (2-space indent, keys sorted)\n"
    "  --data DIR    look for the datasets in DIR first, then in $RATCHET_DATA and the\n"
    "                packages' standard places\n"
    "  --rules FILE  lock this rule-set file instead of the embedded mnist-a100/1.2.0\n"
    "\n"
    "exit codes: 0 printed; 2 bad usage, a --rules file that does not exist, is not a\n"
    "file, is over 1 MiB, does not parse or names a dataset ratchet does not know, a --data\n"
    "folder that does not exist, a dataset file with the wrong hash;\n"
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
  return "cuda " + Text(device["name"]) + ", driver " + Text(device["driver"]) + ", CUDA " +
         Text(device["cuda_driver"]) + ", VBIOS " + Text(device["vbios"]) + ", power limit " +
         power;
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
  Line(out, 2, "workers", locked["workers"].empty() ? "none yet" : "");
  for (auto it = locked["workers"].begin(); it != locked["workers"].end(); ++it) {
    Line(out, 4, it.key(), "sha256 " + Text(it.value()));
  }
  Line(out, 2, "datasets", "");
  for (auto it = locked["datasets"].begin(); it != locked["datasets"].end(); ++it) {
    if (it.value().is_null()) {
      Line(out, 4, it.key(), "absent");
      continue;
    }
    Line(out, 4, it.key(), "images sha256 " + Text(it.value()["images_sha256"]));
    Line(out, 4, "", "labels sha256 " + Text(it.value()["labels_sha256"]));
  }
  Line(out, 2, "sandbox", locked["sandbox"].is_null() ? "none yet" : locked["sandbox"].dump());

  out << "lane " << Text(lane["id"]) << " (timings compare only within one lane)\n";
  for (auto it = lane["binaries"].begin(); it != lane["binaries"].end(); ++it) {
    Line(out, 2, "binary", it.key() + " sha256 " + Text(it.value()));
  }
  const Json& toolchain = lane["toolchain"];
  Line(out, 2, "compiler", Text(toolchain["cxx"]));
  Line(out, 2, "glibc", Text(toolchain["glibc"]));
  Line(out, 2, "libraries", "");
  size_t width = 0;
  for (auto it = toolchain["libraries"].begin(); it != toolchain["libraries"].end(); ++it) {
    width = std::max(width, it.key().size());
  }
  for (auto it = toolchain["libraries"].begin(); it != toolchain["libraries"].end(); ++it) {
    std::string name = it.key();
    name.resize(width, ' ');
    out << "    " << name << " sha256 " << Text(it.value()) << "\n";
  }
  Line(out, 2, "device", DeviceText(lane["device"]));

  out << "observed (recorded, never compared)\n";
  const Json& observed = contract["observed"];
  for (auto it = observed.begin(); it != observed.end(); ++it) {
    Line(out, 2, it.key(), Text(it.value()));
  }
}

}  // namespace

int RunContract(CommandContext& context) {
  Result<Args> args = Args::Parse(context.argv, {{"json", false}, {"data", true}, {"rules", true}});
  if (!args.ok()) return ReportError(context.err, "contract", args.status());
  if (!args->positional().empty()) {
    return ReportError(context.err, "contract",
                       Status::Usage("unexpected argument " + args->positional().front()));
  }
  ContractOptions options;
  options.data_dir = args->Get("data");
  options.rules_path = args->Get("rules");
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
