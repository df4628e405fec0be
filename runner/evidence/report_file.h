// report.json, the run's claims: one typed writer (the scorer's session) and one strict reader
// (compare, promote, the audit), so that no reader spells a field of its own. docs/evidence.md
// says what each field means.
//
//   {"schema": "ratchet.report/1", "sandbox": "full" | "partial: <why>",
//    "records": {"<id>": ReportEntry [+ "rerun": ReportEntry]},
//    ...the tool's fields ("ratchet": what `ratchet run` compared), kept as the tool gave them}
#ifndef RATCHET_EVIDENCE_REPORT_FILE_H_
#define RATCHET_EVIDENCE_REPORT_FILE_H_

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "core/canonical_json.h"
#include "evidence/fields.h"
#include "evidence/run_files.h"

namespace ratchet {

inline constexpr char kReportSchema[] = "ratchet.report/1";

// One run of a scoring: its verdict (as judge.json gives it), its plan's datasets and, for a
// qualified run, its energy column's summary.
struct ReportRun {
  int64_t run = 0;  // from 1; a record's rerun continues the numbering
  bool qualified = false;
  std::vector<ProblemEntry> problems;
  // The submission was refused before a run was planned: the run has only `run`, `qualified`
  // and `problems`, and none of the fields below.
  bool refused = false;
  std::optional<double> ranked_ms;     // a qualified run's
  std::optional<std::string> summary;  // null when the run was not judged
  std::string holdout, warmup;         // the plan's hold-out and warm-up datasets
  bool single_foreign = false;         // one foreign dataset was present, the hold-out
  Json energy;                         // energy.json without its windows; null when absent
};

// One scoring of a record: what was scored, the outcome its runs give and the runs.
struct ReportEntry {
  std::string submission;  // the file's base name
  std::string function;
  std::string sha256;  // of the submission's bytes
  int64_t band_bp = 0;
  bool qualified = false;            // outcome.status: "qualified" or "disqualified"
  std::vector<std::string> broken;   // outcome.broken: the rule ids broken, sorted, each once
  std::optional<double> ranked_ms;   // the median of the runs' ranked times, when qualified
  std::optional<double> energy_mj;   // energy.mj_per_call: the median of the runs' figures
  int64_t energy_runs_measured = 0;  // energy.runs_measured
  std::vector<std::string> review_flags;
  std::vector<ReportRun> runs;

  const char* status() const { return qualified ? "qualified" : "disqualified"; }
};

// A record of the report: its first scoring and, when `ratchet run` asked for one (an outcome
// that differed by timing rules alone, a time outside its tolerance), the second, whose outcome
// and time are the ones compared and promoted.
struct ReportRecord {
  ReportEntry first;
  std::optional<ReportEntry> rerun;
  const ReportEntry& scored() const { return rerun ? *rerun : first; }
};

Json ReportRunJson(const ReportRun& run);
Json ReportEntryJson(const ReportEntry& entry);
Json ReportRecordJson(const ReportRecord& record);
// "records": each record under its id.
Json ReportRecordsJson(const std::map<std::string, ReportRecord>& records);
// The whole document: `records` by id, then `extra`'s members (an object) beside them.
Json ReportJson(const std::string& sandbox, const std::map<std::string, ReportRecord>& records,
                const Json& extra);

// Strict reads through `reader`, each finding naming the field ("report.json:
// records.ncm.runs[0].qualified"); nullopt when a field cannot be read. `path` is the value's
// own path in the document. What the values mean together (a run numbered out of order, an
// outcome its runs do not give) is the audit's to check, not the reader's.
std::optional<ReportRun> ReadReportRun(const Json& value, const std::string& path,
                                       FieldReader& reader);
std::optional<ReportEntry> ReadReportEntry(const Json& value, const std::string& path,
                                           FieldReader& reader);
std::optional<ReportRecord> ReadReportRecord(const Json& value, const std::string& path,
                                             FieldReader& reader);

// The top of report.json: its schema checked and its records object found. nullptr (with a
// finding) when the document is not an object, has another schema or no records object.
const Json* ReportRecordsObject(const Json& report, FieldReader& reader);

}  // namespace ratchet

#endif  // RATCHET_EVIDENCE_REPORT_FILE_H_
