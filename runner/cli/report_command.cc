// `ratchet report`: a run's evidence as the summary a reviewer pastes into a pull request
// (run_report.h, --markdown), or runs' evidence as one page of plots (html_report.h, --html).
#include <ostream>

#include "cli/commands.h"
#include "baseline/input_file.h"
#include "cli/html_report.h"
#include "cli/run_report.h"
#include "cli/verified_markdown.h"
#include "shard/verified_evidence.h"
#include "core/args.h"
#include "core/exit_codes.h"
#include "core/file.h"
#include "core/status.h"

namespace ratchet {

const char kReportUsage[] =
    "usage: ratchet report DIR --markdown [FILE] [--rules ID|FILE] [--data DIR]\n"
    "       ratchet report DIR [DIR ...] --html FILE [--rules ID|FILE] [--data DIR]\n"
    "\n"
    "Every DIR is verified first, as `ratchet audit DIR` verifies it (its outcomes and times\n"
    "re-derived from its calls). A Markdown summary of evidence that does not stand opens by\n"
    "saying so, with the audit's findings; so does the page. Either then exits 1.\n"
    "\n"
    "Writes a run's evidence (an evidence directory of `ratchet run` or `ratchet score`, or a\n"
    "sharded run) as Markdown for a pull request: the contract in one line, then one row per\n"
    "record (the baseline's expected outcome, the outcome scored, the ranked time against the\n"
    "reviewed one on the run's lane, the energy per call, the ratchet's codes), the records\n"
    "with an error first; the notes folded below. The expected outcomes and reviewed times come\n"
    "from the baseline the run names, when it is still the one the run was held to.\n"
    "\n"
    "  --markdown [FILE]  write to FILE (replaced atomically), or to stdout without one\n"
    "  --rules ID|FILE    the rule set the evidence was scored under, when it is not one\n"
    "                     compiled into ratchet (as `ratchet audit --rules`)\n"
    "  --data DIR         where the datasets are, for the labels re-counted\n"
    "  --html FILE        write one self-contained HTML page (no network, no script from\n"
    "                     elsewhere): each record's per-call times for every run against its\n"
    "                     reviewed tolerance, each call's unexplained time, the energy windows\n"
    "                     where measured, and for several DIRs (oldest first) of one record, its\n"
    "                     ranked time across them\n"
    "\n"
    "Exit codes: 0 written; 1 the evidence does not stand (the summary says so first); 2 bad\n"
    "usage, or DIR is not a run's evidence; 3 FILE cannot be written\n";

int RunReportCommand(CommandContext& context) {
  auto fail = [&](const Status& status) { return ReportError(context.err, "report", status); };
  Result<Args> args = Args::Parse(context.argv, {{"markdown", false},
                                                 {"html", true},
                                                 {"rules", true},
                                                 {"data", true}});
  if (!args.ok()) return fail(args.status());
  std::vector<std::string> positional = args->positional();
  // Every run's evidence checked before any file in it is read (a FIFO would block, a link
  // lead out); a FILE to write is not.
  const size_t dirs = args->Has("markdown") && positional.size() == 2 ? 1 : positional.size();
  for (size_t i = 0; i < dirs; ++i) {
    if (Status checked = CheckInputTree(positional[i], "the evidence directory"); !checked.ok()) {
      return fail(checked);
    }
  }
  EvidenceAuditOptions verify;
  verify.rules_path = args->Get("rules");
  verify.data_dir = args->Get("data");
  if (args->Has("html")) {
    if (args->Has("markdown")) return fail(Status::Usage("write one: --markdown or --html"));
    if (positional.empty()) {
      return fail(Status::Usage("name the runs' evidence: ratchet report DIR [DIR ...] --html FILE"));
    }
    // Each directory verified first: what does not stand is said first on the page, with its
    // findings, and the command exits 1.
    Json not_standing = Json::array();
    for (const std::string& dir : positional) {
      Result<AuditResult> audit = VerifyEvidenceToShow(dir, verify);
      if (!audit.ok()) return fail(audit.status());
      if (audit->verdict() != AuditVerdict::kStands) {
        not_standing.push_back({{"path", dir}, {"findings", BreakingFindingLines(*audit)}});
      }
    }
    Result<Json> data = HtmlReportData(positional);
    if (!data.ok()) return fail(data.status());
    (*data)["not_standing"] = not_standing;
    Status written = WriteFileAtomic(*args->Get("html"), HtmlReport(*data));
    if (!written.ok()) return fail(written);
    context.out << "wrote " << *args->Get("html") << "\n";
    if (!not_standing.empty()) {
      context.err << "ratchet report: " << not_standing.size()
                  << " of the evidence directories do not stand: the page says so first\n";
      return kExitFinding;
    }
    return kExitSuccess;
  }
  if (!args->Has("markdown")) {
    return fail(Status::Usage("say what to write: --markdown [FILE] or --html FILE"));
  }
  if (positional.empty() || positional.size() > 2) {
    return fail(Status::Usage("name one run's evidence: ratchet report DIR --markdown [FILE]"));
  }
  const std::string dir = positional[0];
  Result<VerifiedMarkdown> markdown = MarkdownOfVerified(dir, verify);
  if (!markdown.ok()) return fail(markdown.status());
  if (positional.size() == 2) {
    Status written = WriteFileAtomic(positional[1], markdown->text);
    if (!written.ok()) return fail(written);
    context.out << "wrote " << positional[1] << "\n";
  } else {
    context.out << markdown->text;
  }
  if (!markdown->stands) {
    context.err << "ratchet report: " << dir << " does not stand: the summary says so first\n";
    return kExitFinding;
  }
  return kExitSuccess;
}

}  // namespace ratchet
