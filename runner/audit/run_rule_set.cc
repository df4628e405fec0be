#include "audit/run_rule_set.h"

#include "baseline/ratchet_report.h"
#include "evidence/fields.h"
#include "evidence/layout.h"

namespace ratchet {

std::optional<RuleSet> RunNamedRuleSet(const Json& report, const std::string& locked_sha256) {
  if (!report.is_object() || locked_sha256.empty()) return std::nullopt;
  FindingLines ignored;
  FieldReader reader(kReportFile, &ignored);
  std::optional<RatchetReport> part = ReadRatchetReport(report, reader);
  if (!part || !part->rule_set.is_object()) return std::nullopt;
  Result<RuleSet> rules = ParseRuleSet(part->rule_set.dump(), "the rule set the run names");
  if (!rules.ok() || rules->sha256 != locked_sha256) return std::nullopt;
  return *rules;
}

}  // namespace ratchet
