#include "evidence/report_file.h"

namespace ratchet {
namespace {

// The keys of a run entry that a refusal does not have.
constexpr const char* kPlannedRunKeys[] = {"ranked_ms", "summary", "holdout", "warmup",
                                           "single_foreign"};

Json OptionalNumberJson(const std::optional<double>& value) {
  return value ? Json(*value) : Json();
}

// An array of strings at object[key], or nullopt (with a finding naming the element).
std::optional<std::vector<std::string>> Strings(const Json& object, const std::string& path,
                                                const std::string& key, FieldReader& reader) {
  const Json* list = reader.Array(object, path, key);
  if (list == nullptr) return std::nullopt;
  std::vector<std::string> out;
  bool ok = true;
  for (size_t i = 0; i < list->size(); ++i) {
    const Json& item = (*list)[i];
    if (!item.is_string()) {
      reader.result()->Breaks(reader.Where(JoinPath(JoinPath(path, key), i)),
                              "expected a string, found " + JsonTypeName(item));
      ok = false;
      continue;
    }
    out.push_back(item.get<std::string>());
  }
  if (!ok) return std::nullopt;
  return out;
}

}  // namespace

Json ReportRunJson(const ReportRun& run) {
  Json out = {
      {"run", run.run}, {"qualified", run.qualified}, {"problems", ProblemsJson(run.problems)}};
  if (run.refused) return out;
  out["ranked_ms"] = OptionalNumberJson(run.ranked_ms);
  out["summary"] = run.summary ? Json(*run.summary) : Json();
  out["holdout"] = run.holdout;
  out["warmup"] = run.warmup;
  out["single_foreign"] = run.single_foreign;
  if (!run.energy.is_null()) out["energy"] = run.energy;
  return out;
}

Json ReportEntryJson(const ReportEntry& entry) {
  Json runs = Json::array();
  for (const ReportRun& run : entry.runs) runs.push_back(ReportRunJson(run));
  return {{"submission", entry.submission},
          {"function", entry.function},
          {"sha256", entry.sha256},
          {"band_bp", entry.band_bp},
          {"outcome", {{"status", entry.status()}, {"broken", entry.broken}}},
          {"ranked_ms", OptionalNumberJson(entry.ranked_ms)},
          {"energy",
           {{"mj_per_call", OptionalNumberJson(entry.energy_mj)},
            {"runs_measured", entry.energy_runs_measured}}},
          {"review_flags", entry.review_flags},
          {"runs", runs}};
}

Json ReportRecordJson(const ReportRecord& record) {
  Json out = ReportEntryJson(record.first);
  if (record.rerun) out["rerun"] = ReportEntryJson(*record.rerun);
  return out;
}

Json ReportRecordsJson(const std::map<std::string, ReportRecord>& records) {
  Json by_id = Json::object();
  for (const auto& [id, record] : records) by_id[id] = ReportRecordJson(record);
  return by_id;
}

Json ReportJson(const std::string& sandbox, const std::map<std::string, ReportRecord>& records,
                const Json& extra) {
  Json report = {
      {"schema", kReportSchema}, {"sandbox", sandbox}, {"records", ReportRecordsJson(records)}};
  for (auto it = extra.begin(); extra.is_object() && it != extra.end(); ++it) {
    report[it.key()] = it.value();
  }
  return report;
}

std::optional<ReportRun> ReadReportRun(const Json& value, const std::string& path,
                                       FieldReader& reader) {
  if (!reader.IsObject(value, path)) return std::nullopt;
  ReportRun run;
  std::optional<int64_t> number = reader.Integer(value, path, "run");
  std::optional<bool> qualified = reader.Bool(value, path, "qualified");
  const Json* problems = reader.Array(value, path, "problems");
  bool ok = number && qualified && problems;
  if (problems) {
    for (size_t i = 0; i < problems->size(); ++i) {
      const std::string at = JoinPath(JoinPath(path, "problems"), i);
      if (!reader.IsObject((*problems)[i], at)) {
        ok = false;
        continue;
      }
      std::optional<std::string> rule = reader.String((*problems)[i], at, "rule");
      std::optional<std::string> message = reader.String((*problems)[i], at, "message");
      if (rule && message) {
        run.problems.push_back({*rule, *message});
      } else {
        ok = false;
      }
    }
  }
  run.refused = true;
  for (const char* key : kPlannedRunKeys) {
    if (value.contains(key)) run.refused = false;
  }
  if (!run.refused) {
    std::optional<std::optional<double>> ranked = reader.NullableNumber(value, path, "ranked_ms");
    std::optional<std::optional<std::string>> summary =
        reader.NullableString(value, path, "summary");
    std::optional<std::string> holdout = reader.String(value, path, "holdout");
    std::optional<std::string> warmup = reader.String(value, path, "warmup");
    std::optional<bool> single = reader.Bool(value, path, "single_foreign");
    if (ranked && summary && holdout && warmup && single) {
      run.ranked_ms = *ranked;
      run.summary = *summary;
      run.holdout = *holdout;
      run.warmup = *warmup;
      run.single_foreign = *single;
    } else {
      ok = false;
    }
    if (value.contains("energy")) {
      if (const Json* energy = reader.Object(value, path, "energy")) {
        run.energy = *energy;
      } else {
        ok = false;
      }
    }
  } else if (value.contains("energy")) {
    reader.result()->Breaks(reader.Where(JoinPath(path, "energy")),
                            "an energy column for a run that was refused before it was planned");
    ok = false;
  }
  if (!ok) return std::nullopt;
  run.run = *number;
  run.qualified = *qualified;
  return run;
}

std::optional<ReportEntry> ReadReportEntry(const Json& value, const std::string& path,
                                           FieldReader& reader) {
  if (!reader.IsObject(value, path)) return std::nullopt;
  ReportEntry entry;
  std::optional<std::string> submission = reader.String(value, path, "submission");
  std::optional<std::string> function = reader.String(value, path, "function");
  std::optional<std::string> sha256 = reader.String(value, path, "sha256");
  std::optional<int64_t> band_bp = reader.Integer(value, path, "band_bp");
  std::optional<std::optional<double>> ranked = reader.NullableNumber(value, path, "ranked_ms");
  std::optional<std::vector<std::string>> flags = Strings(value, path, "review_flags", reader);
  bool ok = submission && function && sha256 && band_bp && ranked && flags;

  const std::string outcome_path = JoinPath(path, "outcome");
  if (const Json* outcome = reader.Object(value, path, "outcome")) {
    std::optional<std::string> status = reader.String(*outcome, outcome_path, "status");
    std::optional<std::vector<std::string>> broken =
        Strings(*outcome, outcome_path, "broken", reader);
    if (status && *status != "qualified" && *status != "disqualified") {
      reader.result()->Breaks(
          reader.Where(JoinPath(outcome_path, "status")),
          JsonShown(Json(*status)) + ", expected \"qualified\" or \"disqualified\"");
      ok = false;
    } else if (status && broken) {
      entry.qualified = *status == "qualified";
      entry.broken = *broken;
    } else {
      ok = false;
    }
  } else {
    ok = false;
  }

  const std::string energy_path = JoinPath(path, "energy");
  if (const Json* energy = reader.Object(value, path, "energy")) {
    std::optional<std::optional<double>> mj =
        reader.NullableNumber(*energy, energy_path, "mj_per_call");
    std::optional<int64_t> measured = reader.Integer(*energy, energy_path, "runs_measured");
    if (mj && measured) {
      entry.energy_mj = *mj;
      entry.energy_runs_measured = *measured;
    } else {
      ok = false;
    }
  } else {
    ok = false;
  }

  if (const Json* runs = reader.Array(value, path, "runs")) {
    for (size_t i = 0; i < runs->size(); ++i) {
      std::optional<ReportRun> run =
          ReadReportRun((*runs)[i], JoinPath(JoinPath(path, "runs"), i), reader);
      if (run) {
        entry.runs.push_back(std::move(*run));
      } else {
        ok = false;
      }
    }
  } else {
    ok = false;
  }
  if (!ok) return std::nullopt;
  entry.submission = *submission;
  entry.function = *function;
  entry.sha256 = *sha256;
  entry.band_bp = *band_bp;
  entry.ranked_ms = *ranked;
  entry.review_flags = *flags;
  return entry;
}

std::optional<ReportRecord> ReadReportRecord(const Json& value, const std::string& path,
                                             FieldReader& reader) {
  std::optional<ReportEntry> first = ReadReportEntry(value, path, reader);
  if (!first) return std::nullopt;
  ReportRecord record{std::move(*first), std::nullopt};
  if (value.contains("rerun")) {
    std::optional<ReportEntry> rerun =
        ReadReportEntry(value["rerun"], JoinPath(path, "rerun"), reader);
    if (!rerun) return std::nullopt;
    record.rerun = std::move(*rerun);
  }
  return record;
}

const Json* ReportRecordsObject(const Json& report, FieldReader& reader) {
  if (!report.is_object()) {
    reader.result()->Breaks(reader.Where(""), "expected an object, found " + JsonTypeName(report));
    return nullptr;
  }
  std::optional<std::string> schema = reader.String(report, "", "schema");
  if (!schema) return nullptr;
  if (*schema != kReportSchema) {
    reader.result()->Breaks(reader.Where("schema"),
                            JsonShown(Json(*schema)) + "; this ratchet reads " + kReportSchema);
    return nullptr;
  }
  return reader.Object(report, "", "records");
}

}  // namespace ratchet
