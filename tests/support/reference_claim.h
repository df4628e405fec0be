// A reference scorer's --json record (a bare one) for a method file, written by a test: its
// calls chosen by the test (every MNIST call `mnist_correct` of 10,000, every hold-out call 8,000,
// each `ms` long) and judged under the reference rule set mnist-a100/1.2.0, so that problems,
// summary and ranked time are the ones the reference scorer would print and `ratchet audit`
// lets the record stand. It stands for a published claim where none exists for the method; what
// it claims need not be what the method does, which is what a claim not reproduced looks like.
#ifndef RATCHET_TESTS_SUPPORT_REFERENCE_CLAIM_H_
#define RATCHET_TESTS_SUPPORT_REFERENCE_CLAIM_H_

#include <string>
#include <vector>

#include "core/canonical_json.h"
#include "core/sha256.h"
#include "rules/judge.h"
#include "rules/rule_set.h"

namespace ratchet {

struct ReferenceClaimSpec {
  std::string file = "ncm.py", function = "method";
  std::string source;  // the method file's bytes: the claim names their sha256
  int64_t band_bp = 2000;
  int64_t mnist_correct = 9000;
  double ms = 12.5;
  std::string device = "NVIDIA A100-SXM4-80GB";
};

inline Json ReferenceClaimJson(const ReferenceClaimSpec& spec) {
  const RuleSet& rules = **FindEmbeddedRuleSetByVersion(
      "mnist-a100/1.2.0 (protections of sutro-mnist-medium/3.0.0, tightened; energy column)");
  std::vector<Call> calls;
  Json call_list = Json::array();
  const int64_t planned = rules.calls.mnist_calls + rules.calls.holdout_calls;
  for (int64_t i = 0; i < planned; ++i) {
    const bool mnist = i < rules.calls.mnist_calls;
    Call call{mnist ? rules.datasets.mnist : "fashion", spec.ms + 0.01 * static_cast<double>(i),
              spec.ms + 2.0, mnist ? spec.mnist_correct : 8000, rules.draw.test, 1.5};
    calls.push_back(call);
    call_list.push_back({{"dataset", call.dataset},
                         {"ms", call.ms},
                         {"parent_ms", call.parent_ms},
                         {"correct", call.correct},
                         {"total", call.total},
                         {"overhead_ms", call.overhead_ms}});
  }
  const Judgement judged = *Judge(calls, spec.band_bp, rules);
  Json problems = Json::array();
  for (const Problem& problem : judged.problems) problems.push_back(problem.message);
  return {{"version", rules.version},
          {"file", spec.file},
          {"function", spec.function},
          {"source_sha256", Sha256Hex(spec.source)},
          {"band_bp", spec.band_bp},
          {"sandboxed", true},
          {"holdout", "fashion"},
          {"device", spec.device},
          {"torch", "2.12.0+cu130"},
          {"calls", call_list},
          {"problems", problems},
          {"summary", judged.summary},
          {"ranked_ms", judged.problems.empty() ? Json(judged.ranked_ms) : Json()}};
}

}  // namespace ratchet

#endif  // RATCHET_TESTS_SUPPORT_REFERENCE_CLAIM_H_
