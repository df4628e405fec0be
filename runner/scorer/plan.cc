#include "scorer/plan.h"

#include <algorithm>

#include "core/sha256.h"

namespace ratchet {

RunSeed SeedOfRecordRun(const RunSeed& seed, const std::string& record_id, int run) {
  const std::string key =
      HmacSha256(seed.view(), "record/" + record_id + "/run/" + std::to_string(run));
  RunSeed out;
  std::copy(key.begin(), key.end(), out.bytes.begin());
  return out;
}

Result<RunPlan> MakeRunPlan(const RunSeed& seed, const RuleSet& rules,
                            const std::vector<std::string>& foreign_present) {
  if (foreign_present.empty()) {
    return Status::Unavailable("no foreign dataset is present (the rule set names " +
                               std::to_string(rules.datasets.foreign.size()) +
                               "); a run needs one for its hold-out calls: run scripts/setup");
  }
  RunPlan plan;
  Result<KeyedStream> foreign = KeyedStream::ForLabel(seed, "plan/foreign");
  if (!foreign.ok()) return foreign.status();
  std::vector<int64_t> order = foreign->Permutation(foreign_present.size());
  plan.holdout = foreign_present[static_cast<size_t>(order[0])];
  plan.single_foreign = foreign_present.size() == 1;
  plan.warmup = plan.single_foreign ? plan.holdout : foreign_present[static_cast<size_t>(order[1])];

  const size_t mnist_calls = static_cast<size_t>(rules.calls.mnist_calls);
  const size_t total = mnist_calls + static_cast<size_t>(rules.calls.holdout_calls);
  Result<KeyedStream> sequence = KeyedStream::ForLabel(seed, "plan/sequence");
  if (!sequence.ok()) return sequence.status();
  // Slots 0..mnist_calls-1 are MNIST calls, the rest hold-out calls; the permutation places them.
  std::vector<int64_t> slots = sequence->Permutation(total);
  if (!foreign->status().ok()) return foreign->status();
  if (!sequence->status().ok()) return sequence->status();
  uint64_t mnist_index = 0, holdout_index = 0;
  for (size_t position = 0; position < total; ++position) {
    PlannedCall call;
    const bool is_mnist = static_cast<size_t>(slots[position]) < mnist_calls;
    call.dataset = is_mnist ? rules.datasets.mnist : plan.holdout;
    call.draw_index = is_mnist ? mnist_index++ : holdout_index++;
    call.warmup_dataset = plan.warmup;
    call.warmup_draw_index = kWarmupDrawBase + position;
    plan.calls.push_back(call);
  }
  return plan;
}

}  // namespace ratchet
