#include "rules/rule_ids.h"

#include <algorithm>
#include <iterator>

namespace ratchet {
namespace {

template <size_t N>
bool In(const char* const (&ids)[N], std::string_view id) {
  return std::find(std::begin(ids), std::end(ids), id) != std::end(ids);
}

template <size_t N>
void Append(const char* const (&ids)[N], std::string* text) {
  for (const char* id : ids) *text += (text->empty() ? "" : ", ") + std::string(id);
}

}  // namespace

bool IsJudgeRule(std::string_view id) { return In(kJudgeRules, id); }

bool IsRunLoopRule(std::string_view id) { return In(kRunLoopRules, id); }

bool KnownRuleId(std::string_view id) { return IsJudgeRule(id) || IsRunLoopRule(id); }

std::string RuleIdsText() {
  std::string text;
  Append(kJudgeRules, &text);
  Append(kRunLoopRules, &text);
  return text;
}

std::string RunLoopRuleIdsText() {
  std::string text;
  Append(kRunLoopRules, &text);
  return text;
}

}  // namespace ratchet
