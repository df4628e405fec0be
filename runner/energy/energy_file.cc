#include "energy/energy_file.h"

namespace ratchet {

Json BandJson(const ReferenceBand* band) {
  if (band == nullptr) return Json();
  return Json::array({Json::array({band->j_per_tflop.low, band->j_per_tflop.high}),
                      Json::array({band->tflops_per_s.low, band->tflops_per_s.high})});
}

Json EnergyWindowJson(const EnergyWindow& w) {
  Json out = {{"name", w.name}, {"seconds", w.seconds}, {"joules", w.joules}};
  if (IsIdleWindow(w.name)) {
    out["utilization_max"] = w.utilization_max;
    out["contexts"] = w.contexts ? Json(*w.contexts) : Json();
  } else if (w.name == "reference") {
    out["matmuls"] = w.matmuls;
    out[kEnergyWindowDimKey] = w.dim;
    out["exact"] = w.exact;
  } else if (w.name == "control" || w.name == "method") {
    out["calls"] = w.calls;
    if (w.name == "method") {
      out["ms"] = w.ms;
      out["correct"] = w.correct;
    }
  }
  return out;
}

Json EnergyFiguresJson(const EnergyColumn& column) {
  return {{"net_mj_before_control", column.net_mj_before_control},
          {"control_mj_per_call", column.control_mj_per_call},
          {"control_calls", column.control_calls},
          {"gross_mj_per_call", column.gross_mj_per_call},
          {"idle_w", column.idle_w},
          {"active_w", column.active_w},
          {"calls", column.calls},
          {"seconds", column.seconds},
          {"ms_median", column.ms_median},
          {"timed_mnist_ms_median", column.timed_mnist_ms_median},
          {"correct", column.correct},
          {"total", column.total}};
}

Json EnergyReferenceFiguresJson(const EnergyColumn& column) {
  return {{"tflops_per_s", column.tflops_per_s}, {"j_per_tflop", column.j_per_tflop}};
}

Json EnergyColumnJson(const EnergyColumn& column, const std::vector<EnergyWindow>& windows,
                      const Json& device, const Json& extra) {
  Json list = Json::array();
  for (const EnergyWindow& w : windows) list.push_back(EnergyWindowJson(w));
  Json out = EnergyFiguresJson(column);
  out[kEnergyMjKey] = column.mj_per_call ? Json(*column.mj_per_call) : Json();
  out[kEnergyProblemsKey] = column.problems;
  Json reference = EnergyReferenceFiguresJson(column);
  reference[kEnergyExactKey] = column.exact;
  reference[kEnergyBandKey] = BandJson(column.band);
  out[kEnergyReferenceKey] = reference;
  out[kEnergyDeviceKey] = device;
  out[kEnergyWindowsKey] = list;
  for (auto it = extra.begin(); extra.is_object() && it != extra.end(); ++it) {
    out[it.key()] = it.value();
  }
  return out;
}

Json EnergyNotMeasuredJson(const std::string& reason) {
  return {{kEnergyMjKey, nullptr}, {kEnergyReasonKey, reason}};
}

std::string NoBoardReason(const Json& device) {
  const std::string lane = device.is_string() && device != Json("cpu")
                               ? "\"" + device.get<std::string>() + "\""
                               : std::string("CPU");
  return "a " + lane + " lane has no energy column (it is read from a GPU's energy counter)";
}

Json EnergySummaryJson(const Json& energy) {
  Json summary = energy;
  if (summary.is_object()) summary.erase(kEnergyWindowsKey);
  return summary;
}

std::optional<double> ClaimedEnergyMj(const Json& energy) {
  if (!energy.is_object()) return std::nullopt;
  const Json mj = energy.value(kEnergyMjKey, Json());
  if (!mj.is_number()) return std::nullopt;
  return mj.get<double>();
}

bool IsMeasuredColumn(const Json& energy) {
  return energy.is_object() && energy.contains(kEnergyWindowsKey);
}

Json EnergyDevice(const Json& energy) {
  if (!energy.is_object()) return Json();
  const Json device = energy.value(kEnergyDeviceKey, Json());
  return device.is_object() ? device : Json();
}

std::vector<std::string> EnergyProblemTexts(const Json& energy) {
  std::vector<std::string> texts;
  if (!energy.is_object()) return texts;
  for (const Json& problem : energy.value(kEnergyProblemsKey, Json::array())) {
    if (problem.is_string()) texts.push_back(problem.get<std::string>());
  }
  return texts;
}

std::optional<std::string> EnergyReason(const Json& energy) {
  if (!energy.is_object() || !energy.contains(kEnergyReasonKey) ||
      !energy[kEnergyReasonKey].is_string()) {
    return std::nullopt;
  }
  return energy[kEnergyReasonKey].get<std::string>();
}


std::optional<std::vector<EnergyWindow>> ReadEnergyWindows(const Json& energy,
                                                           const std::string& energy_path,
                                                           FieldReader& reader) {
  const Json* found = reader.Array(energy, energy_path, kEnergyWindowsKey);
  if (found == nullptr) return std::nullopt;
  const Json& list = *found;
  const std::string path = JoinPath(energy_path, kEnergyWindowsKey);
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
      std::optional<int64_t> dim = reader.Integer(item, at, kEnergyWindowDimKey);
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

}  // namespace ratchet
