#include "baseline/ratchet.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <filesystem>
#include <iterator>
#include <optional>
#include <set>
#include <vector>

#include "baseline/input_file.h"
#include "contract/contract.h"
#include "contract/contract_view.h"
#include "core/canonical_json.h"
#include "core/file.h"
#include "evidence/layout.h"
#include "evidence/reader.h"
#include "evidence/signature.h"
#include "rules/judge.h"
#include "rules/pyformat.h"

namespace ratchet {
namespace {

std::string Ms(double ms) {
  char text[32];
  std::snprintf(text, sizeof text, "%.3f ms", ms);
  return text;
}

std::string ValueText(const std::optional<Json>& value) {
  if (!value) return "(absent)";
  std::string text = value->dump();
  return text.size() > 80 ? text.substr(0, 77) + "..." : text;
}

}  // namespace

bool UnreviewedReason(const std::string& reason) {
  std::string trimmed = reason;
  trimmed.erase(0, trimmed.find_first_not_of(" \t\n"));
  trimmed.erase(trimmed.find_last_not_of(" \t\n") + 1);
  return trimmed.empty() || trimmed == "UNREVIEWED";
}

bool DiffersByTimingRulesAlone(const Expected& a, const Expected& b) {
  if (a == b) return false;
  static const std::set<std::string> kTimingRules = {kRuleTimingCall, kRuleTimingGroup,
                                                     kRuleDispersionSlow, kRuleDispersionFast};
  const std::set<std::string> in_a(a.broken.begin(), a.broken.end());
  const std::set<std::string> in_b(b.broken.begin(), b.broken.end());
  for (const std::string& rule : in_a) {
    if (!in_b.count(rule) && !kTimingRules.count(rule)) return false;
  }
  for (const std::string& rule : in_b) {
    if (!in_a.count(rule) && !kTimingRules.count(rule)) return false;
  }
  return true;
}

ScoreAgain WhetherToScoreAgain(const Baseline& baseline, const std::string& id,
                               const std::string& lane, bool gpu, const Scoring& first) {
  auto found = baseline.records.find(id);
  if (found == baseline.records.end()) return ScoreAgain::kNo;
  const BaselineRecord& record = found->second;
  if (!record.expected) {
    // A claimed record is held to its claim: a difference by timing rules alone may be chance.
    return record.claimed && DiffersByTimingRulesAlone(first.outcome, record.claimed->outcome)
               ? ScoreAgain::kTimingRulesAlone
               : ScoreAgain::kNo;
  }
  if (DiffersByTimingRulesAlone(first.outcome, *record.expected)) {
    return ScoreAgain::kTimingRulesAlone;
  }
  auto timing = record.timing.find(lane);
  if (gpu && first.ranked_ms && baseline.lanes.count(lane) && timing != record.timing.end() &&
      first.outcome == *record.expected &&
      CompareTiming(timing->second, *first.ranked_ms) != TimingVerdict::kWithin) {
    return ScoreAgain::kOutsideTolerance;
  }
  return ScoreAgain::kNo;
}

ScoredRecord CombineScorings(ScoreAgain why, const Scoring& first,
                             const std::optional<Scoring>& again) {
  ScoredRecord scored;
  scored.scored = true;
  scored.sha256 = first.sha256;
  scored.outcome = first.outcome;
  scored.ranked_ms = first.ranked_ms;
  if (why == ScoreAgain::kNo || !again) return scored;
  if (why == ScoreAgain::kTimingRulesAlone) {
    scored.first_outcome = first.outcome;
    scored.outcome = again->outcome;
    scored.ranked_ms = again->ranked_ms;
  } else if (again->outcome == first.outcome) {
    scored.rerun_ranked_ms = again->ranked_ms;
  } else {
    scored.outcome = again->outcome;  // the outcome moved: that is what is reported
    scored.ranked_ms = again->ranked_ms;
  }
  return scored;
}

TimingVerdict CompareTiming(const LaneTiming& reviewed, double ranked_ms) {
  const double allowed = std::max(reviewed.relative * reviewed.ranked_ms, reviewed.absolute_ms);
  if (ranked_ms > reviewed.ranked_ms + allowed) return TimingVerdict::kRegressed;
  if (ranked_ms < reviewed.ranked_ms - allowed) return TimingVerdict::kImproved;
  return TimingVerdict::kWithin;
}

bool GpuLane(const ContractView& contract) {
  return contract.device_kind().value_or("cpu") != "cpu";
}

namespace {

// The contract of the evidence folder `path`, or nothing when it is not a readable JSON file.
std::optional<ContractView> EvidenceContract(const std::string& path) {
  const std::string file = path + "/" + kContractFile;
  std::error_code error;
  if (!std::filesystem::is_regular_file(file, error)) return std::nullopt;
  Result<std::string> text = ReadFile(file, 1 << 20);
  if (!text.ok()) return std::nullopt;
  Result<Json> contract = ParseJson(*text, file);
  if (!contract.ok()) return std::nullopt;
  return ContractView(std::move(*contract));
}

}  // namespace

std::string EvidenceBoard(const std::string& path) {
  std::optional<ContractView> contract = EvidenceContract(path);
  return contract ? contract->device_uuid().value_or("") : "";
}

std::string ReviewedBoard(const Baseline& baseline, const std::string& folder,
                          const std::string& lane, const std::string& record) {
  auto reviewed = baseline.records.find(record);
  if (reviewed != baseline.records.end()) {
    auto timing = reviewed->second.timing.find(lane);
    if (timing != reviewed->second.timing.end() && !timing->second.board.empty())
      return timing->second.board;
  }
  // A baseline promoted before the board was kept with the time. A record promoted again on a
  // lane already reviewed has its time and evidence from then; the lane keeps the evidence of
  // its first review.
  if (reviewed != baseline.records.end() && reviewed->second.evidence) {
    std::optional<ContractView> contract =
        EvidenceContract(InBaselineFolder(folder, reviewed->second.evidence->path));
    if (contract && contract->lane_id().value_or("") == lane) {
      return contract->device_uuid().value_or("");
    }
  }
  auto reviewed_lane = baseline.lanes.find(lane);
  if (reviewed_lane == baseline.lanes.end() || reviewed_lane->second.evidence.empty()) return "";
  return EvidenceBoard(InBaselineFolder(folder, reviewed_lane->second.evidence));
}

namespace {

// A claimed record (`ratchet import`): reproduced when it scores the claimed outcome at the
// claimed band and, on a lane of the claim's board kind, a ranked time no slower than the
// claimed one beyond the default tolerance; on another kind of board only the outcome is
// compared. A claim is a claim of a time reached: faster than claimed reproduces it (the note says
// by how much, since two scorers need not time a method alike). Returns whether it reproduced.
bool HoldToClaim(const BaselineRecord& record, const ScoredRecord& scored,
                 const ContractView& contract, bool untimed, RatchetResult* result) {
  const ClaimedOutcome& claim = *record.claimed;
  const std::string& id = record.id;
  const std::string claimed = OutcomeText(claim.outcome) +
                              (claim.ranked_ms ? ", " + Ms(*claim.ranked_ms) : "") + " at " +
                              std::to_string(claim.band_bp) + " bp on " +
                              (claim.board.empty() ? "an unnamed board" : claim.board);
  if (record.band_bp != claim.band_bp) {
    result->errors.push_back(
        {"claim-not-reproduced", id,
         "claimed " + claimed + ", but the record is scored at " +
             (record.band_bp ? std::to_string(*record.band_bp) + " bp"
                             : "difficulty " + std::to_string(record.difficulty.value_or(0))) +
             ": score it at the claim's band"});
    return false;
  }
  if (!(scored.outcome == claim.outcome)) {
    const std::string scored_text =
        scored.first_outcome
            ? OutcomeText(*scored.first_outcome) + " and again " + OutcomeText(scored.outcome)
            : OutcomeText(scored.outcome);
    result->errors.push_back(
        {"claim-not-reproduced", id, "claimed " + claimed + "; scored " + scored_text});
    return false;
  }
  const std::string board = contract.device_name().value_or("");
  // Runs scored on several lanes (a sharded run's) have no one board's time to compare.
  const bool same_kind = GpuLane(contract) && !board.empty() && board == claim.board && !untimed;
  if (same_kind && claim.ranked_ms && scored.ranked_ms) {
    LaneTiming tolerance;
    tolerance.ranked_ms = *claim.ranked_ms;
    const double now = scored.rerun_ranked_ms ? *scored.rerun_ranked_ms : *scored.ranked_ms;
    if (CompareTiming(tolerance, *scored.ranked_ms) == TimingVerdict::kRegressed &&
        CompareTiming(tolerance, now) == TimingVerdict::kRegressed) {
      result->errors.push_back(
          {"claim-not-reproduced", id,
           "claimed " + claimed + "; scored " + Ms(*scored.ranked_ms) +
               (scored.rerun_ranked_ms ? " and again " + Ms(*scored.rerun_ranked_ms) : "") +
               ", slower than the claim beyond the tolerance (5%, at least 0.1 ms) on a board "
               "of the claim's kind"});
      return false;
    }
    const double best = std::min(*scored.ranked_ms, now);
    const bool faster = CompareTiming(tolerance, best) == TimingVerdict::kImproved;
    result->notes.push_back("claim-reproduced: " + id + ": claimed " + claimed + "; scored " +
                            Ms(best) + " on " + board +
                            (faster ? ", faster than claimed by " +
                                          FormatFixed(100.0 * (1 - best / *claim.ranked_ms), 1) +
                                          "% (the claim's scorer, " + claim.scorer +
                                          ", may time a method otherwise than this one)"
                                    : ", within the tolerance") +
                            ": review it and promote it");
    return true;
  }
  result->notes.push_back(
      "claim-reproduced: " + id + ": claimed " + claimed + "; scored " +
      OutcomeText(scored.outcome) + " at the same band on " +
      (GpuLane(contract) ? (board.empty() ? "an unnamed board" : board) : "a CPU lane") +
      ": the outcome only, since the claim's time was taken on another kind of board: review "
      "it and promote it");
  return true;
}

// The note of a record whose outcome on a CPU lane differs from the reviewed one by timing rules
// alone: the rules, both outcomes, and the machine's load when it is known.
std::string TimingRulesOnCpuNote(const std::string& id, const Expected& expected,
                                 const ScoredRecord& scored, const RatchetInputs& inputs) {
  const std::set<std::string> reviewed(expected.broken.begin(), expected.broken.end());
  const std::set<std::string> now(scored.outcome.broken.begin(), scored.outcome.broken.end());
  std::vector<std::string> moved;  // broken on one side only
  std::set_symmetric_difference(reviewed.begin(), reviewed.end(), now.begin(), now.end(),
                                std::back_inserter(moved));
  std::string rules;
  for (const std::string& rule : moved) rules += (rules.empty() ? "" : ", ") + rule;
  std::string note = id + ": timing rules alone (" + rules + ") on a CPU lane: expected " +
                     OutcomeText(expected) + ", scored " +
                     (scored.first_outcome ? OutcomeText(*scored.first_outcome) + " and again "
                                           : std::string()) +
                     OutcomeText(scored.outcome) +
                     "; they time the calls, which a busy machine moves, and a CPU lane's "
                     "timings are never compared";
  if (inputs.load_average) {
    note += " (the machine's load average was " + FormatFixed(*inputs.load_average, 2) +
            " when the scoring ended)";
  }
  return note;
}


// The locked contract's differences from the baseline's, and the rule set's constants that moved
// with it; true when there are any: across a change of the contract nothing else is compared.
bool ContractChanged(const Baseline& baseline, const RatchetInputs& inputs, RatchetResult* result) {
  const ContractView reviewed(BaselineContract(baseline));
  for (const ContractDifference& difference :
       DiffContractPart(reviewed.json(), inputs.contract, kContractLocked)) {
    result->errors.push_back({"contract-changed", "",
                              difference.path + ": reviewed " + ValueText(difference.a) + ", now " +
                                  ValueText(difference.b)});
  }
  if (!result->errors.empty() && !baseline.rule_set.is_null() && inputs.rule_set.is_object()) {
    // The rule set is locked by its hash; name the constants that moved.
    for (const ContractDifference& difference : DiffContractPart(
             Json{{"rules", baseline.rule_set}}, Json{{"rules", inputs.rule_set}}, "rules")) {
      result->errors.push_back({"contract-changed", "",
                                difference.path + ": reviewed " + ValueText(difference.a) +
                                    ", now " + ValueText(difference.b)});
    }
  }
  if (!result->errors.empty()) {
    result->contract_changed = true;
    if (reviewed.locked_harness().found() && !reviewed.locked_scorer().found()) {
      // A baseline reviewed before ratchet-scorer: its lock named every file of ratchet.
      result->notes.push_back(
          "the baseline locks the whole of ratchet (locked.harness, contract 1); this ratchet "
          "locks its scorer alone (locked.scorer, contract 2): move the baseline once, as "
          "docs/baseline.md (\"Moving a baseline to contract 2\") says: score it with --out, "
          "check with `ratchet compare` that every outcome is the same, then `ratchet promote "
          "--all-changed`");
    }
    result->notes.push_back(
        "the contract changed, so no outcome was compared with the baseline: review the change "
        "with `ratchet compare` against the baseline's evidence, then promote every record");
    return true;
  }
  return false;
}

// Whether this run's lane was reviewed, and so whether its times are compared.
void CheckLane(const Baseline& baseline, const RatchetInputs& inputs, const std::string& lane,
               bool gpu, RatchetResult* result) {
  result->lane_reviewed = baseline.lanes.count(lane) > 0;
  if (!result->lane_reviewed) {
    const std::string text = "lane " + lane +
                             " has not been reviewed in this baseline: outcomes "
                             "were compared, timings were not";
    if (inputs.require_lane) {
      result->errors.push_back({"lane-unreviewed", "", text});
    } else {
      result->notes.push_back(text);
    }
  } else if (!gpu) {
    result->notes.push_back("lane " + lane + " is a CPU lane: its timings are never compared");
  }
  result->timings_compared = result->lane_reviewed && gpu;
}

// Which boards a time outside its tolerance compares (a lane holds every board of its kind),
// for the message: "" when either is unknown.
std::string BoardsText(const RatchetInputs& inputs, const std::string& this_board,
                       const std::string& id) {
  auto reviewed = inputs.reviewed_boards.find(id);
  if (reviewed == inputs.reviewed_boards.end() || reviewed->second.empty() || this_board.empty())
    return "";
  if (reviewed->second == this_board) return ", on the same board, " + this_board;
  return " with board " + reviewed->second + "; this run's board is " + this_board +
         ", another board of the same lane, and boards of one lane can differ by more than the "
         "tolerance (docs/baseline.md): review the times on the board that runs the baseline";
}

// A record's ranked time against the one reviewed on this lane: within its tolerance, spurious
// (run again, within), or an error.
void CompareRecordTime(const std::string& id, const BaselineRecord& record,
                       const ScoredRecord& scored, const RatchetInputs& inputs,
                       const std::string& lane, const std::string& this_board,
                       RatchetResult* result) {
  if (inputs.untimed.count(id)) {
    result->notes.push_back(id + ": its runs were scored on more than one lane: its time " +
                            Ms(*scored.ranked_ms) + " was not compared");
    return;
  }
  auto timing = record.timing.find(lane);
  if (timing == record.timing.end()) {
    result->notes.push_back(id + ": no reviewed time on lane " + lane + "; scored " +
                            Ms(*scored.ranked_ms));
    return;
  }
  TimingVerdict verdict = CompareTiming(timing->second, *scored.ranked_ms);
  if (verdict == TimingVerdict::kWithin) return;
  if (scored.rerun_ranked_ms &&
      CompareTiming(timing->second, *scored.rerun_ranked_ms) == TimingVerdict::kWithin) {
    result->notes.push_back(id + ": spurious: " + Ms(*scored.ranked_ms) +
                            " was outside the tolerance of the reviewed " +
                            Ms(timing->second.ranked_ms) + "; run again it scored " +
                            Ms(*scored.rerun_ranked_ms));
    return;
  }
  const double now = scored.rerun_ranked_ms ? *scored.rerun_ranked_ms : *scored.ranked_ms;
  verdict = CompareTiming(timing->second, now);
  if (verdict == TimingVerdict::kWithin) verdict = CompareTiming(timing->second, *scored.ranked_ms);
  result->errors.push_back(
      {verdict == TimingVerdict::kRegressed ? "time-regressed" : "time-improved", id,
       "scored " + Ms(*scored.ranked_ms) +
           (scored.rerun_ranked_ms ? " and again " + Ms(*scored.rerun_ranked_ms) : "") +
           "; reviewed " + Ms(timing->second.ranked_ms) + " on lane " + lane +
           BoardsText(inputs, this_board, id)});
}

}  // namespace

RatchetResult RatchetErrors(const Baseline& baseline, const RatchetInputs& inputs) {
  RatchetResult result;
  if (ContractChanged(baseline, inputs, &result)) return result;
  const ContractView contract(inputs.contract);
  const std::string lane = contract.lane_id().value_or("");
  const bool gpu = GpuLane(contract);
  CheckLane(baseline, inputs, lane, gpu, &result);
  const std::string this_board = contract.device_uuid().value_or("");

  for (const std::string& id : inputs.selected) {
    auto found = baseline.records.find(id);
    if (found == baseline.records.end()) continue;  // the caller refuses unknown ids
    const BaselineRecord& record = found->second;
    auto scored_it = inputs.scored.find(id);
    if (scored_it == inputs.scored.end() || !scored_it->second.scored) {
      result.errors.push_back({"record-missing", id, "the run did not finish scoring it"});
      continue;
    }
    const ScoredRecord& scored = scored_it->second;
    if (!record.sha256.empty() && scored.sha256 != record.sha256) {
      result.errors.push_back({"submission-changed", id,
                               record.submission + " has sha256 " + scored.sha256 +
                                   "; the baseline reviewed " + record.sha256});
    }
    if (!record.expected && record.claimed) {
      // A claim reproduced is not a claim reviewed: the run passes only once it is promoted.
      if (HoldToClaim(record, scored, contract, inputs.untimed.count(id) > 0, &result)) {
        result.errors.push_back({"record-unreviewed", id,
                                 "its claim reproduced (the claim-reproduced note), but no outcome "
                                 "has been reviewed: review it and promote it"});
      }
      continue;
    }
    if (!record.expected) {
      result.errors.push_back({"record-unreviewed", id,
                               "no expected outcome has been reviewed; it scored " +
                                   OutcomeText(scored.outcome) + ": promote it"});
      continue;
    }
    if (record.expected->status != "qualified" && UnreviewedReason(record.reason)) {
      result.errors.push_back(
          {"nonpass-unreviewed", id,
           "expected " + OutcomeText(*record.expected) + " without a reviewed reason"});
    }
    if (!gpu && DiffersByTimingRulesAlone(scored.outcome, *record.expected)) {
      // A CPU lane's timing rules time the calls on a machine that may be busy with other work:
      // as its timings are never compared, an outcome they alone move is noted, not an error.
      result.notes.push_back(TimingRulesOnCpuNote(id, *record.expected, scored, inputs));
      continue;
    }
    if (!(scored.outcome == *record.expected)) {
      const bool better = scored.outcome.status == "qualified";
      const std::string scored_text =
          scored.first_outcome
              ? OutcomeText(*scored.first_outcome) + " and again " + OutcomeText(scored.outcome)
              : OutcomeText(scored.outcome);
      result.errors.push_back({"outcome-changed", id,
                               "expected " + OutcomeText(*record.expected) + ", scored " +
                                   scored_text +
                                   (better ? " (an improvement: review and promote it)" : "")});
      continue;
    }
    if (scored.first_outcome) {
      result.notes.push_back(id + ": spurious: scored " + OutcomeText(*scored.first_outcome) +
                             " (timing rules alone); run again it scored " +
                             OutcomeText(scored.outcome) + " as reviewed");
    }
    if (!result.timings_compared || !scored.ranked_ms) continue;
    CompareRecordTime(id, record, scored, inputs, lane, this_board, &result);
  }
  return result;
}

}  // namespace ratchet
