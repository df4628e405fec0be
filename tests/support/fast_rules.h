// The default rule set with 3 MNIST calls, 1 hold-out call, 4 calibration calls and short
// limits, written into a test's folder: every rule still applies, a run takes seconds.
#ifndef RATCHET_TESTS_SUPPORT_FAST_RULES_H_
#define RATCHET_TESTS_SUPPORT_FAST_RULES_H_

#include <gtest/gtest.h>

#include <string>

#include "core/canonical_json.h"
#include "core/file.h"
#include "rules/rule_set.h"
#include "support/temp_dir.h"

namespace ratchet {

inline Json FastRulesJson() {
  Json rules = Json::parse(EmbeddedRuleSetText(kDefaultRuleSetId));
  rules["calls"]["mnist_calls"] = 3;
  rules["calls"]["holdout_calls"] = 1;
  rules["timing"]["calibration_calls"] = 4;
  rules["timing"]["calibration_discard"] = 1;
  rules["limits"]["warmup_max_call_ms"] = 8000;
  rules["limits"]["later_warmup_max_call_ms"] = 8000;
  rules["limits"]["max_call_ms"] = 4000;
  rules["limits"]["timed_call_grace_s"] = 1;
  return rules;
}

inline std::string FastRules(const TempDir& dir) {
  const std::string path = dir / "fast-rules.json";
  EXPECT_TRUE(WriteFileAtomic(path, FastRulesJson().dump(2)).ok());
  return path;
}

}  // namespace ratchet

#endif  // RATCHET_TESTS_SUPPORT_FAST_RULES_H_
