// The rule set a run names itself: the document `ratchet run --baseline` keeps in its report's
// ratchet part (report.json, or a sharded run's run.json), taken when no compiled-in rule set and
// no --rules is the one the run's contract locks, as `ratchet promote` takes it. It is used only
// when its canonical sha256 is the one the contract locks, so the audit still judges every call
// under the rules the run was scored under, and says whose rule set it is.
#ifndef RATCHET_AUDIT_RUN_RULE_SET_H_
#define RATCHET_AUDIT_RUN_RULE_SET_H_

#include <optional>
#include <string>

#include "core/canonical_json.h"
#include "rules/rule_set.h"

namespace ratchet {

// `report`: the run's report (with its ratchet part); `locked_sha256`: the rule set's sha256 its
// contract locks. nullopt when the report names no rule set, or one with another sha256.
std::optional<RuleSet> RunNamedRuleSet(const Json& report, const std::string& locked_sha256);

}  // namespace ratchet

#endif  // RATCHET_AUDIT_RUN_RULE_SET_H_
