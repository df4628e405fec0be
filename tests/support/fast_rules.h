// The default rule set with 3 MNIST calls, 1 hold-out call, 4 calibration calls and short
// limits, written into a test's folder: every rule still applies, a run takes seconds. The timing
// rules' slack is a second: a test machine running other tests beside a run may stall one call
// of ncm.py (some ms) to 2.5x the median, which the default slack judges dispersion-slow; tests
// of the timing rules give the judge calls of their own under the default rule set.
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
  rules["dispersion"]["slack_ms"] = 1000.0;
  rules["timing"]["call_slack_ms"] = 1000.0;
  rules["timing"]["group_slack_ms"] = 1000.0;
  return rules;
}

inline std::string FastRules(const TempDir& dir) {
  const std::string path = dir / "fast-rules.json";
  EXPECT_TRUE(WriteFileAtomic(path, FastRulesJson().dump(2)).ok());
  return path;
}

}  // namespace ratchet

#endif  // RATCHET_TESTS_SUPPORT_FAST_RULES_H_
