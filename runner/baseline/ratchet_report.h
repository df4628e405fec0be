// report.json's "ratchet" part: what `ratchet run --baseline` made of a run against the baseline
// (docs/evidence.md, "report.json"). The run writes it and `ratchet promote` reads it through this
// file alone; promote re-derives every field it acts on and refuses a part that disagrees.
#ifndef RATCHET_BASELINE_RATCHET_REPORT_H_
#define RATCHET_BASELINE_RATCHET_REPORT_H_

#include <optional>
#include <string>
#include <vector>

#include "baseline/ratchet.h"
#include "core/canonical_json.h"
#include "evidence/fields.h"

namespace ratchet {

inline constexpr char kRatchetReportKey[] = "ratchet";

struct RatchetReport {
  std::string baseline;         // the path as `ratchet run` was given it
  std::string baseline_sha256;  // of the very bytes the run compared with
  std::vector<RatchetError> errors;
  std::vector<std::string> notes;
  bool lane_reviewed = false;
  bool contract_changed = false;
  // --require-lane. A report written before the flag was kept has no field: false.
  bool require_lane = false;
  Json rule_set;  // the run's rule-set document
};

Json RatchetReportJson(const RatchetReport& part);

// The part under report.json's "ratchet" (`report` is the whole report, at `path` in its file:
// "" in report.json, "report" in a sharded run's run.json). nullopt, with findings naming each
// field, when it is missing or malformed.
std::optional<RatchetReport> ReadRatchetReport(const Json& report, FieldReader& reader,
                                               const std::string& path = "");

}  // namespace ratchet

#endif  // RATCHET_BASELINE_RATCHET_REPORT_H_
