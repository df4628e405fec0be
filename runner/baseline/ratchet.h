// The ratchet: what a run's outcomes are held to. Given the baseline and what a run scored, the
// errors `ratchet run --baseline` reports, each with a stable code (docs/baseline.md), every one
// listed before the command exits; improvements are errors too, until promoted.
#ifndef RATCHET_BASELINE_RATCHET_H_
#define RATCHET_BASELINE_RATCHET_H_

#include <map>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "baseline/baseline.h"
#include "contract/contract_view.h"
#include "core/canonical_json.h"

namespace ratchet {

struct RatchetError {
  std::string code;    // "contract-changed", "outcome-changed", ...
  std::string record;  // empty for the run as a whole
  std::string message;
  bool operator==(const RatchetError& other) const {
    return code == other.code && record == other.record && message == other.message;
  }
};

// What the run did with one record of the baseline.
struct ScoredRecord {
  bool scored = false;  // its runs finished (false: the run stopped before it or in it)
  std::string sha256;   // of the submission file as scored
  Expected outcome;
  std::optional<double> ranked_ms;  // median of its runs, when qualified
  // When its time fell outside the tolerance: the median of the runs made again.
  std::optional<double> rerun_ranked_ms;
  // When its first outcome differed from the reviewed one by timing rules alone: that first
  // outcome; `outcome` and `ranked_ms` are then those of the runs made again.
  std::optional<Expected> first_outcome;
};

// One scoring of a record: what its runs came to.
struct Scoring {
  std::string sha256;  // of the submission file as scored
  Expected outcome;
  std::optional<double> ranked_ms;  // median of its runs, when qualified
};

// Why `ratchet run --baseline` scores a record once more before its outcome counts.
enum class ScoreAgain {
  kNo,
  kTimingRulesAlone,  // its outcome differs from the reviewed one by timing rules alone (any lane)
  kOutsideTolerance,  // on a reviewed GPU lane, its time lies outside the reviewed tolerance
};

// Whether record `id` of `baseline`, first scored as `first` on `lane` (a GPU lane when `gpu`),
// is scored once more. `ratchet run` decides by it; `ratchet promote` checks the run did.
ScoreAgain WhetherToScoreAgain(const Baseline& baseline, const std::string& id,
                               const std::string& lane, bool gpu, const Scoring& first);

// True when `a` and `b` differ and every rule broken in one but not the other is a timing rule
// (timing-call, timing-group, dispersion-slow, dispersion-fast): the rules a busy machine can
// break by chance, so that `ratchet run --baseline` scores such a record once more.
bool DiffersByTimingRulesAlone(const Expected& a, const Expected& b);

// The record as the ratchet compares it, from its first scoring and (when `why` is not kNo) the
// one made again: across timing rules alone, the second outcome and time; across a time outside
// the tolerance, the first outcome with both times, or the second outcome and time if it moved.
ScoredRecord CombineScorings(ScoreAgain why, const Scoring& first,
                             const std::optional<Scoring>& again);

// True when `reason` says nobody reviewed the outcome: empty, blank or "UNREVIEWED" (the rule
// `nonpass-unreviewed`, docs/baseline.md).
bool UnreviewedReason(const std::string& reason);

enum class TimingVerdict { kWithin, kRegressed, kImproved };
TimingVerdict CompareTiming(const LaneTiming& reviewed, double ranked_ms);

struct RatchetInputs {
  Json contract;                      // the run's contract
  Json rule_set;                      // the run's rule-set document
  std::vector<std::string> selected;  // the record ids the run was asked to score
  std::map<std::string, ScoredRecord> scored;
  bool require_lane = false;
  // Per record, the board its reviewed time on this run's lane was scored on (ReviewedBoard; ""
  // or absent when unknown). A lane is a kind of board, not one board: a time outside its
  // tolerance names both boards when they differ.
  std::map<std::string, std::string> reviewed_boards;
  // Records whose runs were scored on more than one lane (the shards of a sharded run): their
  // outcomes are compared, their times are not.
  std::set<std::string> untimed;
  // The machine's load average (1 minute) when the scoring ended, as `ratchet run` read it; named
  // in the note of an outcome that differs by timing rules alone on a CPU lane. Absent when the
  // ratchet is made again from evidence.
  std::optional<double> load_average;
};

struct RatchetResult {
  std::vector<RatchetError> errors;
  std::vector<std::string> notes;  // what is reported without failing (an unreviewed lane...)
  bool contract_changed = false;
  bool lane_reviewed = false;
  bool timings_compared = false;  // a reviewed GPU lane
};

// Whether the ratchet compares the timings of `contract`'s lane: a GPU lane, whose device kind is
// not "cpu" (a lane that names no device kind is taken for a CPU lane).
bool GpuLane(const ContractView& contract);
// The board of the evidence folder `path`: the `observed.device_uuid` of its contract.json; ""
// when that is not a readable JSON file or names no board (the time messages then name none).
std::string EvidenceBoard(const std::string& path);
// The board `record`'s reviewed time on `lane` was scored on: the one `ratchet promote` kept with
// that time; for a baseline promoted before it did, that of the record's reviewed evidence when
// its contract is of `lane` (a record promoted again on a reviewed lane), else that of the lane's
// reviewed evidence; "" when none is known. Relative paths are from `folder`, the baseline's.
std::string ReviewedBoard(const Baseline& baseline, const std::string& folder,
                          const std::string& lane, const std::string& record);

RatchetResult RatchetErrors(const Baseline& baseline, const RatchetInputs& inputs);

}  // namespace ratchet

#endif  // RATCHET_BASELINE_RATCHET_H_
