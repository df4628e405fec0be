#include "cli/commands.h"

#include <optional>
#include <ostream>
#include <string>
#include <vector>

#include "baseline/input_file.h"
#include "core/exit_codes.h"
#include "core/fresh_directory.h"
#include "core/status.h"
#include "core/version.h"

namespace ratchet {

const std::vector<Command>& Commands() {
  static const std::vector<Command> kCommands = {
      {"audit", "decide whether a published claim stands, from its evidence", kAuditUsage,
       RunAudit},
      {"compare", "two evidence directories: contract and records", kCompareUsage, RunCompare},
      {"contract", "print the run contract of this machine", kContractUsage, RunContract},
      {"datasets", "list the datasets found, where, and their hashes", kDatasetsUsage, RunDatasets},
      {"draw", "write one draw of a run seed (inputs, labels, hidden map)", kDrawUsage, RunDraw},
      {"import", "take a published claim into a baseline, to be reproduced and reviewed",
       kImportUsage, RunImport},
      {"key", "make a key pair that signs evidence (`ratchet key new --out FILE`)", kKeyUsage,
       RunKey},
      {"promote", "write reviewed outcomes from verified evidence into a baseline", kPromoteUsage,
       RunPromote},
      {"report", "a run's evidence as Markdown for a pull request, or as a page of plots",
       kReportUsage,
       RunReportCommand},
      {"run", "score a baseline's records and hold them to it", kRunUsage, RunRun},
      {"score", "score one submission, every timed call in a fresh sandboxed worker", kScoreUsage,
       RunScore},
      {"score-shard", "score one shard of a sharded run (started by run's executors)",
       kScoreShardUsage, RunScoreShard},
      {"telemetry", "what this GPU reads on the energy column's telemetry reference",
       kTelemetryUsage, RunTelemetry},
  };
  return kCommands;
}

namespace {

void PrintHelp(std::ostream& out) {
  out << "usage: ratchet COMMAND [OPTIONS]\n\n"
         "Re-verifies GPU speedrun records: every call in a fresh process, every input\n"
         "hash-locked into a run contract.\n\ncommands:\n";
  for (const Command& command : Commands()) {
    std::string name = command.name;
    name.resize(12, ' ');
    out << "  " << name << command.summary << "\n";
  }
  out << "\n`ratchet COMMAND --help` describes a command.\n"
         "exit codes: 0 as expected, 1 a finding, 2 bad usage or input,\n"
         "            3 the harness could not do its work, 130 interrupted\n";
}

// --rules FILE (a rule set's document: regular, and JSON a parser may be given) and --data DIR
// (no FIFO or device among its datasets), wherever a command takes them.
Status CheckInputOptions(const std::vector<std::string>& args) {
  // Every occurrence: "--" may be an option's value, so it ends nothing here.
  for (size_t i = 0; i < args.size(); ++i) {
    for (const std::string option : {"--rules", "--data"}) {
      std::optional<std::string> value;
      if (args[i] == option && i + 1 < args.size()) value = args[i + 1];
      if (args[i].rfind(option + "=", 0) == 0) value = args[i].substr(option.size() + 1);
      if (!value) continue;
      Status checked = option == "--rules" ? CheckJsonFileOption(value, "--rules")
                                           : CheckDataFolder(*value);
      if (!checked.ok()) return checked;
    }
  }
  return Status::Ok();
}

}  // namespace

int RealMain(const std::vector<std::string>& argv, std::ostream& out, std::ostream& err) {
  if (argv.empty()) {
    PrintHelp(err);
    return kExitBadInput;
  }
  const std::string& name = argv[0];
  if (name == "--help" || name == "-h" || name == "help") {
    PrintHelp(out);
    return kExitSuccess;
  }
  if (name == "--version") {
    out << "ratchet " << kRatchetVersion << "\n";
    return kExitSuccess;
  }
  for (const Command& command : Commands()) {
    if (name != command.name) continue;
    std::vector<std::string> rest(argv.begin() + 1, argv.end());
    for (const std::string& word : rest) {
      if (word == "--") break;
      if (word == "--help" || word == "-h") {
        out << command.usage;
        return kExitSuccess;
      }
    }
    // The input files every command may be given are checked before it reads them.
    Status inputs = CheckInputOptions(rest);
    if (!inputs.ok()) return ReportError(err, command.name, inputs);
    CommandContext context{rest, out, err};
    return command.run(context);
  }
  err << "ratchet: unknown command '" << name << "'\n";
  PrintHelp(err);
  return kExitBadInput;
}

void SweepPartialFoldersIn(const std::string& folder, std::ostream& out) {
  Result<std::vector<SweptFolder>> swept = SweepPartialFolders(folder);
  if (!swept.ok()) {
    out << "could not look for partial folders to remove: " << swept.status().message() << "\n";
    return;
  }
  for (const SweptFolder& one : *swept) out << one.Line() << "\n";
  out.flush();
}

}  // namespace ratchet
