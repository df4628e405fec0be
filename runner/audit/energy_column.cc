#include "audit/energy_column.h"

#include <algorithm>

#include "audit/numbers.h"
#include "rules/pyformat.h"

namespace ratchet {
namespace {

// Reads the windows of a record; nullopt (with findings) when one is malformed.
std::optional<std::vector<EnergyWindow>> ParseWindows(const Json& list, const std::string& path,
                                                      FieldReader& reader) {
  std::vector<EnergyWindow> windows;
  bool ok = true;
  for (size_t i = 0; i < list.size(); ++i) {
    const std::string at = JoinPath(path, i);
    const Json& item = list[i];
    if (!reader.IsObject(item, at)) {
      ok = false;
      continue;
    }
    EnergyWindow w;
    std::optional<std::string> name = reader.String(item, at, "name");
    std::optional<double> seconds = reader.Number(item, at, "seconds");
    std::optional<double> joules = reader.Number(item, at, "joules");
    if (!name || !seconds || !joules) {
      ok = false;
      continue;
    }
    w.name = *name;
    w.seconds = *seconds;
    w.joules = *joules;
    if (IsIdleWindow(w.name)) {
      std::optional<int64_t> busy = reader.Integer(item, at, "utilization_max");
      if (!item.contains("contexts")) {
        reader.result()->Breaks(reader.Where(JoinPath(at, "contexts")), "missing");
        ok = false;
      } else if (!item["contexts"].is_null()) {
        std::optional<int64_t> contexts = reader.Integer(item, at, "contexts");
        if (!contexts) ok = false;
        w.contexts = contexts;
      }
      if (!busy) ok = false;
      w.utilization_max = busy.value_or(0);
    } else if (w.name == "reference") {
      std::optional<int64_t> matmuls = reader.Integer(item, at, "matmuls");
      std::optional<int64_t> dim = reader.Integer(item, at, "dim");
      std::optional<bool> exact = reader.Bool(item, at, "exact");
      if (!matmuls || !dim || !exact) {
        ok = false;
        continue;
      }
      if (*dim < 1 || *dim > (1 << 16) || *matmuls < 0 || *matmuls > (int64_t{1} << 24)) {
        reader.result()->Breaks(reader.Where(at),
                                "dim " + std::to_string(*dim) + " and matmuls " +
                                    std::to_string(*matmuls) +
                                    " are not what one reference window can hold");
        ok = false;
        continue;
      }
      w.matmuls = *matmuls;
      w.dim = *dim;
      w.exact = *exact;
    } else if (w.name == "control" || w.name == "method") {
      std::optional<int64_t> calls = reader.Integer(item, at, "calls");
      if (!calls) {
        ok = false;
        continue;
      }
      w.calls = *calls;
      if (w.name == "method") {
        const Json* ms = reader.Array(item, at, "ms");
        const Json* correct = reader.Array(item, at, "correct");
        if (!ms || !correct) {
          ok = false;
          continue;
        }
        for (size_t k = 0; k < ms->size(); ++k) {
          if (!(*ms)[k].is_number()) {
            reader.result()->Breaks(reader.Where(JoinPath(JoinPath(at, "ms"), k)),
                                    "expected a number, found " + JsonTypeName((*ms)[k]));
            ok = false;
            break;
          }
          w.ms.push_back((*ms)[k].get<double>());
        }
        for (size_t k = 0; k < correct->size(); ++k) {
          if (!(*correct)[k].is_number_integer()) {
            reader.result()->Breaks(reader.Where(JoinPath(JoinPath(at, "correct"), k)),
                                    "expected an integer, found " + JsonTypeName((*correct)[k]));
            ok = false;
            break;
          }
          w.correct.push_back((*correct)[k].get<int64_t>());
        }
      }
    }
    windows.push_back(std::move(w));
  }
  if (!ok) return std::nullopt;
  return windows;
}

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
      result.Breaks(reader.Where(JoinPath(at, "dim")),
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

}  // namespace

std::optional<EnergyColumn> AuditEnergy(const Json& energy, const std::string& path,
                                        FieldReader& reader, double timed_mnist_ms_median,
                                        int64_t band_bp, const RuleSet& rules) {
  FieldFindings& result = *reader.result();
  if (!reader.IsObject(energy, path)) return std::nullopt;
  if (!energy.contains("windows")) {
    // Not measured: the record says why, and claims no figure.
    std::optional<std::optional<double>> mj = reader.NullableNumber(energy, path, "mj_per_call");
    if (!mj) return std::nullopt;
    if (mj->has_value()) {
      result.Breaks(reader.Where(JoinPath(path, "mj_per_call")),
                    "a figure of " + ExactNumber(**mj) + " mJ with no windows to derive it from");
      return std::nullopt;
    }
    std::string reason = energy.value("reason", Json()).is_string()
                             ? energy["reason"].get<std::string>()
                             : "no reason given";
    result.Note(reader.Where(path), "the energy column was not measured: " + reason);
    return std::nullopt;
  }
  const Json* list = reader.Array(energy, path, "windows");
  const Json* device = reader.Object(energy, path, "device");
  if (!list || !device) return std::nullopt;
  const std::string windows_path = JoinPath(path, "windows");
  std::optional<std::vector<EnergyWindow>> windows = ParseWindows(*list, windows_path, reader);
  if (!windows) return std::nullopt;
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

  std::optional<std::optional<double>> mj = reader.NullableNumber(energy, path, "mj_per_call");
  if (!mj) {
    agrees = false;
  } else if (mj->has_value() != column->mj_per_call.has_value() ||
             (mj->has_value() && **mj != *column->mj_per_call)) {
    result.Breaks(reader.Where(JoinPath(path, "mj_per_call")),
                  "the record says " + (mj->has_value() ? ExactNumber(**mj) : std::string("null")) +
                      "; its windows give " +
                      (column->mj_per_call ? ExactNumber(*column->mj_per_call)
                                           : "none (" + column->problems.front() + ")"));
    agrees = false;
  }
  const Json* problems = reader.Array(energy, path, "problems");
  if (!problems) {
    agrees = false;
  } else if (*problems != Json(column->problems)) {
    result.Breaks(reader.Where(JoinPath(path, "problems")),
                  "the record lists " + JsonShown(*problems) + "; its windows give " +
                      JsonShown(Json(column->problems)));
    agrees = false;
  }
  CompareNumber(energy, path, "net_mj_before_control", column->net_mj_before_control, reader,
                &agrees);
  CompareNumber(energy, path, "control_mj_per_call", column->control_mj_per_call, reader, &agrees);
  CompareInteger(energy, path, "control_calls", column->control_calls, reader, &agrees);
  CompareNumber(energy, path, "gross_mj_per_call", column->gross_mj_per_call, reader, &agrees);
  CompareNumber(energy, path, "idle_w", column->idle_w, reader, &agrees);
  CompareNumber(energy, path, "active_w", column->active_w, reader, &agrees);
  CompareInteger(energy, path, "calls", column->calls, reader, &agrees);
  CompareNumber(energy, path, "seconds", column->seconds, reader, &agrees);
  CompareNumber(energy, path, "ms_median", column->ms_median, reader, &agrees);
  CompareNumber(energy, path, "timed_mnist_ms_median", column->timed_mnist_ms_median, reader,
                &agrees);
  CompareInteger(energy, path, "correct", column->correct, reader, &agrees);
  CompareInteger(energy, path, "total", column->total, reader, &agrees);
  const std::string ref_path = JoinPath(path, "reference");
  if (const Json* ref = reader.Object(energy, path, "reference")) {
    CompareNumber(*ref, ref_path, "tflops_per_s", column->tflops_per_s, reader, &agrees);
    CompareNumber(*ref, ref_path, "j_per_tflop", column->j_per_tflop, reader, &agrees);
    std::optional<bool> exact = reader.Bool(*ref, ref_path, "exact");
    if (exact && *exact != column->exact) {
      result.Breaks(reader.Where(JoinPath(ref_path, "exact")),
                    "does not match the reference window's");
      agrees = false;
    }
    // The band the record applied must be the rule set's, not one of its own.
    const Json band = BandJson(column->band);
    if (!ref->contains("band")) {
      result.Breaks(reader.Where(JoinPath(ref_path, "band")), "missing");
      agrees = false;
    } else if ((*ref)["band"] != band) {
      result.Breaks(reader.Where(JoinPath(ref_path, "band")),
                    "the record applied " + JsonShown((*ref)["band"]) + "; the rule set " +
                        rules.id + "'s band for " + device_name + " is " + JsonShown(band));
      agrees = false;
    }
  } else {
    agrees = false;
  }
  if (column->band == nullptr) {
    result.Note(reader.Where(JoinPath(path, "device.name")),
                "the rule set has no telemetry band for " + device_name +
                    ": the board's power telemetry is unchecked");
  }
  if (!agrees) return std::nullopt;
  return std::move(column).value();
}

}  // namespace ratchet
