#include "compare/compare.h"

#include <algorithm>
#include <cmath>
#include <map>
#include <set>

#include "contract/contract_view.h"
#include "evidence/layout.h"
#include "evidence/report_file.h"

namespace ratchet {
namespace {

// "[]" or "[accuracy, worker.exit]": a set of rule ids as the tables print it.
std::string RuleList(const std::vector<std::string>& rules) {
  std::string out = "[";
  for (size_t i = 0; i < rules.size(); ++i) out += (i ? ", " : "") + rules[i];
  return out + "]";
}

// 540 as "540", 2.5 as "2.5".
std::string NumberText(double value) {
  if (std::floor(value) == value && std::fabs(value) < 1e15) {
    return std::to_string(static_cast<long long>(value));
  }
  return Json(value).dump();
}

// What differs in what two entries of one record claim: the outcome, the rules broken, the
// submission's bytes and the band.
std::vector<std::string> OutcomeChanges(const RecordEntry& a, const RecordEntry& b) {
  std::vector<std::string> changes;
  if (a.status != b.status) changes.push_back("status " + a.status + " -> " + b.status);
  if (a.broken != b.broken) {
    changes.push_back("broken " + RuleList(a.broken) + " -> " + RuleList(b.broken));
  }
  if (a.sha256 != b.sha256) {
    changes.push_back("submission sha256 " + a.sha256.value_or("(none)") + " -> " +
                      b.sha256.value_or("(none)"));
  }
  if (a.band_bp != b.band_bp) {
    changes.push_back("band_bp " + (a.band_bp ? NumberText(*a.band_bp) : "(none)") + " -> " +
                      (b.band_bp ? NumberText(*b.band_bp) : "(none)"));
  }
  return changes;
}

}  // namespace

const char* CategoryName(RecordCategory category) {
  switch (category) {
    case RecordCategory::kSame:
      return "same";
    case RecordCategory::kRegressed:
      return "regressed";
    case RecordCategory::kImproved:
      return "improved";
    case RecordCategory::kStatusChanged:
      return "status-changed";
    case RecordCategory::kAdded:
      return "added";
    case RecordCategory::kRemoved:
      return "removed";
  }
  return "?";
}

std::vector<int> Comparison::Counts() const {
  std::vector<int> counts(6, 0);
  for (const RecordComparison& record : records) ++counts[static_cast<int>(record.category)];
  return counts;
}

bool Comparison::Same() const {
  if (!a.complete || !b.complete || !locked.empty()) return false;
  return std::all_of(records.begin(), records.end(), [](const RecordComparison& record) {
    return record.category == RecordCategory::kSame;
  });
}

RecordEntry EntryOfAudited(const AuditedRecord& record) {
  const AuditedScoring& scored = record.rerun ? *record.rerun : record.first;
  RecordEntry entry;
  entry.status = scored.qualified ? "qualified" : "disqualified";
  entry.broken = scored.broken;
  std::sort(entry.broken.begin(), entry.broken.end());
  entry.broken.erase(std::unique(entry.broken.begin(), entry.broken.end()), entry.broken.end());
  if (scored.qualified) entry.ranked_ms = scored.ranked_ms;
  entry.sha256 = record.first.sha256;
  entry.band_bp = static_cast<double>(record.first.band_bp);
  entry.second_scoring = record.rerun.has_value();
  return entry;
}

Comparison CompareEvidence(const ComparedSide& a, const ComparedSide& b,
                           const CompareOptions& options) {
  Comparison comparison;
  const std::map<std::string, RecordEntry>& records_a = a.records;
  const std::map<std::string, RecordEntry>& records_b = b.records;
  comparison.a = a.side;
  comparison.b = b.side;
  for (const auto& [side, contract] : {std::pair{&comparison.a, &a.contract},
                                       std::pair{&comparison.b, &b.contract}}) {
    const ContractView view(*contract);
    side->lane_id = view.lane_id().value_or("");
    side->device_kind = view.device_kind().value_or("");
  }
  comparison.locked = DiffContractPart(a.contract, b.contract, kContractLocked);
  comparison.lane = DiffContractPart(a.contract, b.contract, kContractLane);

  const std::string& lane_a = comparison.a.lane_id;
  const std::string& lane_b = comparison.b.lane_id;
  comparison.same_lane = !lane_a.empty() && lane_a == lane_b;
  if (lane_a.empty() || lane_b.empty()) {
    comparison.timings_note = std::string(lane_a.empty() ? "A" : "B") + " names no lane";
  } else if (!comparison.same_lane) {
    comparison.timings_note = "different lanes";
  } else if (!comparison.lane.empty()) {
    // One id over different facts: an id that is not that of the lane it stands for.
    comparison.timings_note = "one lane id over different lane fields";
  } else if (comparison.a.device_kind == "cpu") {
    comparison.timings_note = "CPU lane";
  } else if (comparison.a.device_kind.empty()) {
    comparison.timings_note = "the lane names no device kind";
  } else {
    comparison.timings_compared = true;
  }

  std::set<std::string> ids;
  for (const auto& [id, entry] : records_a) ids.insert(id);
  for (const auto& [id, entry] : records_b) ids.insert(id);
  for (const std::string& id : ids) {
    RecordComparison record;
    record.id = id;
    auto in_a = records_a.find(id);
    auto in_b = records_b.find(id);
    if (in_a != records_a.end()) record.a = in_a->second;
    if (in_b != records_b.end()) record.b = in_b->second;
    if (record.a && record.b && record.a->ranked_ms && record.b->ranked_ms &&
        *record.a->ranked_ms > 0) {
      record.ratio = *record.b->ranked_ms / *record.a->ranked_ms;
    }
    if (!record.a) {
      record.category = RecordCategory::kAdded;
    } else if (!record.b) {
      record.category = RecordCategory::kRemoved;
    } else if (!(record.changes = OutcomeChanges(*record.a, *record.b)).empty()) {
      record.category = RecordCategory::kStatusChanged;
    } else if (record.a->ranked_ms && record.b->ranked_ms) {
      // Same outcome, both timed: the timings decide, where they may be compared at all.
      if (!comparison.timings_compared) {
        record.timing_note = comparison.timings_note;
      } else {
        const double old_ms = *record.a->ranked_ms, new_ms = *record.b->ranked_ms;
        const double tolerance = std::max(options.relative * old_ms, options.absolute_ms);
        record.timing_compared = true;
        if (new_ms - old_ms > tolerance) {
          record.category = RecordCategory::kRegressed;
        } else if (old_ms - new_ms > tolerance) {
          record.category = RecordCategory::kImproved;
        }
      }
    } else if (record.a->ranked_ms || record.b->ranked_ms) {
      record.timing_note =
          std::string(record.a->ranked_ms ? "B" : "A") + " has no ranked_ms for it";
    }
    comparison.records.push_back(std::move(record));
  }
  return comparison;
}

}  // namespace ratchet
