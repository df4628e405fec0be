// `ratchet-scorer contract` (what `ratchet contract` runs): the run contract of this machine, as
// a listing or as JSON. The scorer answers it because the contract is the scorer's: its source
// hash, its binaries, its rule sets.
#include <algorithm>
#include <ostream>
#include <string>

#include "core/args.h"
#include "core/exit_codes.h"
#include "contract/gather.h"
#include "contract/python.h"
#include "contract/source_sha256.h"
#include "core/status.h"
#include "session/scorer_commands.h"

namespace ratchet {

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
  const Json& scorer = locked["scorer"];
  Line(out, 2, "scorer", Text(scorer["name"]) + " " + Text(scorer["version"]));
  Line(out, 4, "sources",
       "sha256 " + Text(scorer["source_sha256"]) + " (" +
           std::to_string(ScorerSourceFileCount()) + " files)");
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
    const Json& value = it.value();
    if (it.key() == "tool" && value.is_object()) {
      Line(out, 2, "tool", Text(value["name"]) + " " + Text(value["version"]) + ", sources sha256 " +
                               Text(value["source_sha256"]));
      continue;
    }
    Line(out, 2, it.key(), Text(value));
  }
}

}  // namespace

int RunScorerContract(const std::vector<std::string>& argv, std::ostream& out, std::ostream& err) {
  Result<Args> args = Args::Parse(argv, {{"json", false},
                                         {"data", true},
                                         {"rules", true},
                                         {"python", true},
                                         {"tool-version", true},
                                         {"tool-source-sha256", true}});
  if (!args.ok()) return ReportError(err, "contract", args.status());
  if (!args->positional().empty()) {
    return ReportError(err, "contract",
                       Status::Usage("unexpected argument " + args->positional().front()));
  }
  ContractOptions options;
  options.data_dir = args->Get("data");
  options.rules_path = args->Get("rules");
  // An interpreter the user named must have torch; none found on PATH is recorded as null.
  Result<std::optional<PythonFacts>> python = FindPythonIfAny(args->Get("python"));
  if (!python.ok()) return ReportError(err, "contract", python.status());
  options.python = *python;
  if (args->Has("tool-source-sha256")) {
    options.tool = ToolIdentity{args->Get("tool-version").value_or(""),
                                *args->Get("tool-source-sha256")};
  }
  Result<Json> contract = GatherContract(options);
  if (!contract.ok()) return ReportError(err, "contract", contract.status());
  if (args->Has("json")) {
    // A path that is not UTF-8 has no JSON form: its bad bytes print as U+FFFD.
    out << contract->dump(2, ' ', false, Json::error_handler_t::replace) << "\n";
  } else {
    PrintListing(out, *contract);
  }
  return kExitSuccess;
}

}  // namespace ratchet
