// A run's Markdown summary shown only after its evidence is verified (shard/verified_evidence.h):
// evidence that does not stand opens by saying so, with every finding, before what its files say.
#ifndef RATCHET_CLI_VERIFIED_MARKDOWN_H_
#define RATCHET_CLI_VERIFIED_MARKDOWN_H_

#include <string>

#include "audit/evidence.h"
#include "audit/result.h"
#include "core/status.h"

namespace ratchet {

// What a Markdown report of evidence that does not stand opens with: a heading that says so, and
// every finding, as code in a fence none of them can close.
std::string NotStandingMarkdown(const AuditResult& result);

// A run's Markdown summary (cli/run_report.h) shown only after its evidence is verified: when it
// does not stand, the summary opens by saying so, with every finding, before what its files say.
struct VerifiedMarkdown {
  std::string text;
  bool stands = false;
};
Result<VerifiedMarkdown> MarkdownOfVerified(const std::string& dir,
                                            const EvidenceAuditOptions& options);

}  // namespace ratchet

#endif  // RATCHET_CLI_VERIFIED_MARKDOWN_H_
