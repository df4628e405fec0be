// What a harness upgrade does to every record: two evidence directories compared, the contract
// field by field and each record as same, regressed, improved, status-changed, added or removed.
// Pure: it decides from two sides as their verification left them (shard/verified_evidence.h: the
// audit's findings and the records as re-derived from their calls, never report.json's word) and
// never touches a baseline.
#ifndef RATCHET_COMPARE_COMPARE_H_
#define RATCHET_COMPARE_COMPARE_H_

#include <map>
#include <optional>
#include <string>
#include <vector>

#include "contract/contract.h"
#include "core/canonical_json.h"
#include "audit/result.h"

namespace ratchet {

// A timing differs when |B - A| > max(relative * A, absolute_ms).
struct CompareOptions {
  double relative = 0.05;
  double absolute_ms = 0.1;
};

enum class RecordCategory { kSame, kRegressed, kImproved, kStatusChanged, kAdded, kRemoved };
// "same", "regressed", "improved", "status-changed", "added", "removed".
const char* CategoryName(RecordCategory category);

// One record as its calls give it (audit/result.h, AuditedRecord).
struct RecordEntry {
  std::string status;                 // outcome.status: "qualified" or "disqualified"
  std::vector<std::string> broken;    // outcome.broken, sorted, without repeats
  std::optional<double> ranked_ms;    // null for a record that did not qualify
  std::optional<std::string> sha256;  // the submission's
  std::optional<double> band_bp;
  // The outcome and time are those of the record's second scoring in its run (`rerun`): the
  // ones `ratchet run` compared with the baseline.
  bool second_scoring = false;
};

struct RecordComparison {
  std::string id;
  RecordCategory category = RecordCategory::kSame;
  std::optional<RecordEntry> a, b;  // absent on the side that lacks the record
  // For status-changed, what changed, in words ("status qualified -> disqualified").
  std::vector<std::string> changes;
  std::optional<double> ratio;  // B / A of ranked_ms, when both have one and A's is above 0
  bool timing_compared = false;
  // Why the timings were not compared, when both have a ranked_ms and they were not.
  std::string timing_note;
};

// One evidence directory as the comparison sees it.
struct EvidenceSide {
  std::string path;
  // What its files say of the run: status.json's status, exit code and message (a sharded run's:
  // run.json's state, exit code and message).
  std::string status;
  int exit_code = -1;
  std::string message;
  // What its verification finds that breaks it, each "where: what".
  std::vector<std::string> problems;
  bool complete = false;  // its verification finds nothing that breaks it
  std::string lane_id;    // empty when the contract names none
  std::string device_kind;
};

struct Comparison {
  EvidenceSide a, b;
  std::vector<ContractDifference> locked;  // DiffContractPart(.., "locked")
  std::vector<ContractDifference> lane;    // DiffContractPart(.., "lane")
  bool same_lane = false;                  // both name a lane id, and it is one id
  bool timings_compared = false;           // one lane, and not a CPU lane
  // Why not, when not, in a few words: "CPU lane", "different lanes", "A names no lane", ...
  std::string timings_note;
  std::vector<RecordComparison> records;  // sorted by id

  // The counts of each category, indexed by RecordCategory.
  std::vector<int> Counts() const;
  // Both complete, the locked contracts equal and every record the same: the exit code 0.
  bool Same() const;
};

// One side as the comparison takes it.
struct ComparedSide {
  EvidenceSide side;
  // Its contract (contract.json; a sharded run's locked part and its shards' lane): the parts
  // `locked` and `lane` are compared. Null when unreadable (a problem says why).
  Json contract;
  std::map<std::string, RecordEntry> records;  // by id
};

Comparison CompareEvidence(const ComparedSide& a, const ComparedSide& b,
                           const CompareOptions& options);

// A record as the audit re-derived it from its runs: the scoring `ratchet run` compared (a
// record scored once more was held to that second scoring, its `rerun`, here as there).
RecordEntry EntryOfAudited(const AuditedRecord& record);

}  // namespace ratchet

#endif  // RATCHET_COMPARE_COMPARE_H_
