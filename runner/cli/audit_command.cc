// `ratchet audit`: prints what a claim is, every finding and note, what was checked, and the
// verdict; the exit code says whether the claim stands.
#include <ostream>

#include "audit/audit.h"
#include "baseline/input_file.h"
#include "cli/commands.h"
#include "compare/terminal_text.h"
#include "core/args.h"
#include "core/exit_codes.h"
#include "shard/sharded_run.h"
#include "shard/verify.h"

namespace ratchet {

const char kAuditUsage[] =
    "usage: ratchet audit PATH [--data DIR] [--rules ID|FILE] [--submission FILE]\n"
    "\n"
    "Decides whether the claim of PATH stands: a ratchet evidence directory, a sharded run's\n"
    "directory (each shard audited, and its id, seed and contract bound to the run), or a JSON\n"
    "file with a record of the reference scorer's --json (bare, or wrapped as {returncode,\n"
    "stdout, stderr, record}). Every hash is verified, every verdict re-judged from the raw\n"
    "calls, the plan and correct labels re-derived from the revealed seed (where the datasets\n"
    "are here), and the energy column recomputed from its windows with its telemetry checked\n"
    "against the rule set's bands.\n"
    "Prints the rule set that judged, a line per finding (\"finding:\" breaks the claim,\n"
    "\"note:\" qualifies it), what was checked, and a verdict line; docs/audit.md lists every\n"
    "check.\n"
    "\n"
    "  --data DIR         search DIR first for the datasets (see `ratchet datasets --help`)\n"
    "  --rules ID|FILE    the rule set the claim was made under: the id of one compiled in\n"
    "                     (mnist-a100/1.2.0, the reference scorer's; mnist-a100/1.3.0,\n"
    "                     mnist-a100/1.4.0 and mnist-a100/1.5.0, ratchet's, with an NVIDIA H200\n"
    "                     telemetry band, the last with the sandbox's limits written out) or a\n"
    "                     rule-set file (default: the compiled-in one whose sha256 an evidence\n"
    "                     directory's contract.json locks, or whose version string a record\n"
    "                     names)\n"
    "  --submission FILE  the file a reference record scored (default: the record's file name,\n"
    "                     beside it or in the two folders above)\n"
    "\n"
    "exit codes: 0 the claim stands (also when it stands only as an unofficial one: the verdict\n"
    "            says \"not official\" and why); 1 it does not stand, or there is nothing to "
    "audit;\n"
    "            2 bad usage or input (not evidence, not JSON, an unknown format, a rule set\n"
    "            other than the claim's, or none compiled in that is the claim's);\n"
    "            3 the harness could not do its work\n";

namespace {

int Run(CommandContext& context) {
  auto fail = [&](const Status& status) { return ReportError(context.err, "audit", status); };
  Result<Args> args =
      Args::Parse(context.argv, {{"data", true}, {"rules", true}, {"submission", true}});
  if (!args.ok()) return fail(args.status());
  if (args->positional().size() != 1) {
    return fail(Status::Usage(args->positional().empty()
                                  ? "name what to audit: an evidence directory or a record file"
                                  : "name one thing to audit, not " +
                                        std::to_string(args->positional().size())));
  }
  AuditOptions options;
  options.data_dir = args->Get("data");
  options.rules_path = args->Get("rules");
  options.submission = args->Get("submission");
  const std::string path = args->positional().front();
  Result<AuditResult> result = AuditResult{};
  if (Status checked = CheckInputTree(path, "the evidence directory"); !checked.ok()) {
    return fail(checked);
  }
  if (IsShardedRun(path)) {
    // A sharded run (docs/distributed.md): its shards, and what binds them into one run.
    if (options.submission) {
      return fail(Status::Usage("--submission names the file of a reference record; " + path +
                                " is a sharded run"));
    }
    EvidenceAuditOptions evidence;
    evidence.rules_path = options.rules_path;
    evidence.data_dir = options.data_dir;
    result->path = path;
    Status audited = AuditShardedRun(path, evidence, &*result);
    if (!audited.ok()) return fail(audited);
  } else {
    result = Audit(path, options);
  }
  if (!result.ok()) return fail(result.status());

  // Each line on one line: a claim, a finding and the verdict quote the evidence (a record id, a
  // file or function name, a value), and a newline there must not print a line of ratchet's.
  std::ostream& out = context.out;
  out << "audit of " << TerminalText(result->path) << ": " << TerminalText(result->format) << "\n";
  if (!result->rules.empty()) out << "rules: " << TerminalText(result->rules) << "\n";
  for (const std::string& claim : result->claims) out << "claim: " << TerminalText(claim) << "\n";
  for (const AuditFinding& finding : result->findings) {
    out << (finding.kind == AuditFinding::Kind::kBreaks ? "finding: " : "note: ")
        << TerminalText(finding.where) << ": " << TerminalText(finding.message) << "\n";
  }
  for (const std::string& checked : result->checked) {
    out << "checked: " << TerminalText(checked) << "\n";
  }
  out << TerminalText(VerdictLine(*result)) << "\n";
  return result->verdict() == AuditVerdict::kStands ? kExitSuccess : kExitFinding;
}

}  // namespace

int RunAudit(CommandContext& context) { return Run(context); }

}  // namespace ratchet
