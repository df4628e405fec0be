// The audit of an energy column: its windows checked against the rule set's protocol and the
// column re-derived from them by the scorer's own function (energy/column.h), so that every
// figure a record gives compares to the bit; the telemetry reference is judged against the rule
// set's bands, not the record's.
#ifndef RATCHET_AUDIT_ENERGY_COLUMN_H_
#define RATCHET_AUDIT_ENERGY_COLUMN_H_

#include <cstdint>
#include <optional>
#include <string>

#include "core/canonical_json.h"
#include "core/status.h"
#include "energy/column.h"
#include "evidence/fields.h"
#include "rules/rule_set.h"

namespace ratchet {

// Audits a record's energy object at `path` of `reader`'s document: parses its windows, checks
// them against the protocol (names and order, lengths, counts), recomputes the column and
// compares every figure and the problems. A column that was not measured (mj_per_call null
// with a reason) is a note. Returns the recomputed column when the record's agrees with it.
std::optional<EnergyColumn> AuditEnergy(const Json& energy, const std::string& path,
                                        FieldReader& reader, double timed_mnist_ms_median,
                                        int64_t band_bp, const RuleSet& rules);

}  // namespace ratchet

#endif  // RATCHET_AUDIT_ENERGY_COLUMN_H_
