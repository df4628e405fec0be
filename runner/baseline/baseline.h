// The baseline, `records.json`: the reviewed contract, the reviewed lanes, and per record the
// reviewed outcome, timings and reason (docs/baseline.md). Parsed strictly: an unknown field, a
// wrong type or a value out of range is an error naming the file, the record and the field path.
// Written whole and atomically, in one spelling (canonical JSON, indented), so that a reviewer's
// diff shows only what changed.
#ifndef RATCHET_BASELINE_BASELINE_H_
#define RATCHET_BASELINE_BASELINE_H_

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "core/canonical_json.h"
#include "core/status.h"

namespace ratchet {

inline constexpr char kBaselineSchema[] = "ratchet.baseline/1";

// A timing on one lane, and how far a new one may lie from it: |new - ranked_ms| may be at most
// max(relative * ranked_ms, absolute_ms).
struct LaneTiming {
  double ranked_ms = 0;
  double relative = 0.05;
  double absolute_ms = 0.1;
  // The board ranked_ms was scored on (the evidence's `observed.device_uuid`), written by
  // `ratchet promote`; "" when unknown (a baseline promoted before it was kept).
  std::string board;
};

struct LaneEnergy {
  double mj_per_call = 0;
  double relative = 0.10;
};

struct Expected {
  std::string status;               // "qualified" or "disqualified"
  std::vector<std::string> broken;  // rule ids, sorted, each once; empty when qualified
  bool operator==(const Expected& other) const {
    return status == other.status && broken == other.broken;
  }
};

struct EvidenceRef {
  std::string path;  // relative to the baseline's folder, or absolute
  std::string manifest_sha256;
};

// A published claim `ratchet import` took in: what the reference scorer's records say, audited
// but not reviewed. `ratchet run --baseline` reports whether it reproduces (claim-reproduced,
// claim-not-reproduced); `ratchet promote` reviews it like any record.
struct ClaimFile {
  std::string path;  // as import was given it, relative to the baseline's folder when inside it
  std::string sha256;
};
struct ClaimedOutcome {
  Expected outcome;
  int64_t band_bp = 0;
  std::optional<double> ranked_ms;  // the median of the claims' ranked times, when qualified
  std::string board;                // the board kind they were scored on: the records' "device"
  std::string scorer;               // the scorer version that made them: the records' "version"
  std::vector<ClaimFile> claims;
};

struct BaselineRecord {
  std::string id;
  std::string submission;  // relative to the baseline's folder, or absolute
  std::string function;    // empty: the file's single function (Python) or "method" (native)
  std::string sha256;      // of the submission file's bytes; empty until first promoted
  std::optional<int64_t> difficulty;
  std::optional<int64_t> band_bp;            // exactly one of difficulty and band_bp
  std::optional<int64_t> runs;               // default: 1 on a CPU lane, 3 on a GPU lane
  std::optional<std::string> device;         // "cuda": scored only on a GPU lane
  std::optional<Expected> expected;          // absent: never reviewed
  std::map<std::string, LaneTiming> timing;  // by lane id
  std::map<std::string, LaneEnergy> energy;  // by lane id
  std::string reason;       // why the expected outcome is right; required for a non-qualified one
  std::string reviewed_by;  // who promoted it
  std::optional<std::string> reviewed_commit;  // the baseline repository's commit then
  std::optional<bool> reviewed_clean;          // whether its tree was clean then
  std::optional<EvidenceRef> evidence;
  std::optional<ClaimedOutcome> claimed;  // imported from published claims
};

struct ReviewedLane {
  Json facts;  // the contract's lane object
  std::string by, reason, evidence;
};

struct Baseline {
  Json locked;    // the contract's "locked" object
  Json rule_set;  // the rule set's document that `locked.rules.sha256` names; null if not kept
  std::map<std::string, ReviewedLane> lanes;
  std::map<std::string, BaselineRecord> records;
  // The reviewers' public keys (64 hex digits, `ratchet key new`) by name. When there are any,
  // `ratchet promote` accepts only evidence signed by one of them.
  std::map<std::string, std::string> reviewers;
};

// The name under which `baseline` lists the public key `public_hex` among its reviewers; "" when
// it does not.
std::string ReviewerOf(const Baseline& baseline, const std::string& public_hex);

// `what` names the file in messages.
Result<Baseline> ParseBaseline(std::string_view text, const std::string& what);

// The most bytes a baseline may hold; a larger file is refused, naming the limit.
inline constexpr size_t kMaxBaselineBytes = 64 << 20;

// Reads and parses `path`: a missing file, a folder, a FIFO or a device, or a file over
// kMaxBaselineBytes is BadInput naming it. `sha256`, when
// given, receives the sha256 of the very bytes parsed.
Result<Baseline> LoadBaseline(const std::string& path, std::string* sha256 = nullptr);
Json BaselineJson(const Baseline& baseline);
// The reviewed contract as the baseline keeps it (its `contract` field): `locked`, and the
// rule-set document beside it when kept. A run's contract.json is compared with it.
Json BaselineContract(const Baseline& baseline);
// The file's bytes: canonical key order, two-space indent, a newline at the end.
Result<std::string> BaselineText(const Baseline& baseline);
// Replaces `path` atomically (a temporary file renamed over it): never half-written.
Status WriteBaseline(const std::string& path, const Baseline& baseline);

// "qualified", or "disqualified (accuracy, draw-floor)": an outcome as messages and tables name it.
std::string OutcomeText(const Expected& outcome);

// A path the baseline names (a submission, an evidence folder), as it is found: relative paths are
// relative to the baseline's folder `folder` ("" or "." for the working folder), absolute ones as
// they are.
std::string InBaselineFolder(const std::string& folder, const std::string& path);

// A record id: 1-100 characters of [A-Za-z0-9._-], not starting with '.' (it names a folder of
// the evidence).
Status CheckRecordId(const std::string& id, const std::string& what);

}  // namespace ratchet

#endif  // RATCHET_BASELINE_BASELINE_H_
