#include "cli/sharded_run_audit.h"

#include <dirent.h>
#include <sys/stat.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <map>
#include <set>

#include "baseline/ratchet_report.h"
#include "cli/sharded_run.h"
#include "contract/contract_view.h"
#include "core/file.h"
#include "data/locate.h"
#include "evidence/fields.h"
#include "evidence/layout.h"
#include "evidence/report_file.h"
#include "evidence/signature.h"
#include "rules/judge.h"

namespace ratchet {

namespace {

std::string Short(const std::string& id) { return id.substr(0, 12); }

// Two figures written by one program and read back: equal to the last few bits.
bool SameFigure(const std::optional<double>& a, const std::optional<double>& b) {
  if (a.has_value() != b.has_value()) return false;
  if (!a) return true;
  return std::fabs(*a - *b) <= 1e-9 * std::max(1.0, std::fabs(*a));
}

// A record's scoring re-derived from the scorings of its shards (one run each).
std::optional<AuditedScoring> Combine(const std::vector<AuditedScoring>& scorings) {
  if (scorings.empty()) return std::nullopt;
  AuditedScoring combined = scorings.front();
  combined.qualified = true;
  std::set<std::string> broken;
  std::vector<double> ranked;
  for (const AuditedScoring& s : scorings) {
    if (s.sha256 != combined.sha256 || s.band_bp != combined.band_bp) return std::nullopt;
    combined.qualified = combined.qualified && s.qualified;
    broken.insert(s.broken.begin(), s.broken.end());
    if (s.ranked_ms) ranked.push_back(*s.ranked_ms);
  }
  combined.broken.assign(broken.begin(), broken.end());
  combined.ranked_ms.reset();
  if (combined.qualified && !ranked.empty()) combined.ranked_ms = Median(ranked);
  return combined;
}

// The report's claim for one scoring against the one re-derived; a finding for each difference.
void CompareScoring(const Json& claimed, const AuditedScoring& derived, const std::string& where,
                    AuditResult* result) {
  if (!claimed.is_object()) {
    result->Breaks(where, "missing: the shards scored it");
    return;
  }
  const Json outcome = claimed.value("outcome", Json());
  const std::string status = outcome.is_object() && outcome.value("status", Json()).is_string()
                                 ? outcome["status"].get<std::string>()
                                 : "";
  if (status != (derived.qualified ? "qualified" : "disqualified")) {
    result->Breaks(where + ".outcome.status", "\"" + status + "\" where the shards' runs give " +
                                                  (derived.qualified ? "qualified" : "disqualified"));
  }
  std::vector<std::string> broken;
  if (outcome.is_object() && outcome.value("broken", Json()).is_array()) {
    for (const Json& rule : outcome["broken"]) {
      if (rule.is_string()) broken.push_back(rule.get<std::string>());
    }
  }
  if (broken != derived.broken) {
    result->Breaks(where + ".outcome.broken", "not the rules the shards' runs broke");
  }
  std::optional<double> ranked;
  if (claimed.value("ranked_ms", Json()).is_number()) ranked = claimed["ranked_ms"].get<double>();
  if (!SameFigure(ranked, derived.ranked_ms)) {
    result->Breaks(where + ".ranked_ms", "not the median of the shards' ranked times");
  }
  const Json sha256 = claimed.value("sha256", Json());
  if (!sha256.is_string() || sha256.get<std::string>() != derived.sha256) {
    result->Breaks(where + ".sha256", "not the submission the shards scored");
  }
}

void Merge(const AuditResult& shard, const std::string& prefix, AuditResult* result) {
  for (const AuditFinding& finding : shard.findings) {
    if (finding.kind == AuditFinding::Kind::kBreaks) {
      result->Breaks(prefix + finding.where, finding.message);
    } else {
      result->Note(prefix + finding.where, finding.message);
    }
  }
  for (const std::string& reason : shard.unofficial) {
    if (std::find(result->unofficial.begin(), result->unofficial.end(), reason) ==
        result->unofficial.end()) {
      result->unofficial.push_back(reason);
    }
  }
}

}  // namespace

Status AuditShardedRun(const std::string& dir, const EvidenceAuditOptions& given,
                       AuditResult* result) {
  Result<ShardedRun> read = ReadShardedRun(dir);
  if (!read.ok()) return Status::BadInput(read.status().message());
  const ShardedRun& run = *read;
  result->format = "a ratchet sharded run (state " + run.state + ", " +
                   std::to_string(run.shards.size()) + " shards)";
  const std::string file = kShardedRunFile;
  if (run.state != "complete") {
    result->Breaks(file + ": state", "the run is " + run.state +
                                         ", not complete: it was never collected (`ratchet run "
                                         "--resume` goes on with it)");
  }
  for (const std::string& problem : CheckShardedRunManifest(dir, run)) {
    result->Breaks(kShardedRunManifestFile, problem);
  }
  AuditSignature(dir, kShardedRunManifestFile, result);
  const bool seed_known = !run.seed.empty() && SeedMatchesCommit(run.seed, run.seed_commit);
  if (run.seed.empty()) {
    result->Breaks(file + ": seed", "the run seed is not revealed: no shard's seed can be derived");
  } else if (!seed_known) {
    result->Breaks(file + ": seed", "not the seed seed_commit binds");
  } else {
    result->Checked("the run seed is the one seed_commit binds");
  }

  EvidenceAuditOptions options = given;
  if (!options.datasets) {
    // Located once for every shard.
    Result<DataSearch> search = MakeDataSearch(options.data_dir);
    if (!search.ok()) return search.status();
    Result<std::vector<LocatedDataset>> located = LocateDatasets(*search);
    if (!located.ok()) return located.status();
    options.datasets = std::move(located).value();
  }

  // The shard folders on disk are the run's, every one.
  std::set<std::string> listed;
  for (const ShardedRunShard& s : run.shards) listed.insert(s.shard.id);
  if (DIR* shards = opendir((dir + "/shards").c_str())) {
    while (dirent* entry = readdir(shards)) {
      const std::string name = entry->d_name;
      if (name == "." || name == "..") continue;
      if (!listed.count(name)) {
        result->Breaks("shards/" + name, "a folder run.json does not list as a shard");
      }
    }
    closedir(shards);
  }

  // By record: the shards' re-derived scorings, first and second.
  std::map<std::string, std::vector<AuditedScoring>> firsts, reruns;
  std::map<std::string, std::vector<ReportEntry>> first_entries, rerun_entries;
  int audited = 0, derived_seeds = 0;
  for (size_t i = 0; i < run.shards.size(); ++i) {
    const ShardedRunShard& s = run.shards[i];
    const std::string where = file + ": shards[" + std::to_string(i) + "]";
    const std::string prefix = "shards/" + Short(s.shard.id) + "…/";
    Result<std::string> id = ShardId(run.locked, s.shard.record, s.shard.submission_sha256,
                                     s.shard.run, run.seed_commit);
    if (!id.ok() || *id != s.shard.id) {
      result->Breaks(where + ".id", "not the hash of the shard's work (the locked part, record, "
                                    "submission, run and seed commitment)");
    }
    if (s.state != "done") {
      result->Breaks(where + ".state", "\"" + s.state + "\": the shard was not scored");
      continue;
    }
    // A shard scored more than once: the last scoring is the one collected; the reader sees the
    // others, and why they were set aside (a folder that failed verification, or at a resume).
    std::string set_aside;
    int scored = 0;
    for (const ShardAttempt& attempt : s.attempts) {
      if (attempt.end != AttemptEnd::kScored) continue;
      ++scored;
      if (&attempt != &s.attempts.back()) {
        set_aside += "; attempt " + std::to_string(attempt.attempt) + ": " +
                     (attempt.why.empty() ? "no reason given" : attempt.why);
      }
    }
    if (scored > 1) {
      result->Note(where + ".attempts", "the shard was scored " + std::to_string(scored) +
                                            " times and its last attempt collected" + set_aside);
    }
    const std::string folder = ShardFolder(dir, s.shard.id);
    AuditResult shard;
    shard.path = folder;
    EvidenceAuditOptions shard_options = options;
    shard_options.first_run = s.shard.run;
    shard_options.signature = false;
    Status status = AuditEvidence(folder, shard_options, &shard);
    if (!status.ok()) {
      if (status.code() == Status::Code::kUsage) return status;
      result->Breaks(prefix, status.message());
      continue;
    }
    ++audited;
    if (result->rules.empty()) result->rules = shard.rules;
    Merge(shard, prefix, result);
    // The run's MANIFEST.json is signed, never a shard: a signature in one was put there since.
    struct stat signature;
    if (lstat((folder + "/" + kSignatureFile).c_str(), &signature) == 0) {
      result->Breaks(prefix + kSignatureFile,
                     "a shard is not signed on its own (the run's " +
                         std::string(kShardedRunManifestFile) +
                         " is): it was put there after the run");
    }
    // What binds the shard to this run.
    Result<std::string> reveal = ReadFile(folder + "/" + kSeedRevealFile, 256);
    Result<std::string> shard_seed =
        seed_known ? ShardSeed(run.seed, s.shard.id) : Result<std::string>(Status::BadInput(""));
    if (seed_known) {
      Result<std::string> revealed =
          reveal.ok() ? ParseSeedFile(*reveal, kSeedRevealFile) : reveal.status();
      if (!revealed.ok() || !shard_seed.ok() || *revealed != *shard_seed) {
        result->Breaks(prefix + kSeedRevealFile,
                       "not the seed the run seed derives for this shard: its draws are not the "
                       "run's");
      } else {
        ++derived_seeds;
      }
    }
    Result<std::string> contract_text = ReadFile(folder + "/" + kContractFile, 16u << 20);
    Result<Json> contract =
        contract_text.ok() ? ParseJson(*contract_text, kContractFile) : contract_text.status();
    if (!contract.ok() || !ContractView(*contract).locked().ok() ||
        *ContractView(*contract).locked() != run.locked) {
      result->Breaks(prefix + kContractFile, "its locked part is not the run's");
    }
    Result<std::string> report_text = ReadFile(folder + "/" + kReportFile, 64u << 20);
    Result<Json> report =
        report_text.ok() ? ParseJson(*report_text, kReportFile) : report_text.status();
    if (!report.ok() || !report->is_object() ||
        report->value(kShardReportKey, Json()) != ShardReportJson(s.shard, run.seed_commit)) {
      result->Breaks(prefix + kReportFile + ": " + kShardReportKey,
                     "does not name this shard of this run");
    }
    auto found = shard.records.find(s.shard.record);
    if (shard.records.size() != 1 || found == shard.records.end() || found->second.rerun) {
      result->Breaks(prefix + kReportFile, "does not hold record " + s.shard.record + " alone");
      continue;
    }
    if (found->second.first.sha256 != s.shard.submission_sha256) {
      result->Breaks(prefix + kReportFile,
                     "scored a submission other than the shard's (sha256 " +
                         found->second.first.sha256 + ")");
    }
    // The shard's report entry: its one run, the shard's.
    FindingLines lines;
    FieldReader reader(kReportFile, &lines);
    std::optional<ReportEntry> entry;
    if (report.ok() && report->is_object()) {
      const Json* records = ReportRecordsObject(*report, reader);
      if (records != nullptr && records->contains(s.shard.record)) {
        std::optional<ReportRecord> record =
            ReadReportRecord(records->at(s.shard.record), "records." + s.shard.record, reader);
        if (record) entry = record->first;
      }
    }
    if (!entry || entry->runs.size() != 1 || entry->runs[0].run != s.shard.run) {
      result->Breaks(prefix + kReportFile, "does not hold run " + std::to_string(s.shard.run) +
                                               " of record " + s.shard.record + " alone");
      continue;
    }
    (s.rerun ? reruns : firsts)[s.shard.record].push_back(found->second.first);
    (s.rerun ? rerun_entries : first_entries)[s.shard.record].push_back(*entry);
  }
  result->Checked(std::to_string(audited) + " of " + std::to_string(run.shards.size()) +
                  " shards audited as evidence directories of their own");
  if (seed_known) {
    result->Checked(std::to_string(derived_seeds) +
                    " shard seeds derived again from the revealed run seed");
  }

  // Each record's claim against its shards.
  const Json records = run.report.is_object() ? run.report.value("records", Json()) : Json();
  if (run.state == "complete" && !records.is_object()) {
    result->Breaks(file + ": report.records", "missing: the run claims nothing");
  }
  for (const auto& [id, scorings] : firsts) {
    std::optional<AuditedScoring> first = Combine(scorings);
    if (!first) {
      result->Breaks(file + ": report.records." + id,
                     "its shards scored more than one submission or band");
      continue;
    }
    AuditedRecord record{*first, std::nullopt};
    const Json claimed = records.is_object() ? records.value(id, Json()) : Json();
    // A record's shards are its runs 1..N, and its second scoring's N+1..2N: none left out,
    // none moved from one scoring to the other.
    const size_t n = scorings.size();
    std::vector<int64_t> numbers;
    for (const ReportEntry& e : first_entries[id]) numbers.push_back(e.runs[0].run);
    std::sort(numbers.begin(), numbers.end());
    for (size_t k = 0; k < numbers.size(); ++k) {
      if (numbers[k] != static_cast<int64_t>(k + 1)) {
        result->Breaks(file + ": shards", "record " + id + "'s first scoring is not runs 1.." +
                                              std::to_string(n) + " (a run is missing or moved)");
        break;
      }
    }
    if (rerun_entries.count(id)) {
      std::vector<int64_t> again;
      for (const ReportEntry& e : rerun_entries[id]) again.push_back(e.runs[0].run);
      std::sort(again.begin(), again.end());
      bool contiguous = again.size() == n;
      for (size_t k = 0; contiguous && k < again.size(); ++k) {
        contiguous = again[k] == static_cast<int64_t>(n + k + 1);
      }
      if (!contiguous) {
        result->Breaks(file + ": shards", "record " + id + "'s second scoring is not runs " +
                                              std::to_string(n + 1) + ".." +
                                              std::to_string(2 * n));
      }
    }
    // The claim, field for field, is the one its shards' entries make (runs, band, energy).
    if (claimed.is_object()) {
      Json expected = ReportEntryJson(CombineShardEntries(first_entries[id]));
      Json mine = claimed;
      mine.erase("rerun");
      if (mine != expected) {
        result->Breaks(file + ": report.records." + id,
                       "not the entry its shards' reports make (runs, band, energy, flags)");
      }
      if (rerun_entries.count(id) && claimed.contains("rerun") &&
          claimed["rerun"] != ReportEntryJson(CombineShardEntries(rerun_entries[id]))) {
        result->Breaks(file + ": report.records." + id + ".rerun",
                       "not the entry its second scoring's shards make");
      }
    }
    CompareScoring(claimed, *first, file + ": report.records." + id, result);
    if (reruns.count(id)) {
      record.rerun = Combine(reruns.at(id));
      if (record.rerun) {
        CompareScoring(claimed.is_object() ? claimed.value("rerun", Json()) : Json(),
                       *record.rerun, file + ": report.records." + id + ".rerun", result);
      }
    } else if (claimed.is_object() && claimed.contains("rerun")) {
      result->Breaks(file + ": report.records." + id + ".rerun", "no shard scored it again");
    }
    result->records[id] = record;
    std::string claim = id + ": " + (record.first.qualified ? "qualified" : "disqualified");
    if (record.first.ranked_ms) {
      char ms[32];
      std::snprintf(ms, sizeof ms, "%.3f", *record.first.ranked_ms);
      claim += std::string(", ranked ") + ms + " ms";
    }
    claim += " (" + std::to_string(scorings.size()) + (scorings.size() == 1 ? " shard)" : " shards)");
    if (record.rerun) {
      claim += "; scored again: ";
      claim += record.rerun->qualified ? "qualified" : "disqualified";
    }
    result->claims.push_back(claim);
  }
  if (records.is_object()) {
    for (const auto& [id, value] : records.items()) {
      if (!firsts.count(id)) {
        result->Breaks(file + ": report.records." + id, "no shard of the run scored it");
      }
    }
  }
  // The exit code the run's differences give.
  if (run.state == "complete") {
    const Json part = run.report.is_object() ? run.report.value(kRatchetReportKey, Json()) : Json();
    const bool no_errors = part.is_object() && part.value("errors", Json()).is_array() &&
                           part["errors"].empty();
    if (run.exit_code != (no_errors ? 0 : 1)) {
      result->Breaks(file + ": exit_code", std::to_string(run.exit_code) +
                                               " where the run's differences give " +
                                               (no_errors ? "0" : "1"));
    }
  }
  return Status::Ok();
}

}  // namespace ratchet
