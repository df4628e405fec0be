// Every rule id a run can break: the judge's seven and the run loop's twelve (docs/rules.md lists
// them with their messages). A problem of judge.json and report.json, and a baseline's expected
// outcome, name a rule by one of these ids; the code that breaks a rule names it by its constant.
#ifndef RATCHET_RULES_RULE_IDS_H_
#define RATCHET_RULES_RULE_IDS_H_

#include <string>
#include <string_view>

namespace ratchet {

// The judge's rules, in the order its checks run.
inline constexpr char kRuleTimingCall[] = "timing-call";
inline constexpr char kRuleTimingGroup[] = "timing-group";
inline constexpr char kRuleAccuracy[] = "accuracy";
inline constexpr char kRuleDrawFloor[] = "draw-floor";
inline constexpr char kRuleHoldout[] = "holdout";
inline constexpr char kRuleDispersionSlow[] = "dispersion-slow";
inline constexpr char kRuleDispersionFast[] = "dispersion-fast";

// The run loop's rules: a run that stops before the judge sees it (the reference scorer's six,
// then the sandbox's limits).
inline constexpr char kRuleSource[] = "source";
inline constexpr char kRuleImport[] = "import";
inline constexpr char kRuleCrash[] = "crash";
inline constexpr char kRuleTimeout[] = "timeout";
inline constexpr char kRuleOutput[] = "output";
inline constexpr char kRuleRunTime[] = "run-time";
inline constexpr char kRuleMemory[] = "memory";
inline constexpr char kRuleProcesses[] = "processes";
inline constexpr char kRuleDisk[] = "disk";
inline constexpr char kRuleCompileTime[] = "compile-time";
inline constexpr char kRuleCompileMemory[] = "compile-memory";
inline constexpr char kRuleCompileOutput[] = "compile-output";

inline constexpr const char* kJudgeRules[] = {
    kRuleTimingCall, kRuleTimingGroup,    kRuleAccuracy,       kRuleDrawFloor,
    kRuleHoldout,    kRuleDispersionSlow, kRuleDispersionFast,
};
inline constexpr const char* kRunLoopRules[] = {
    kRuleSource, kRuleImport,      kRuleCrash,         kRuleTimeout,
    kRuleOutput, kRuleRunTime,     kRuleMemory,        kRuleProcesses,
    kRuleDisk,   kRuleCompileTime, kRuleCompileMemory, kRuleCompileOutput,
};

bool IsJudgeRule(std::string_view id);
bool IsRunLoopRule(std::string_view id);
// A rule of the judge or of the run loop.
bool KnownRuleId(std::string_view id);
// Every id, the judge's then the run loop's, for a message: "timing-call, timing-group, ...".
std::string RuleIdsText();
// The run loop's ids alone, so: "source, import, ...".
std::string RunLoopRuleIdsText();

}  // namespace ratchet

#endif  // RATCHET_RULES_RULE_IDS_H_
