// The plan of one scoring run, derived from the run seed alone: which foreign dataset is the
// hold-out and which the warm-ups use, the secret order of the 15 timed calls, and the draw
// index of every draw, so that an auditor holding the revealed seed regenerates all of it.
#ifndef RATCHET_SCORER_PLAN_H_
#define RATCHET_SCORER_PLAN_H_

#include <cstdint>
#include <string>
#include <vector>

#include "core/status.h"
#include "data/keyed_stream.h"
#include "rules/rule_set.h"

namespace ratchet {

// Warm-up draws are numbered from here (plus the call's position), so that they never share a
// draw index with a timed draw of the same dataset when one foreign dataset serves both roles.
inline constexpr uint64_t kWarmupDrawBase = 1000;
// The compile step's warm-up draw (docs/scoring.md, "The compile step"): an index of the warm-up
// dataset that no call's warm-up (kWarmupDrawBase + its position) or timed draw (from 0) uses.
inline constexpr uint64_t kCompileDrawIndex = kWarmupDrawBase - 1;

struct PlannedCall {
  std::string dataset;      // the timed call's dataset
  uint64_t draw_index = 0;  // its draw of that dataset
  std::string warmup_dataset;
  uint64_t warmup_draw_index = 0;
};

struct RunPlan {
  std::string holdout;  // the foreign dataset scored as the hold-out
  std::string warmup;   // the foreign dataset the warm-ups use (the other one when both exist)
  bool single_foreign = false;  // only one foreign dataset was available: it serves both roles
  std::vector<PlannedCall> calls;
};

// `foreign_present`: the rule set's foreign datasets that are present here, in rule-set order.
// The stream "plan/foreign" orders them (a uniform permutation), the first is the hold-out; the
// stream "plan/sequence" permutes the mnist_calls + holdout_calls timed calls.
// The seed of run k of a record in an evidence directory: HMAC-SHA256(key = the revealed run
// seed, message "record/<id>/run/<k>"). Each run's plan and draws come from it.
RunSeed SeedOfRecordRun(const RunSeed& seed, const std::string& record_id, int run);

Result<RunPlan> MakeRunPlan(const RunSeed& seed, const RuleSet& rules,
                            const std::vector<std::string>& foreign_present);

}  // namespace ratchet

#endif  // RATCHET_SCORER_PLAN_H_
