#include "shard/verified_evidence.h"

#include <optional>

#include "audit/run_rule_set.h"
#include "baseline/input_file.h"
#include "compare/terminal_text.h"
#include "contract/contract_view.h"
#include "evidence/reader.h"
#include "shard/sharded_run.h"
#include "shard/verify.h"

namespace ratchet {

namespace {

// The rule set the run at `dir` names itself, when its contract locks it (audit/run_rule_set.h).
std::optional<RuleSet> NamedBy(const std::string& dir, bool sharded) {
  if (sharded) {
    Result<ShardedRun> run = ReadShardedRun(dir);
    if (!run.ok()) return std::nullopt;
    return RunNamedRuleSet(run->report,
                           ContractView(Json{{kContractLocked, run->locked}}).rules_sha256().value_or(""));
  }
  Result<EvidenceSummary> summary = ReadEvidence(dir);
  if (!summary.ok()) return std::nullopt;
  return RunNamedRuleSet(summary->report,
                         ContractView(summary->contract).rules_sha256().value_or(""));
}

}  // namespace

Result<AuditResult> VerifyEvidence(const std::string& dir, const EvidenceAuditOptions& options) {
  RATCHET_RETURN_IF_ERROR(CheckInputTree(dir, "the evidence directory"));
  const bool sharded = IsShardedRun(dir);
  auto audit = [&](const EvidenceAuditOptions& with) -> Result<AuditResult> {
    AuditResult result;
    result.path = dir;
    Status audited =
        sharded ? AuditShardedRun(dir, with, &result) : AuditEvidence(dir, with, &result);
    if (!audited.ok()) return audited;
    return result;
  };
  Result<AuditResult> result = audit(options);
  // No rule set given or compiled in is the one the run was scored under: the one it names,
  // which promote too audits it with, when its contract locks that one.
  if (result.ok() || result.status().code() != Status::Code::kUsage || options.rules ||
      options.rules_path) {
    return result;
  }
  std::optional<RuleSet> named = NamedBy(dir, sharded);
  if (!named) return result;
  EvidenceAuditOptions with = options;
  with.rules = std::move(named);
  return audit(with);
}

Result<AuditResult> VerifyEvidenceToShow(const std::string& dir,
                                         const EvidenceAuditOptions& options) {
  Result<AuditResult> audit = VerifyEvidence(dir, options);
  // Evidence no rule set here can judge is not verified: said first, as a finding, with what to
  // give; what is no run's evidence at all stays an error.
  if (!audit.ok() && audit.status().code() == Status::Code::kUsage) {
    AuditResult unjudged;
    unjudged.path = dir;
    unjudged.Breaks("", "it cannot be verified here: " + audit.status().message());
    return unjudged;
  }
  return audit;
}

std::vector<std::string> BreakingFindingLines(const AuditResult& result) {
  std::vector<std::string> lines;
  for (const AuditFinding& finding : result.findings) {
    if (finding.kind != AuditFinding::Kind::kBreaks) continue;
    lines.push_back(finding.where.empty() ? finding.message
                                          : finding.where + ": " + finding.message);
  }
  return lines;
}

std::string DoesNotStand(const AuditResult& result) {
  const size_t breaking = result.breaking();
  std::string line = result.path + " does not stand (`ratchet audit " + result.path + "`: " +
                     std::to_string(breaking) + (breaking == 1 ? " finding" : " findings");
  for (const AuditFinding& finding : result.findings) {
    if (finding.kind != AuditFinding::Kind::kBreaks) continue;
    line += ", the first: " + TerminalText(finding.where) + ": " + TerminalText(finding.message);
    break;
  }
  return line + ")";
}

}  // namespace ratchet
