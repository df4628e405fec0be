#include "rules/judge.h"

#include <algorithm>
#include <cmath>
#include <set>
#include <utility>

#include "rules/pyformat.h"

namespace ratchet {
namespace {

using Group = std::vector<const Call*>;

// The parent's measurement of a call beyond what the protocol itself costs.
double Measured(const Call& c) { return c.parent_ms - c.overhead_ms; }
// Time the CUDA events do not account for.
double Unexplained(const Call& c) { return c.parent_ms - c.overhead_ms - c.ms; }

// A mean as the reference computes it: a plain left-to-right sum from zero (CPython 3.11's
// sum(); see docs/rules.md), divided by the count.
template <typename Value>
double Mean(const Group& group, Value value) {
  double sum = 0.0;
  for (const Call* c : group) sum += value(*c);
  return sum / static_cast<double>(group.size());
}

}  // namespace

double Median(std::vector<double> values) {
  if (values.empty()) return 0;
  std::sort(values.begin(), values.end());
  const size_t middle = values.size() / 2;
  return values.size() % 2 ? values[middle] : 0.5 * (values[middle - 1] + values[middle]);
}

namespace {

// All but the calls with the most unexplained time (a fifth, at least one), in the order of
// their unexplained time: the order matters, the means are summed in it.
Group Kept(const Group& group) {
  if (group.size() < 3) return group;
  std::vector<std::pair<double, const Call*>> keyed;
  for (const Call* c : group) keyed.emplace_back(Unexplained(*c), c);
  std::stable_sort(keyed.begin(), keyed.end(),
                   [](const auto& a, const auto& b) { return a.first < b.first; });
  const size_t dropped = std::max<size_t>(1, group.size() / 5);
  Group kept;
  for (size_t i = 0; i + dropped < keyed.size(); ++i) kept.push_back(keyed[i].second);
  return kept;
}

// A dataset's time: its mean reported time, never below the parent's clock less the slack.
struct GroupTime {
  double ms = 0;
  bool floored = false;
};

GroupTime TimeOf(const Group& group, const RuleSet::Timing& timing) {
  const double reported = Mean(group, [](const Call& c) { return c.ms; });
  const double floor =
      Mean(group, Measured) - timing.floor_slack_ms - timing.floor_slack_fraction * reported;
  return {std::max(reported, floor), floor > reported};
}

Status CheckCall(const Call& c, size_t index) {
  const std::string where = "call " + std::to_string(index + 1) + " (" + c.dataset + ")";
  if (!std::isfinite(c.ms) || !std::isfinite(c.parent_ms) || !std::isfinite(c.overhead_ms)) {
    return Status::BadInput(where + ": a time is not a finite number");
  }
  if (c.total < 1 || c.correct < 0 || c.correct > c.total) {
    return Status::BadInput(where + ": " + std::to_string(c.correct) + " correct of " +
                            std::to_string(c.total) + " is not a count of predictions");
  }
  return Status::Ok();
}

}  // namespace

int64_t RequiredCorrect(int64_t total, int64_t error_bp) {
  const __int128 needed = static_cast<__int128>(total) * (10000 - static_cast<__int128>(error_bp));
  __int128 quotient = needed / 10000;
  if (needed % 10000 != 0 && needed > 0) ++quotient;  // division truncates; round up
  return static_cast<int64_t>(quotient);
}

Result<Judgement> Judge(const std::vector<Call>& calls, int64_t band_bp, const RuleSet& rules) {
  if (band_bp < 1 || band_bp > 9999) {
    return Status::BadInput("a band must be 1..9999 basis points, not " + std::to_string(band_bp));
  }
  Group mnist, hold;
  for (size_t i = 0; i < calls.size(); ++i) {
    RATCHET_RETURN_IF_ERROR(CheckCall(calls[i], i));
    (calls[i].dataset == rules.datasets.mnist ? mnist : hold).push_back(&calls[i]);
  }
  if (mnist.empty()) {
    return Status::BadInput("no " + rules.datasets.mnist + " call to judge among " +
                            std::to_string(calls.size()) + " calls");
  }
  const RuleSet::Timing& timing = rules.timing;
  const double factor = rules.dispersion.factor;
  const double slack_ms = rules.dispersion.slack_ms;
  const std::pair<const Group*, const char*> groups[] = {{&mnist, "MNIST"}, {&hold, "hold-out"}};
  Judgement out;
  auto add = [&out](const char* rule, std::string message) {
    out.problems.push_back({rule, std::move(message)});
  };

  for (size_t i = 0; i < calls.size(); ++i) {
    const Call& c = calls[i];
    if (Unexplained(c) > timing.call_slack_ms + timing.call_slack_fraction * c.ms ||
        c.ms > c.parent_ms + timing.call_allowance_ms) {
      add(kRuleTimingCall, "call " + std::to_string(i + 1) + " (" + c.dataset +
                               "): the method reported " + FormatFixed(c.ms, 3) +
                               " ms but the scorer measured " + FormatFixed(Measured(c), 3) +
                               " ms beyond the protocol's own cost");
    }
  }
  for (const auto& [group, name] : groups) {
    if (group->size() < 3) continue;
    const Group kept = Kept(*group);
    const double reported = Mean(kept, [](const Call& c) { return c.ms; });
    const double measured = Mean(kept, Measured);
    if (measured - reported > timing.group_slack_ms + timing.group_slack_fraction * reported) {
      add(kRuleTimingGroup, std::string(name) + " calls: the method reported " +
                                FormatFixed(reported, 3) +
                                " ms on average but the scorer measured " +
                                FormatFixed(measured, 3) + " ms beyond the protocol's own cost");
    }
  }

  int64_t correct = 0, total = 0;
  for (const Call* c : mnist) {
    correct += c->correct;
    total += c->total;
  }
  const double accuracy = static_cast<double>(correct) / static_cast<double>(total);
  const int64_t need = RequiredCorrect(total, band_bp);
  if (correct < need) {
    add(kRuleAccuracy, "MNIST accuracy " + FormatPercent(accuracy, 3) + " (" +
                           FormatGrouped(correct) + "/" + FormatGrouped(total) +
                           "); the band needs " + FormatGrouped(need) + " correct");
  }
  const int64_t test = rules.draw.test;
  const int64_t per_draw_floor = RequiredCorrect(test, band_bp + rules.accuracy.draw_slack_bp);
  int64_t weakest = mnist.front()->correct;
  for (const Call* c : mnist) weakest = std::min(weakest, c->correct);
  if (weakest < per_draw_floor && mnist.size() > 1) {
    add(kRuleDrawFloor, "one MNIST draw scored " + FormatGrouped(weakest) + "/" +
                            FormatGrouped(test) + "; no draw may fall below " +
                            FormatGrouped(per_draw_floor));
  }
  int64_t hold_correct = 0, hold_total = 0;
  for (const Call* c : hold) {
    hold_correct += c->correct;
    hold_total += c->total;
  }
  const double hold_accuracy =
      hold.empty() ? 0.0 : static_cast<double>(hold_correct) / static_cast<double>(hold_total);
  const int64_t hold_need = RequiredCorrect(hold_total, rules.accuracy.holdout_error_bp);
  if (!hold.empty() && hold_correct < hold_need) {
    add(kRuleHoldout, "hold-out accuracy " + FormatPercent(hold_accuracy, 2) + " (" +
                          FormatGrouped(hold_correct) + "/" + FormatGrouped(hold_total) +
                          "); at least " + FormatGrouped(hold_need) +
                          " needed. The method does not appear to learn from the data it is given");
  }
  for (const auto& [group, name] : groups) {
    if (group->size() < 3) continue;
    std::vector<double> times;
    for (const Call* c : *group) times.push_back(c->ms);
    const double median = Median(times);
    const double slowest = *std::max_element(times.begin(), times.end());
    const double fastest = *std::min_element(times.begin(), times.end());
    if (slowest > factor * median + slack_ms) {
      add(kRuleDispersionSlow,
          "the slowest " + std::string(name) + " call took " + FormatFixed(slowest, 3) +
              " ms, more than " + FormatGeneral(factor) + "x the median " + FormatFixed(median, 3) +
              " ms; every call must do the same work");
    }
    if (fastest < median / factor - slack_ms) {
      add(kRuleDispersionFast,
          "the fastest " + std::string(name) + " call took " + FormatFixed(fastest, 3) +
              " ms, less than 1/" + FormatGeneral(factor) + " of the median " +
              FormatFixed(median, 3) + " ms; every call must do the same work");
    }
  }

  const GroupTime mnist_time = TimeOf(mnist, timing);
  const GroupTime hold_time = hold.empty() ? GroupTime{} : TimeOf(hold, timing);
  out.summary = "MNIST " + FormatPercent(accuracy, 2) + " (" + FormatGrouped(correct) + "/" +
                FormatGrouped(total) + "), " + FormatFixed(mnist_time.ms, 3) + " ms/call";
  if (!hold.empty()) {
    std::set<std::string> names;  // sorted by bytes: code point order, as Python sorts
    for (const Call* c : hold) names.insert(c->dataset);
    std::string joined;
    for (const std::string& name : names) joined += (joined.empty() ? "" : "+") + name;
    out.summary += "; hold-out (" + joined + ") " + FormatPercent(hold_accuracy, 2) + ", " +
                   FormatFixed(hold_time.ms, 3) + " ms/call";
  }
  out.floored = mnist_time.floored || hold_time.floored;
  if (out.floored) out.summary += " (floored by the scorer's clock)";
  out.ranked_ms = std::max(mnist_time.ms, hold_time.ms);
  return out;
}

}  // namespace ratchet
