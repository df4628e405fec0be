// energy.json: a run's energy column as the evidence keeps it (docs/energy.md), and its entry in
// report.json (the same without its windows). This file owns its keys: the scorer writes it
// through the *Json functions, and every reader (the audit, the report's page, the scorer's own
// summary) reads it through the functions below, so that no other folder spells a key of it.
#ifndef RATCHET_ENERGY_ENERGY_FILE_H_
#define RATCHET_ENERGY_ENERGY_FILE_H_

#include <optional>
#include <string>
#include <vector>

#include "core/canonical_json.h"
#include "energy/column.h"
#include "evidence/fields.h"
#include "rules/rule_set.h"

namespace ratchet {

// The keys a reader names in its findings ("energy.json: mj_per_call").
inline constexpr char kEnergyMjKey[] = "mj_per_call";
inline constexpr char kEnergyProblemsKey[] = "problems";
inline constexpr char kEnergyReasonKey[] = "reason";
inline constexpr char kEnergyWindowsKey[] = "windows";
inline constexpr char kEnergyDeviceKey[] = "device";
inline constexpr char kEnergyReferenceKey[] = "reference";
inline constexpr char kEnergyBandKey[] = "band";
inline constexpr char kEnergyExactKey[] = "exact";
inline constexpr char kEnergyWindowDimKey[] = "dim";  // the reference window's matrix width

// --- Writing ---

// A reference band as a record gives it: [[J/TFLOP low, high], [TFLOP/s low, high]], or null.
Json BandJson(const ReferenceBand* band);
// One window as energy.json holds it: name, seconds and joules, and the fields of its kind.
Json EnergyWindowJson(const EnergyWindow& window);
// The figures of a column by key: every number energy.json gives of it but mj_per_call and the
// reference's; and the reference's (its throughput and joules per TFLOP).
Json EnergyFiguresJson(const EnergyColumn& column);
Json EnergyReferenceFiguresJson(const EnergyColumn& column);
// energy.json of a measured column: every figure of `column`, the reference's, the device as
// the board described it, and the windows; `extra`'s fields are added (how its draws were made).
Json EnergyColumnJson(const EnergyColumn& column, const std::vector<EnergyWindow>& windows,
                      const Json& device, const Json& extra);
// energy.json of a column that was not measured: mj_per_call null, and why.
Json EnergyNotMeasuredJson(const std::string& reason);
// Why a run whose workers named `device` (their hello's, "cpu" or another name that is not
// "cuda") has no column: the reason the scorer gives, and the audit requires, for such a lane.
std::string NoBoardReason(const Json& device);
// report.json's entry for `energy`: the file without its windows.
Json EnergySummaryJson(const Json& energy);

// --- Reading (a file, or report.json's entry for one) ---

// The figure `energy` claims: mj_per_call, when it is a number.
std::optional<double> ClaimedEnergyMj(const Json& energy);
// Whether `energy` is a measured column (it has windows), not a reason for none.
bool IsMeasuredColumn(const Json& energy);
// The board a measured column names (its "device" object), or null.
Json EnergyDevice(const Json& energy);
// The text of `energy` as a run prints it: its problems and its reason (when strings).
std::vector<std::string> EnergyProblemTexts(const Json& energy);
std::optional<std::string> EnergyReason(const Json& energy);
// The windows of a measured column at `path` of `reader`'s document, strictly: each field
// missing or mistyped is a finding, and then nullopt.
std::optional<std::vector<EnergyWindow>> ReadEnergyWindows(const Json& energy,
                                                           const std::string& path,
                                                           FieldReader& reader);

}  // namespace ratchet

#endif  // RATCHET_ENERGY_ENERGY_FILE_H_
