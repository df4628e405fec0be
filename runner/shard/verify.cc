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
// `path` is the scoring's place in run.json ("report.records.ncm"); the entry is read by its owner
// (evidence/report_file.h), and one it cannot read breaks the run naming the field.
void CompareScoring(const Json& claimed, const AuditedScoring& derived, const std::string& path,
                    AuditResult* result) {
  FieldReader reader(kShardedRunFile, result);
  const std::string where = reader.Where(path);
  if (!claimed.is_object()) {
    result->Breaks(where, "missing: the shards scored it");
    return;
  }
  const std::optional<ReportEntry> entry = ReadReportEntry(claimed, path, reader);
  if (!entry) return;
  const char* derived_status = derived.qualified ? "qualified" : "disqualified";
  if (entry->qualified != derived.qualified) {
    result->Breaks(where + ".outcome.status", std::string("\"") + entry->status() +
                                                  "\" where the shards' runs give " + derived_status);
  }
  if (entry->broken != derived.broken) {
    result->Breaks(where + ".outcome.broken", "not the rules the shards' runs broke");
  }
  if (!SameFigure(entry->ranked_ms, derived.ranked_ms)) {
    result->Breaks(where + ".ranked_ms", "not the median of the shards' ranked times");
  }
  if (entry->sha256 != derived.sha256) {
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
    audit->Breaks(kManifestFile, ManifestChangedWhileRead(kManifestFile, audit->manifest_sha256,
                                                          check.manifest_sha256));
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

namespace {

// What the checks of a sharded run share, read once: the run, and what its shards re-derive.
struct ShardedRunFacts {
  ShardedRunFacts(const std::string& dir_in, const ShardedRun& run_in,
                  const EvidenceAuditOptions& options_in)
      : dir(dir_in), run(run_in), options(options_in) {}

  const std::string& dir;
  const ShardedRun& run;
  EvidenceAuditOptions options;  // with the datasets located once for every shard
  bool seed_known = false;       // the revealed run seed is the one seed_commit binds
  // By record: each shard's re-derived scoring and its report entry, first scoring and second.
  std::map<std::string, std::vector<AuditedScoring>> firsts, reruns;
  std::map<std::string, std::vector<ReportEntry>> first_entries, rerun_entries;
};

const std::string kRunFile = kShardedRunFile;

void CheckRunState(const ShardedRunFacts& facts, AuditResult* result) {
  if (facts.run.state != "complete") {
    result->Breaks(kRunFile + ": state", "the run is " + facts.run.state +
                                             ", not complete: it was never collected (`ratchet "
                                             "run --resume` goes on with it)");
  }
}

// MANIFEST.json against run.json and the shards' manifests; SIGNATURE.json over the very bytes
// checked, by the key run.json names (the one that signed each shard as it was verified).
void CheckRunManifestAndSigner(const ShardedRunFacts& facts, AuditResult* result) {
  std::string manifest_sha256;
  for (const std::string& problem : CheckShardedRunManifest(facts.dir, facts.run,
                                                            &manifest_sha256)) {
    result->Breaks(kShardedRunManifestFile, problem);
  }
  AuditSignature(facts.dir, kShardedRunManifestFile, result, manifest_sha256);
  const std::string& signer = facts.run.signer;
  if (signer != result->signed_by) {
    result->Breaks(kRunFile + ": signer",
                   (signer.empty() ? std::string("null") : "key " + KeyId(signer)) +
                       ", but the run's SIGNATURE.json " +
                       (result->signed_by.empty() ? std::string("does not verify with a key")
                                                  : "verifies with key " + KeyId(result->signed_by)) +
                       ": the run was not signed by the key that signed its shards");
  }
}

// Nothing at the top but what a sharded run writes there: an unsigned file beside a signed run
// would read as part of it.
void CheckRunTopLevel(const ShardedRunFacts& facts, AuditResult* result) {
  static const std::set<std::string> kTopLevel = {kShardedRunFile, kShardedRunManifestFile,
                                                  kSignatureFile, "shards", "logs"};
  DIR* top = opendir(facts.dir.c_str());
  if (top == nullptr) return;
  std::set<std::string> extra;
  while (dirent* entry = readdir(top)) {
    const std::string name = entry->d_name;
    if (name != "." && name != ".." && !kTopLevel.count(name)) extra.insert(name);
  }
  closedir(top);
  for (const std::string& name : extra) {
    result->Breaks(name, "not part of a sharded run's evidence: a collected run holds only " +
                             std::string(kShardedRunFile) + ", " + kShardedRunManifestFile + ", " +
                             kSignatureFile + ", shards/ and logs/ at the top");
  }
}

void CheckRunSeed(ShardedRunFacts* facts, AuditResult* result) {
  const ShardedRun& run = facts->run;
  facts->seed_known = !run.seed.empty() && SeedMatchesCommit(run.seed, run.seed_commit);
  if (run.seed.empty()) {
    result->Breaks(kRunFile + ": seed",
                   "the run seed is not revealed: no shard's seed can be derived");
  } else if (!facts->seed_known) {
    result->Breaks(kRunFile + ": seed", "not the seed seed_commit binds");
  } else {
    result->Checked("the run seed is the one seed_commit binds");
  }
}

// The shard folders on disk are the run's, every one.
void CheckShardFoldersListed(const ShardedRunFacts& facts, AuditResult* result) {
  std::set<std::string> listed;
  for (const ShardedRunShard& s : facts.run.shards) listed.insert(s.shard.id);
  DIR* shards = opendir((facts.dir + "/shards").c_str());
  if (shards == nullptr) return;
  while (dirent* entry = readdir(shards)) {
    const std::string name = entry->d_name;
    if (name != "." && name != ".." && !listed.count(name)) {
      result->Breaks("shards/" + name, "a folder run.json does not list as a shard");
    }
  }
  closedir(shards);
}

// A shard scored more than once: the last scoring is the one collected; the reader sees the
// others, and why they were set aside (a folder that failed verification, or at a resume).
void NoteSetAsideAttempts(const ShardedRunShard& s, const std::string& where,
                          AuditResult* result) {
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
}

// Each shard: its id the hash of its work, scored, and verified (VerifyShard) with its findings
// merged under its folder's name; what it re-derives is kept by record.
Status VerifyShards(ShardedRunFacts* facts, AuditResult* result) {
  const ShardedRun& run = facts->run;
  int audited = 0, derived_seeds = 0;
  for (size_t i = 0; i < run.shards.size(); ++i) {
    const ShardedRunShard& s = run.shards[i];
    const std::string where = kRunFile + ": shards[" + std::to_string(i) + "]";
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
    NoteSetAsideAttempts(s, where, result);
    Result<VerifiedShard> shard =
        VerifyShard(ShardFolder(facts->dir, s.shard.id), s.shard, run,
                    facts->seed_known ? run.seed : "", run.signer, facts->options);
    if (!shard.ok()) return shard.status();
    ++audited;
    if (result->rules.empty()) result->rules = shard->audit.rules;
    Merge(shard->audit, "shards/" + Short(s.shard.id) + "…/", result);
    if (!shard->entry) continue;
    if (shard->seed_derived) ++derived_seeds;
    (s.rerun ? facts->reruns : facts->firsts)[s.shard.record].push_back(shard->derived);
    (s.rerun ? facts->rerun_entries : facts->first_entries)[s.shard.record].push_back(
        *shard->entry);
  }
  result->Checked(std::to_string(audited) + " of " + std::to_string(run.shards.size()) +
                  " shards audited as evidence directories of their own");
  if (facts->seed_known) {
    result->Checked(std::to_string(derived_seeds) +
                    " shard seeds derived again from the revealed run seed");
  }
  return Status::Ok();
}

// A record's shards are its runs 1..N, and its second scoring's N+1..2N: none left out, none
// moved from one scoring to the other.
void CheckRunNumbers(const ShardedRunFacts& facts, const std::string& id, AuditResult* result) {
  const size_t n = facts.firsts.at(id).size();
  std::vector<int64_t> numbers;
  for (const ReportEntry& e : facts.first_entries.at(id)) numbers.push_back(e.runs[0].run);
  std::sort(numbers.begin(), numbers.end());
  for (size_t k = 0; k < numbers.size(); ++k) {
    if (numbers[k] != static_cast<int64_t>(k + 1)) {
      result->Breaks(kRunFile + ": shards", "record " + id + "'s first scoring is not runs 1.." +
                                                std::to_string(n) + " (a run is missing or moved)");
      break;
    }
  }
  auto again_entries = facts.rerun_entries.find(id);
  if (again_entries == facts.rerun_entries.end()) return;
  std::vector<int64_t> again;
  for (const ReportEntry& e : again_entries->second) again.push_back(e.runs[0].run);
  std::sort(again.begin(), again.end());
  bool contiguous = again.size() == n;
  for (size_t k = 0; contiguous && k < again.size(); ++k) {
    contiguous = again[k] == static_cast<int64_t>(n + k + 1);
  }
  if (!contiguous) {
    result->Breaks(kRunFile + ": shards", "record " + id + "'s second scoring is not runs " +
                                              std::to_string(n + 1) + ".." +
                                              std::to_string(2 * n));
  }
}

// The claim, field for field, is the one its shards' entries make (runs, band, energy, flags).
void CheckClaimedEntry(const ShardedRunFacts& facts, const std::string& id, const Json& claimed,
                       AuditResult* result) {
  if (!claimed.is_object()) return;
  Json mine = claimed;
  mine.erase("rerun");
  if (mine != ReportEntryJson(CombineShardEntries(facts.first_entries.at(id)))) {
    result->Breaks(kRunFile + ": report.records." + id,
                   "not the entry its shards' reports make (runs, band, energy, flags)");
  }
  auto again = facts.rerun_entries.find(id);
  if (again != facts.rerun_entries.end() && claimed.contains("rerun") &&
      claimed["rerun"] != ReportEntryJson(CombineShardEntries(again->second))) {
    result->Breaks(kRunFile + ": report.records." + id + ".rerun",
                   "not the entry its second scoring's shards make");
  }
}

// "<id>: qualified, ranked 1.234 ms (3 shards); scored again: qualified".
std::string ClaimLine(const std::string& id, const AuditedRecord& record, size_t shards) {
  std::string claim = id + ": " + (record.first.qualified ? "qualified" : "disqualified");
  if (record.first.ranked_ms) {
    char ms[32];
    std::snprintf(ms, sizeof ms, "%.3f", *record.first.ranked_ms);
    claim += std::string(", ranked ") + ms + " ms";
  }
  claim += " (" + std::to_string(shards) + (shards == 1 ? " shard)" : " shards)");
  if (record.rerun) {
    claim += "; scored again: ";
    claim += record.rerun->qualified ? "qualified" : "disqualified";
  }
  return claim;
}

// Each record's claim in run.json's report against what its shards re-derive; and no record
// claimed that no shard scored.
void CheckRecords(const ShardedRunFacts& facts, AuditResult* result) {
  const ShardedRun& run = facts.run;
  const Json records = run.report.is_object() ? run.report.value("records", Json()) : Json();
  if (run.state == "complete" && !records.is_object()) {
    result->Breaks(kRunFile + ": report.records", "missing: the run claims nothing");
  }
  for (const auto& [id, scorings] : facts.firsts) {
    const std::string where = kRunFile + ": report.records." + id;
    std::optional<AuditedScoring> first = Combine(scorings);
    if (!first) {
      result->Breaks(where, "its shards scored more than one submission or band");
      continue;
    }
    AuditedRecord record{*first, std::nullopt};
    const Json claimed = records.is_object() ? records.value(id, Json()) : Json();
    CheckRunNumbers(facts, id, result);
    CheckClaimedEntry(facts, id, claimed, result);
    CompareScoring(claimed, *first, "report.records." + id, result);
    if (facts.reruns.count(id)) {
      record.rerun = Combine(facts.reruns.at(id));
      if (record.rerun) {
        CompareScoring(claimed.is_object() ? claimed.value("rerun", Json()) : Json(),
                       *record.rerun, "report.records." + id + ".rerun", result);
      }
    } else if (claimed.is_object() && claimed.contains("rerun")) {
      result->Breaks(where + ".rerun", "no shard scored it again");
    }
    result->records[id] = record;
    result->claims.push_back(ClaimLine(id, record, scorings.size()));
  }
  if (!records.is_object()) return;
  for (const auto& [id, value] : records.items()) {
    if (!facts.firsts.count(id)) {
      result->Breaks(kRunFile + ": report.records." + id, "no shard of the run scored it");
    }
  }
}

// The exit code the run's differences give.
void CheckRunExitCode(const ShardedRunFacts& facts, AuditResult* result) {
  const ShardedRun& run = facts.run;
  if (run.state != "complete") return;
  // The part is read by its owner; one it cannot read has no errors to trust: exit 1 is due.
  FieldReader reader(kRunFile, result);
  const std::optional<RatchetReport> part =
      run.report.is_object() ? ReadRatchetReport(run.report, reader, "report") : std::nullopt;
  const bool no_errors = part && part->errors.empty();
  if (run.exit_code != (no_errors ? 0 : 1)) {
    result->Breaks(kRunFile + ": exit_code", std::to_string(run.exit_code) +
                                                 " where the run's differences give " +
                                                 (no_errors ? "0" : "1"));
  }
}

}  // namespace

// The checks of a sharded run, in order (docs/distributed.md, "Verify and collect").
Status AuditShardedRun(const std::string& dir, const EvidenceAuditOptions& given,
                       AuditResult* result) {
  Result<ShardedRun> read = ReadShardedRun(dir);
  if (!read.ok()) return Status::BadInput(read.status().message());
  ShardedRunFacts facts(dir, *read, given);
  result->format = "a ratchet sharded run (state " + facts.run.state + ", " +
                   std::to_string(facts.run.shards.size()) + " shards)";
  CheckRunState(facts, result);
  CheckRunManifestAndSigner(facts, result);
  CheckRunTopLevel(facts, result);
  CheckRunSeed(&facts, result);
  if (!facts.options.datasets) {
    // Located once for every shard.
    Result<DataSearch> search = MakeDataSearch(facts.options.data_dir);
    if (!search.ok()) return search.status();
    Result<std::vector<LocatedDataset>> located = LocateDatasets(*search);
    if (!located.ok()) return located.status();
    facts.options.datasets = std::move(located).value();
  }
  CheckShardFoldersListed(facts, result);
  RATCHET_RETURN_IF_ERROR(VerifyShards(&facts, result));
  CheckRecords(facts, result);
  CheckRunExitCode(facts, result);
  return Status::Ok();
}

}  // namespace ratchet
