// The table of subcommands. Each lives in its own <name>_command.cc; main.cc only dispatches.
#ifndef RATCHET_CLI_COMMANDS_H_
#define RATCHET_CLI_COMMANDS_H_

#include <iosfwd>
#include <string>
#include <vector>

namespace ratchet {

// What a subcommand gets: its arguments (after the subcommand's name) and where to write.
struct CommandContext {
  std::vector<std::string> argv;
  std::ostream& out;
  std::ostream& err;
};

struct Command {
  const char* name;
  const char* summary;  // one line for `ratchet --help`
  const char* usage;    // the full text of `ratchet NAME --help`
  int (*run)(CommandContext& context);
};

const std::vector<Command>& Commands();

int RunAudit(CommandContext& context);
int RunCompare(CommandContext& context);
int RunContract(CommandContext& context);
int RunDatasets(CommandContext& context);
int RunDraw(CommandContext& context);
int RunImport(CommandContext& context);
int RunKey(CommandContext& context);
int RunPromote(CommandContext& context);
int RunReportCommand(CommandContext& context);
int RunRun(CommandContext& context);
int RunScore(CommandContext& context);
int RunScoreShard(CommandContext& context);
int RunTelemetry(CommandContext& context);

extern const char kAuditUsage[];
extern const char kCompareUsage[];
extern const char kContractUsage[];
extern const char kDatasetsUsage[];
extern const char kDrawUsage[];
extern const char kImportUsage[];
extern const char kKeyUsage[];
extern const char kPromoteUsage[];
extern const char kReportUsage[];
extern const char kRunUsage[];
extern const char kScoreUsage[];
extern const char kScoreShardUsage[];
extern const char kTelemetryUsage[];

// Real entry point: `ratchet [--help | --version | COMMAND ...]`.
int RealMain(const std::vector<std::string>& argv, std::ostream& out, std::ostream& err);

// Removes the partial folders in `folder` whose process was killed before it finished
// (SweepPartialFolders), a line on `out` for each it removed or could not. The commands that
// write an output folder do it in the folder they write into, before they begin.
void SweepPartialFoldersIn(const std::string& folder, std::ostream& out);

}  // namespace ratchet

#endif  // RATCHET_CLI_COMMANDS_H_
