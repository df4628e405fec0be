#include "audit/energy_column.h"

#include <algorithm>

#include "audit/numbers.h"
#include "energy/energy_file.h"
#include "rules/pyformat.h"

namespace ratchet {
namespace {

// The protocol's shape of the windows: the seven in order, each at least as long as the rule
// set makes it, every count consistent. Each departure is a finding.
bool CheckWindows(const std::vector<EnergyWindow>& windows, const std::string& path,
                  FieldReader& reader, const RuleSet& rules) {
  FieldFindings& result = *reader.result();
  bool ok = true;
  std::vector<std::string> names;
  for (const EnergyWindow& w : windows) names.push_back(w.name);
  const std::vector<std::string>& expected = EnergyWindowOrder();
  if (names != expected) {
    std::string listed;
    for (const std::string& name : names) listed += (listed.empty() ? "" : ", ") + name;
    result.Breaks(reader.Where(path), "the windows are [" + listed +
                                          "]; the protocol measures idle 1, reference, idle 2, "
                                          "control, idle 3, method, idle 4, in that order");
    ok = false;
  }
  const RuleSet::Energy& e = rules.energy;
  for (size_t i = 0; i < windows.size(); ++i) {
    const EnergyWindow& w = windows[i];
    const std::string at = JoinPath(path, i);
    double least = 0;
    if (IsIdleWindow(w.name)) least = e.idle_s;
    if (w.name == "reference") least = e.reference_s;
    if (w.name == "control") least = e.control_window_s;
    if (w.name == "method") least = e.energy_window_s;
    if (w.seconds < least) {
      result.Breaks(reader.Where(JoinPath(at, "seconds")),
                    "the " + w.name + " window lasted " + ExactNumber(w.seconds) +
                        " s; the rule set's protocol keeps it open at least " +
                        FormatGeneral(least) + " s");
      ok = false;
    }
    if (w.name == "reference" && w.dim != e.reference_dim) {
      result.Breaks(reader.Where(JoinPath(at, kEnergyWindowDimKey)),
                    "the reference multiplied " + std::to_string(w.dim) +
                        "-wide matrices; the rule set's are " + std::to_string(e.reference_dim));
      ok = false;
    }
    if ((w.name == "control" || w.name == "method") && w.calls < e.energy_min_calls) {
      result.Breaks(reader.Where(JoinPath(at, "calls")),
                    std::to_string(w.calls) + " calls; the rule set's protocol makes at least " +
                        std::to_string(e.energy_min_calls));
      ok = false;
    }
    if (w.name == "method") {
      if (w.ms.size() != static_cast<size_t>(w.calls) ||
          w.correct.size() != static_cast<size_t>(w.calls)) {
        result.Breaks(reader.Where(at), std::to_string(w.calls) + " calls, but " +
                                            std::to_string(w.ms.size()) + " times and " +
                                            std::to_string(w.correct.size()) +
                                            " counts of correct labels");
        ok = false;
      }
      for (size_t k = 0; k < w.correct.size(); ++k) {
        if (w.correct[k] < 0 || w.correct[k] > rules.draw.test) {
          result.Breaks(reader.Where(JoinPath(JoinPath(at, "correct"), k)),
                        std::to_string(w.correct[k]) + " correct of " +
                            std::to_string(rules.draw.test) + " is not a count of labels");
          ok = false;
          break;
        }
      }
    }
  }
  return ok;
}

// One figure of the record against its recomputed value, to the bit.
void CompareNumber(const Json& energy, const std::string& path, const std::string& key,
                   double expected, FieldReader& reader, bool* agrees) {
  std::optional<double> recorded = reader.Number(energy, path, key);
  if (!recorded) {
    *agrees = false;
    return;
  }
  if (*recorded != expected) {
    reader.result()->Breaks(reader.Where(JoinPath(path, key)),
                            "the record says " + ExactNumber(*recorded) + "; its windows give " +
                                ExactNumber(expected));
    *agrees = false;
  }
}

void CompareInteger(const Json& energy, const std::string& path, const std::string& key,
                    int64_t expected, FieldReader& reader, bool* agrees) {
  std::optional<int64_t> recorded = reader.Integer(energy, path, key);
  if (!recorded) {
    *agrees = false;
    return;
  }
  if (*recorded != expected) {
    reader.result()->Breaks(reader.Where(JoinPath(path, key)),
                            "the record says " + std::to_string(*recorded) + "; its windows give " +
                                std::to_string(expected));
    *agrees = false;
  }
}

// Each figure of `expected` (the writer's, from the recomputed column) against the record's.
void CompareFigures(const Json& energy, const std::string& path, const Json& expected,
                    FieldReader& reader, bool* agrees) {
  for (auto it = expected.begin(); it != expected.end(); ++it) {
    if (it->is_number_integer()) {
      CompareInteger(energy, path, it.key(), it->get<int64_t>(), reader, agrees);
    } else {
      CompareNumber(energy, path, it.key(), it->get<double>(), reader, agrees);
    }
  }
}

}  // namespace

std::optional<EnergyColumn> AuditEnergy(const Json& energy, const std::string& path,
                                        FieldReader& reader, double timed_mnist_ms_median,
                                        int64_t band_bp, const RuleSet& rules) {
  FieldFindings& result = *reader.result();
  if (!reader.IsObject(energy, path)) return std::nullopt;
  if (!IsMeasuredColumn(energy)) {
    // Not measured: the record says why, and claims no figure.
    std::optional<std::optional<double>> mj = reader.NullableNumber(energy, path, kEnergyMjKey);
    if (!mj) return std::nullopt;
    if (mj->has_value()) {
      result.Breaks(reader.Where(JoinPath(path, kEnergyMjKey)),
                    "a figure of " + ExactNumber(**mj) + " mJ with no windows to derive it from");
      return std::nullopt;
    }
    result.Note(reader.Where(path), "the energy column was not measured: " +
                                        EnergyReason(energy).value_or("no reason given"));
    return std::nullopt;
  }
  std::optional<std::vector<EnergyWindow>> windows = ReadEnergyWindows(energy, path, reader);
  const Json* device = reader.Object(energy, path, kEnergyDeviceKey);
  if (!windows || !device) return std::nullopt;
  const std::string windows_path = JoinPath(path, kEnergyWindowsKey);
  bool agrees = CheckWindows(*windows, windows_path, reader, rules);
  // The name as the protocol matched it: a missing or non-string name never matches a band.
  const Json name = device->value("name", Json());
  const std::string device_name = name.is_string() ? name.get<std::string>() : "None";
  Result<EnergyColumn> column =
      RecomputeEnergy(*windows, device_name, timed_mnist_ms_median, band_bp, rules);
  if (!column.ok()) {
    result.Breaks(reader.Where(windows_path),
                  "the column cannot be recomputed: " + column.status().message());
    return std::nullopt;
  }

  std::optional<std::optional<double>> mj = reader.NullableNumber(energy, path, kEnergyMjKey);
  if (!mj) {
    agrees = false;
  } else if (mj->has_value() != column->mj_per_call.has_value() ||
             (mj->has_value() && **mj != *column->mj_per_call)) {
    result.Breaks(reader.Where(JoinPath(path, kEnergyMjKey)),
                  "the record says " + (mj->has_value() ? ExactNumber(**mj) : std::string("null")) +
                      "; its windows give " +
                      (column->mj_per_call ? ExactNumber(*column->mj_per_call)
                                           : "none (" + column->problems.front() + ")"));
    agrees = false;
  }
  const Json* problems = reader.Array(energy, path, kEnergyProblemsKey);
  if (!problems) {
    agrees = false;
  } else if (*problems != Json(column->problems)) {
    result.Breaks(reader.Where(JoinPath(path, kEnergyProblemsKey)),
                  "the record lists " + JsonShown(*problems) + "; its windows give " +
                      JsonShown(Json(column->problems)));
    agrees = false;
  }
  // Every other figure, as the scorer's own writer gives it from the recomputed column.
  CompareFigures(energy, path, EnergyFiguresJson(*column), reader, &agrees);
  const std::string ref_path = JoinPath(path, kEnergyReferenceKey);
  if (const Json* ref = reader.Object(energy, path, kEnergyReferenceKey)) {
    CompareFigures(*ref, ref_path, EnergyReferenceFiguresJson(*column), reader, &agrees);
    std::optional<bool> exact = reader.Bool(*ref, ref_path, kEnergyExactKey);
    if (exact && *exact != column->exact) {
      result.Breaks(reader.Where(JoinPath(ref_path, kEnergyExactKey)),
                    "does not match the reference window's");
      agrees = false;
    }
    // The band the record applied must be the rule set's, not one of its own.
    const Json band = BandJson(column->band);
    if (!ref->contains(kEnergyBandKey)) {
      result.Breaks(reader.Where(JoinPath(ref_path, kEnergyBandKey)), "missing");
      agrees = false;
    } else if ((*ref)[kEnergyBandKey] != band) {
      result.Breaks(reader.Where(JoinPath(ref_path, kEnergyBandKey)),
                    "the record applied " + JsonShown((*ref)[kEnergyBandKey]) + "; the rule set " +
                        rules.id + "'s band for " + device_name + " is " + JsonShown(band));
      agrees = false;
    }
  } else {
    agrees = false;
  }
  if (column->band == nullptr) {
    result.Note(reader.Where(JoinPath(JoinPath(path, kEnergyDeviceKey), "name")),
                "the rule set has no telemetry band for " + device_name +
                    ": the board's power telemetry is unchecked");
  }
  if (!agrees) return std::nullopt;
  return std::move(column).value();
}

}  // namespace ratchet
