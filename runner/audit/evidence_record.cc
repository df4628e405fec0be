#include "audit/evidence_record.h"

#include <set>
#include <vector>

#include "audit/numbers.h"
#include "energy/energy_file.h"
#include "evidence/fields.h"
#include "evidence/layout.h"
#include "evidence/report_file.h"
#include "rules/judge.h"
#include "rules/pyformat.h"

namespace ratchet {
namespace {

std::string Quoted(const std::string& text) { return "'" + text + "'"; }

std::string Where(const std::string& path, const std::string& field) {
  return std::string(kReportFile) + ": " + JoinPath(path, field);
}

// What one report entry claims, for the verdict.
struct EntryClaim {
  std::string text;     // "<id> (<file>:<function>) at 5.40% error: qualified, ranked ..."
  std::string outcome;  // "qualified, ranked ..." alone
  int runs = 0;
  std::optional<AuditedScoring> derived;  // when every run could be re-judged
  bool qualified = false;
};

// What the runs an entry lists give, once each is audited.
struct EntryRuns {
  bool all_known = true;  // every run's judge.json could be read
  bool all_qualified = true;
  std::vector<double> ranked;     // the qualified runs' ranked times
  std::vector<double> energy_mj;  // the runs' energy figures (each checked against energy.json)
  std::set<std::string> rules_broken;
};

// The entry's band is one of 1..9999 basis points; nothing is judged at another.
bool CheckEntryBand(const ReportEntry& entry, const std::string& path, AuditResult* result) {
  if (entry.band_bp >= 1 && entry.band_bp <= 9999) return true;
  result->Breaks(Where(path, "band_bp"),
                 std::to_string(entry.band_bp) + " is not a band of 1..9999 basis points");
  return false;
}

// Every run the entry lists, numbered in order from `first_run`, audited (AuditRun); their folders
// are added to `listed_folders`.
Status AuditEntryRuns(EvidenceContext& context, const RecordFacts& facts, const ReportEntry& entry,
                      const std::string& path, int first_run, std::set<std::string>* listed_folders,
                      EntryRuns* runs, AuditResult* result) {
  for (size_t i = 0; i < entry.runs.size(); ++i) {
    const std::string run_path = JoinPath(JoinPath(path, "runs"), i);
    const ReportRun& report_run = entry.runs[i];
    const int64_t expected_number = first_run + static_cast<int64_t>(i);
    if (report_run.run != expected_number) {
      result->Breaks(std::string(kReportFile) + ": " + JoinPath(run_path, "run"),
                     std::to_string(report_run.run) + " where run " +
                         std::to_string(expected_number) + " belongs; runs are numbered in order");
      runs->all_known = false;
      continue;
    }
    listed_folders->insert(RunFolder(facts.id, static_cast<int>(report_run.run)));
    Result<RunOutcomeFacts> run =
        AuditRun(context, facts, static_cast<int>(report_run.run), report_run, run_path, result);
    if (!run.ok()) return run.status();
    if (!run->known) {
      runs->all_known = false;
      continue;
    }
    if (report_run.energy.is_object() &&
        ClaimedEnergyMj(report_run.energy)) {
      runs->energy_mj.push_back(*ClaimedEnergyMj(report_run.energy));
    }
    if (run->qualified && run->ranked_ms) {
      runs->ranked.push_back(*run->ranked_ms);
    } else {
      runs->all_qualified = false;
      runs->rules_broken.insert(run->rules_broken.begin(), run->rules_broken.end());
    }
  }
  return Status::Ok();
}

// An entry with no runs: nothing backs its outcome.
void CheckEntryHasRuns(const ReportEntry& entry, const std::string& path, EntryRuns* runs,
                       AuditResult* result) {
  if (!entry.runs.empty()) return;
  result->Breaks(Where(path, "runs"), "no runs: nothing backs the outcome");
  runs->all_known = false;
}

// The entry's outcome.status, outcome.broken and ranked_ms (the median) follow from its runs.
void CheckEntryOutcome(const ReportEntry& entry, const std::string& path, const EntryRuns& runs,
                       AuditResult* result) {
  const std::string expected_status = runs.all_qualified ? "qualified" : "disqualified";
  const std::vector<std::string> expected_broken(runs.rules_broken.begin(),
                                                 runs.rules_broken.end());
  const double median = runs.all_qualified ? Median(runs.ranked) : 0.0;
  if (entry.qualified != runs.all_qualified) {
    result->Breaks(Where(path, "outcome.status"),
                   Quoted(entry.status()) + ", but its runs make it " + expected_status);
  }
  if (entry.broken != expected_broken) {
    result->Breaks(
        Where(path, "outcome.broken"),
        JsonShown(Json(entry.broken)) + ", but its runs break " + JsonShown(Json(expected_broken)));
  }
  if (entry.ranked_ms.has_value() != runs.all_qualified ||
      (runs.all_qualified && *entry.ranked_ms != median)) {
    result->Breaks(Where(path, "ranked_ms"),
                   (entry.ranked_ms ? ExactNumber(*entry.ranked_ms) : std::string("null")) +
                       ", but its runs give " +
                       (runs.all_qualified ? ExactNumber(median) + " (the median of " +
                                                 std::to_string(runs.ranked.size()) + ")"
                                           : std::string("null")));
  }
}

// The entry's energy follows from its runs' too: the median of their figures (the column is
// measured once per record) when every run qualified, else null, and how many have one.
void CheckEntryEnergy(const ReportEntry& entry, const std::string& path, const EntryRuns& runs,
                      AuditResult* result) {
  const bool figure = runs.all_qualified && !runs.energy_mj.empty();
  const std::optional<double> expected_mj =
      figure ? std::optional<double>(Median(runs.energy_mj)) : std::nullopt;
  if (entry.energy_mj != expected_mj) {
    result->Breaks(Where(path, "energy.mj_per_call"),
                   (entry.energy_mj ? ExactNumber(*entry.energy_mj) : std::string("null")) +
                       ", but its runs give " +
                       (figure ? ExactNumber(*expected_mj) : std::string("null")));
  }
  if (entry.energy_runs_measured != static_cast<int64_t>(runs.energy_mj.size())) {
    result->Breaks(Where(path, "energy.runs_measured"), std::to_string(entry.energy_runs_measured) +
                                                            ", but " +
                                                            std::to_string(runs.energy_mj.size()) +
                                                            " of its runs have an energy figure");
  }
}

// What the entry claims, in words, and what its runs re-derive when every one could be judged.
EntryClaim ClaimOfEntry(const std::string& id, const ReportEntry& entry, const EntryRuns& runs) {
  EntryClaim claim;
  claim.runs = static_cast<int>(entry.runs.size());
  if (runs.all_known) {
    claim.derived = AuditedScoring{
        entry.sha256, entry.band_bp, runs.all_qualified,
        std::vector<std::string>(runs.rules_broken.begin(), runs.rules_broken.end()),
        runs.all_qualified ? std::optional<double>(Median(runs.ranked)) : std::nullopt};
  }
  claim.qualified = entry.qualified;
  claim.outcome = entry.status();
  if (entry.qualified && entry.ranked_ms) {
    claim.outcome +=
        ", ranked " + FormatFixed(*entry.ranked_ms, 3) + " ms" +
        (entry.runs.size() > 1 ? " (median of " + std::to_string(entry.runs.size()) + " runs)"
                               : "");
  } else {
    std::string rules;
    for (const std::string& rule : entry.broken) rules += (rules.empty() ? "" : ", ") + rule;
    if (!rules.empty()) claim.outcome += " (rules broken: " + rules + ")";
  }
  claim.text = id + " (" + entry.submission + ":" + entry.function + ") at " +
               FormatFixed(entry.band_bp / 100.0, 2) + "% error: " + claim.outcome;
  return claim;
}

// One report entry (a record, or its "rerun") at `path`, in order: its fields; its band; every
// run it lists (numbered from `first_run`); that it lists one; its outcome and its energy
// re-derived from those runs. nullopt when the entry is too damaged to say what it claims
// (findings say why).
Result<std::optional<EntryClaim>> AuditEntry(EvidenceContext& context, const std::string& id,
                                             const Json& record, const std::string& path,
                                             int first_run, std::set<std::string>* listed_folders,
                                             AuditResult* result) {
  FieldReader record_reader(kReportFile, result);
  std::optional<ReportEntry> entry = ReadReportEntry(record, path, record_reader);
  if (!entry) return std::optional<EntryClaim>();
  if (!CheckEntryBand(*entry, path, result)) return std::optional<EntryClaim>();
  const RecordFacts facts{id, entry->submission, entry->sha256, entry->band_bp};
  EntryRuns runs;
  RATCHET_RETURN_IF_ERROR(
      AuditEntryRuns(context, facts, *entry, path, first_run, listed_folders, &runs, result));
  CheckEntryHasRuns(*entry, path, &runs, result);
  if (runs.all_known) {
    CheckEntryOutcome(*entry, path, runs, result);
    CheckEntryEnergy(*entry, path, runs, result);
  }
  return std::optional<EntryClaim>(ClaimOfEntry(id, *entry, runs));
}

// A record id names a folder under records/: one plain name.
bool CheckRecordId(const std::string& id, const std::string& path, AuditResult* result) {
  Status plain = CheckEvidencePath(id);
  if (plain.ok() && id.find('/') == std::string::npos) return true;
  result->Breaks(std::string(kReportFile) + ": " + path, "not a record id that names a folder");
  return false;
}

// Every folder under records/<id>/ is a run one of the record's entries lists.
void CheckUnlistedRunFolders(const EvidenceContext& context, const std::string& id,
                             const std::set<std::string>& listed_folders, AuditResult* result) {
  const std::string record_prefix = std::string(kRecordsFolder) + "/" + id + "/";
  std::set<std::string> reported_extra;
  for (const auto& [item_path, item] : context.items) {
    if (item_path.rfind(record_prefix, 0) != 0) continue;
    const std::string rest = item_path.substr(record_prefix.size());
    const std::string folder = record_prefix + rest.substr(0, rest.find('/'));
    if (listed_folders.count(folder) == 0 && reported_extra.insert(folder).second) {
      result->Breaks(folder, "a run folder report.json does not list under records." + id);
    }
  }
}

}  // namespace

Result<std::optional<bool>> AuditRecord(EvidenceContext& context, const std::string& id,
                                        const Json& record, int first_run, AuditResult* result) {
  const std::string path = JoinPath("records", id);
  if (!CheckRecordId(id, path, result)) return std::optional<bool>();
  FieldReader reader(kReportFile, result);
  if (!reader.IsObject(record, path)) return std::optional<bool>();
  std::set<std::string> listed_folders;
  Result<std::optional<EntryClaim>> first =
      AuditEntry(context, id, record, path, first_run, &listed_folders, result);
  if (!first.ok()) return first.status();
  if (!*first) {
    result->claims.push_back(id + ": a report entry too damaged to say what it claims");
    return std::optional<bool>();
  }
  bool qualified = (*first)->qualified;
  std::string claim = (*first)->text;
  std::optional<AuditedRecord> derived;
  if ((*first)->derived) derived = AuditedRecord{*(*first)->derived, std::nullopt};
  // A record scored once more (a time outside its tolerance): its runs follow the first ones.
  if (record.contains("rerun")) {
    Result<std::optional<EntryClaim>> rerun =
        AuditEntry(context, id, record["rerun"], JoinPath(path, "rerun"),
                   first_run + (*first)->runs, &listed_folders, result);
    if (!rerun.ok()) return rerun.status();
    if (*rerun) {
      claim += "; scored again: " + (*rerun)->outcome;
      qualified = (*rerun)->qualified;
    }
    if (*rerun && (*rerun)->derived && derived) {
      derived->rerun = (*rerun)->derived;
    } else {
      derived.reset();
    }
  }
  if (derived) result->records[id] = *derived;
  CheckUnlistedRunFolders(context, id, listed_folders, result);
  result->claims.push_back(claim);
  return std::optional<bool>(qualified);
}

}  // namespace ratchet
