#include "shard/verify.h"

#include <dirent.h>
#include <sys/stat.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <map>
#include <set>

#include "baseline/ratchet_report.h"
#include "contract/contract_view.h"
#include "core/file.h"
#include "data/locate.h"
#include "evidence/fields.h"
#include "evidence/layout.h"
#include "evidence/report_file.h"
#include "evidence/signature.h"
#include "rules/judge.h"
#include "shard/sharded_run.h"

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

void CheckShardSignature(const std::string& folder, const std::string& signer,
                         AuditResult* audit) {
  struct stat st;
  const bool present = lstat((folder + "/" + kSignatureFile).c_str(), &st) == 0;
  if (signer.empty()) {
    if (present) {
      audit->Breaks(kSignatureFile,
                    "the run is unsigned, and a shard is signed only with its run's key: it was "
                    "put there after the run");
    }
    return;
  }
  const SignatureCheck check = CheckSignature(folder);
  if (!check.present) {
    audit->Breaks(kSignatureFile, "missing: the run is signed with key " + KeyId(signer) +
                                      ", which signs each shard as it is verified; this one was "
                                      "not verified under that key");
  } else if (!check.valid) {
    audit->Breaks(kSignatureFile, check.problem);
  } else if (check.public_hex != signer) {
    audit->Breaks(kSignatureFile, "signed with key " + KeyId(check.public_hex) +
                                      ", not the run's key " + KeyId(signer));
  } else if (check.manifest_sha256 != audit->manifest_sha256) {
    audit->Breaks(kManifestFile, std::string(kManifestFile) +
                                     " changed while it was read: the audit read bytes of sha256 " +
                                     audit->manifest_sha256 +
                                     ", the signature verified bytes of sha256 " +
                                     check.manifest_sha256);
  }
}


std::string VerifiedShard::why_not() const {
  for (const AuditFinding& finding : audit.findings) {
    if (finding.kind == AuditFinding::Kind::kBreaks) {
      return finding.where.empty() ? finding.message : finding.where + ": " + finding.message;
    }
  }
  return entry ? "" : "its report holds no entry of the shard's run";
}

Result<VerifiedShard> VerifyShard(const std::string& folder, const Shard& shard,
                                  const ShardedRun& run, const std::string& run_seed,
                                  const std::string& signer, const EvidenceAuditOptions& options) {
  VerifiedShard verified;
  AuditResult& audit = verified.audit;
  audit.path = folder;
  EvidenceAuditOptions shard_options = options;
  shard_options.first_run = shard.run;
  shard_options.signature = false;  // the run's key, checked below
  Status status = AuditEvidence(folder, shard_options, &audit);
  if (!status.ok()) {
    if (status.code() == Status::Code::kUsage) return status;
    audit.Breaks("", status.message());
    return verified;
  }
  CheckShardSignature(folder, signer, &audit);
  // What binds the shard to this run.
  if (!run_seed.empty()) {
    Result<std::string> reveal = ReadFile(folder + "/" + kSeedRevealFile, 256);
    Result<std::string> revealed =
        reveal.ok() ? ParseSeedFile(*reveal, kSeedRevealFile) : reveal.status();
    Result<std::string> derived = ShardSeed(run_seed, shard.id);
    if (!revealed.ok() || !derived.ok() || *revealed != *derived) {
      audit.Breaks(kSeedRevealFile,
                   "not the seed the run seed derives for this shard: its draws are not the run's");
    } else {
      verified.seed_derived = true;
    }
  }
  Result<std::string> contract_text = ReadFile(folder + "/" + kContractFile, 16u << 20);
  Result<Json> contract =
      contract_text.ok() ? ParseJson(*contract_text, kContractFile) : contract_text.status();
  if (!contract.ok() || !ContractView(*contract).locked().ok() ||
      *ContractView(*contract).locked() != run.locked) {
    audit.Breaks(kContractFile, "its locked part is not the run's");
  }
  Result<std::string> report_text = ReadFile(folder + "/" + kReportFile, 64u << 20);
  Result<Json> report =
      report_text.ok() ? ParseJson(*report_text, kReportFile) : report_text.status();
  if (!report.ok() || !report->is_object() ||
      report->value(kShardReportKey, Json()) != ShardReportJson(shard, run.seed_commit)) {
    audit.Breaks(std::string(kReportFile) + ": " + kShardReportKey,
                 "does not name this shard of this run");
  }
  auto found = audit.records.find(shard.record);
  if (audit.records.size() != 1 || found == audit.records.end() || found->second.rerun) {
    audit.Breaks(kReportFile, "does not hold record " + shard.record + " alone");
    return verified;
  }
  const AuditedScoring& derived = found->second.first;
  if (derived.sha256 != shard.submission_sha256) {
    audit.Breaks(kReportFile,
                 "scored a submission other than the shard's (sha256 " + derived.sha256 + ")");
  }
  // The shard's report entry: its one run, the shard's.
  FindingLines lines;
  FieldReader reader(kReportFile, &lines);
  std::optional<ReportEntry> entry;
  if (report.ok() && report->is_object()) {
    const Json* records = ReportRecordsObject(*report, reader);
    if (records != nullptr && records->contains(shard.record)) {
      std::optional<ReportRecord> record =
          ReadReportRecord(records->at(shard.record), "records." + shard.record, reader);
      if (record) entry = record->first;
    }
  }
  if (!entry || entry->runs.size() != 1 || entry->runs[0].run != shard.run) {
    audit.Breaks(kReportFile, "does not hold run " + std::to_string(shard.run) + " of record " +
                                  shard.record + " alone");
    return verified;
  }
  // What is counted is what the calls give: the entry read here must be the one the audit
  // re-derived (it re-reads the file, which may have changed since).
  if (entry->sha256 != derived.sha256 || entry->band_bp != derived.band_bp ||
      entry->qualified != derived.qualified || entry->broken != derived.broken ||
      !SameFigure(entry->ranked_ms, derived.ranked_ms)) {
    audit.Breaks(kReportFile, "record " + shard.record +
                                  "'s entry is not what its run's calls give (it changed while "
                                  "it was verified)");
    return verified;
  }
  verified.derived = derived;
  verified.entry = std::move(entry);
  return verified;
}

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
  std::string manifest_sha256;  // of the bytes checked: the signature must be over those
  for (const std::string& problem : CheckShardedRunManifest(dir, run, &manifest_sha256)) {
    result->Breaks(kShardedRunManifestFile, problem);
  }
  AuditSignature(dir, kShardedRunManifestFile, result, manifest_sha256);
  // The key run.json names is the one that signed the run, and each shard as it was verified.
  if (run.signer != result->signed_by) {
    result->Breaks(file + ": signer",
                   (run.signer.empty() ? std::string("null") : "key " + KeyId(run.signer)) +
                       ", but the run's SIGNATURE.json " +
                       (result->signed_by.empty() ? std::string("does not verify with a key")
                                                  : "verifies with key " + KeyId(result->signed_by)) +
                       ": the run was not signed by the key that signed its shards");
  }
  // Nothing at the top but what a sharded run writes there: an unsigned file beside a signed
  // run would read as part of it.
  static const std::set<std::string> kTopLevel = {kShardedRunFile, kShardedRunManifestFile,
                                                  kSignatureFile, "shards", "logs"};
  if (DIR* top = opendir(dir.c_str())) {
    std::set<std::string> extra;
    while (dirent* entry = readdir(top)) {
      const std::string name = entry->d_name;
      if (name != "." && name != ".." && !kTopLevel.count(name)) extra.insert(name);
    }
    closedir(top);
    for (const std::string& name : extra) {
      result->Breaks(name, "not part of a sharded run's evidence: a collected run holds only " +
                               std::string(kShardedRunFile) + ", " + kShardedRunManifestFile +
                               ", " + kSignatureFile + ", shards/ and logs/ at the top");
    }
  }
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
    Result<VerifiedShard> shard =
        VerifyShard(folder, s.shard, run, seed_known ? run.seed : "", run.signer, options);
    if (!shard.ok()) return shard.status();
    ++audited;
    if (result->rules.empty()) result->rules = shard->audit.rules;
    Merge(shard->audit, prefix, result);
    if (!shard->entry) continue;
    if (shard->seed_derived) ++derived_seeds;
    (s.rerun ? reruns : firsts)[s.shard.record].push_back(shard->derived);
    (s.rerun ? rerun_entries : first_entries)[s.shard.record].push_back(*shard->entry);
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
