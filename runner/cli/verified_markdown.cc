#include "cli/verified_markdown.h"

#include <algorithm>

#include "cli/run_report.h"
#include "shard/verified_evidence.h"

namespace ratchet {

namespace {

// A fence longer than any run of backticks in `text`: the text inside cannot close it.
std::string FenceFor(const std::string& text) {
  size_t longest = 0, run = 0;
  for (char c : text) {
    run = c == '`' ? run + 1 : 0;
    longest = std::max(longest, run);
  }
  return std::string(std::max<size_t>(3, longest + 1), '`');
}

}  // namespace

std::string NotStandingMarkdown(const AuditResult& result) {
  std::string findings;
  for (const std::string& line : BreakingFindingLines(result)) findings += "finding: " + line + "\n";
  const std::string fence = FenceFor(findings);
  return "### ratchet: this evidence does not stand\n\n`ratchet audit` finds " +
         std::to_string(result.breaking()) + (result.breaking() == 1 ? " finding" : " findings") +
         " in it: what follows is what its files say, not what its calls give.\n\n" + fence +
         "text\n" + findings + fence + "\n\n";
}

Result<VerifiedMarkdown> MarkdownOfVerified(const std::string& dir,
                                            const EvidenceAuditOptions& options) {
  Result<AuditResult> audit = VerifyEvidenceToShow(dir, options);
  if (!audit.ok()) return audit.status();
  Result<RunReport> report = ReadRunReport(dir);
  if (!report.ok()) return report.status();
  VerifiedMarkdown out;
  out.stands = audit->verdict() == AuditVerdict::kStands;
  if (!out.stands) out.text = NotStandingMarkdown(*audit);
  out.text += MarkdownReport(*report);
  return out;
}

}  // namespace ratchet
