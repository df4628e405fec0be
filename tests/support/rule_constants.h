// The constants of a rule-set document, and each changed: for the tests that change every
// constant and expect the contract to name it.
#ifndef RATCHET_TESTS_SUPPORT_RULE_CONSTANTS_H_
#define RATCHET_TESTS_SUPPORT_RULE_CONSTANTS_H_

#include <functional>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "core/canonical_json.h"

namespace ratchet {

// Every constant of `rules`: its JSON pointer and its path as messages name it
// ("rules.energy.reference_bands[0].prefix"). The dataset names are left out: they are not
// constants (only the datasets ratchet knows are valid).
inline std::vector<std::pair<Json::json_pointer, std::string>> RuleConstants(const Json& rules) {
  std::vector<std::pair<Json::json_pointer, std::string>> leaves;
  std::function<void(const Json&, const std::string&, const std::string&)> walk =
      [&](const Json& value, const std::string& pointer, const std::string& dotted) {
        if (value.is_array()) {
          for (size_t i = 0; i < value.size(); ++i) {
            walk(value[i], pointer + "/" + std::to_string(i), JoinPath(dotted, i));
          }
        } else if (value.is_object()) {
          for (auto it = value.begin(); it != value.end(); ++it) {
            walk(it.value(), pointer + "/" + it.key(), JoinPath(dotted, it.key()));
          }
        } else if (pointer != "/datasets/mnist" && pointer.rfind("/datasets/foreign/", 0) != 0) {
          leaves.push_back({Json::json_pointer(pointer), dotted});
        }
      };
  walk(rules, "", "rules");
  return leaves;
}

// `rules` with the constant at `pointer` changed the `attempt`-th way (from 0), for a change the
// rule set refuses to be followed by another: an integer +1, -1, x2, x4; another number x1.25,
// x0.8; a boolean negated; a string with "-changed" or "x" added. nullopt when there is no such
// way.
inline std::optional<Json> ChangedRuleConstant(const Json& rules, const Json::json_pointer& pointer,
                                               int attempt) {
  Json changed = rules;
  Json& field = changed[pointer];
  if (field.is_number_integer()) {
    if (attempt > 3) return std::nullopt;
    const int64_t value = field.get<int64_t>();
    const int64_t options[] = {value + 1, value - 1, 2 * value, 4 * value};
    field = options[attempt];
  } else if (field.is_number()) {
    if (attempt > 1) return std::nullopt;
    field = field.get<double>() * (attempt == 0 ? 1.25 : 0.8);
  } else if (field.is_boolean()) {
    if (attempt > 0) return std::nullopt;
    field = !field.get<bool>();
  } else {
    if (attempt > 1) return std::nullopt;
    field = field.get<std::string>() + (attempt == 0 ? "-changed" : "x");
  }
  return changed;
}

}  // namespace ratchet

#endif  // RATCHET_TESTS_SUPPORT_RULE_CONSTANTS_H_
