#include "baseline/ratchet_report.h"

namespace ratchet {

Json RatchetReportJson(const RatchetReport& part) {
  Json errors = Json::array();
  for (const RatchetError& error : part.errors) {
    errors.push_back({{"code", error.code}, {"record", error.record}, {"message", error.message}});
  }
  return Json{{"baseline", part.baseline},
              {"baseline_sha256", part.baseline_sha256},
              {"errors", errors},
              {"notes", part.notes},
              {"lane_reviewed", part.lane_reviewed},
              {"contract_changed", part.contract_changed},
              {"require_lane", part.require_lane},
              {"rule_set", part.rule_set}};
}

std::optional<RatchetReport> ReadRatchetReport(const Json& report, FieldReader& reader,
                                               const std::string& report_path) {
  const Json* part = reader.Object(report, report_path, kRatchetReportKey);
  if (part == nullptr) return std::nullopt;
  const std::string path = JoinPath(report_path, kRatchetReportKey);
  RatchetReport out;
  std::optional<std::string> baseline = reader.String(*part, path, "baseline");
  std::optional<std::string> sha256 = reader.String(*part, path, "baseline_sha256");
  std::optional<bool> lane_reviewed = reader.Bool(*part, path, "lane_reviewed");
  std::optional<bool> contract_changed = reader.Bool(*part, path, "contract_changed");
  const Json* rule_set = reader.Object(*part, path, "rule_set");
  if (part->contains("require_lane")) {
    std::optional<bool> require_lane = reader.Bool(*part, path, "require_lane");
    out.require_lane = require_lane.value_or(false);
  }
  if (const Json* errors = reader.Array(*part, path, "errors")) {
    for (size_t i = 0; i < errors->size(); ++i) {
      const std::string at = JoinPath(JoinPath(path, "errors"), i);
      const Json& error = (*errors)[i];
      if (!reader.IsObject(error, at)) continue;
      std::optional<std::string> code = reader.String(error, at, "code");
      std::optional<std::string> record = reader.String(error, at, "record");
      std::optional<std::string> message = reader.String(error, at, "message");
      if (code && record && message) out.errors.push_back({*code, *record, *message});
    }
  }
  bool bad_note = false;
  if (const Json* notes = reader.Array(*part, path, "notes")) {
    for (size_t i = 0; i < notes->size(); ++i) {
      if ((*notes)[i].is_string()) {
        out.notes.push_back((*notes)[i].get<std::string>());
      } else {
        reader.result()->Breaks(reader.Where(JoinPath(JoinPath(path, "notes"), i)),
                                "expected a string, found " + JsonTypeName((*notes)[i]));
        bad_note = true;
      }
    }
  }
  if (reader.failed() || bad_note || !baseline || !sha256 || !lane_reviewed || !contract_changed ||
      rule_set == nullptr) {
    return std::nullopt;
  }
  out.baseline = *baseline;
  out.baseline_sha256 = *sha256;
  out.lane_reviewed = *lane_reviewed;
  out.contract_changed = *contract_changed;
  out.rule_set = *rule_set;
  return out;
}

}  // namespace ratchet
