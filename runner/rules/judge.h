// The judge: every rule a run's timed calls must pass, the ranked time and the one-line summary,
// decided from the calls alone. It is pure, so an audit re-judges a run from its evidence and
// gets the same outcome the run did.
#ifndef RATCHET_RULES_JUDGE_H_
#define RATCHET_RULES_JUDGE_H_

#include <cstdint>
#include <string>
#include <vector>

#include "core/status.h"
#include "rules/rule_ids.h"
#include "rules/rule_set.h"

namespace ratchet {

// One timed call as the run loop measured it.
struct Call {
  std::string dataset;
  double ms = 0;         // the worker's CUDA-event time: the ranked number
  double parent_ms = 0;  // the parent's clock over the round trip: staging, the call, the reply
  int64_t correct = 0;
  int64_t total = 0;
  double overhead_ms = 0;  // what the same round trip costs with the empty method, in this worker
};

// A broken rule: its stable id (rules/rule_ids.h) and a message with the numbers.
struct Problem {
  std::string rule;
  std::string message;
};

struct Judgement {
  std::vector<Problem> problems;  // empty: the run qualifies
  double ranked_ms = 0;           // the slower dataset's mean, floored by the parent's clock
  std::string summary;
  bool floored = false;  // a dataset's time was raised to the parent's clock
};

// ceil(total * (10000 - error_bp) / 10000), in exact integer arithmetic.
int64_t RequiredCorrect(int64_t total, int64_t error_bp);

// The median as the protocol takes it: the middle value, or for an even count 0.5 * (a + b) of
// the two middle ones; 0 for none.
double Median(std::vector<double> values);

// Judges one run at a band in basis points. Calls without an MNIST call, and calls with a value
// no worker can report (not finite, a total below 1, correct outside 0..total), are BadInput.
Result<Judgement> Judge(const std::vector<Call>& calls, int64_t band_bp, const RuleSet& rules);

}  // namespace ratchet

#endif  // RATCHET_RULES_JUDGE_H_
