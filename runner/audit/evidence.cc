#include "audit/evidence.h"

#include <algorithm>
#include <set>

#include "audit/evidence_run.h"
#include "audit/numbers.h"
#include "contract/contract.h"
#include "contract/contract_view.h"
#include "core/exit_codes.h"
#include "core/file.h"
#include "data/registry.h"
#include "evidence/fields.h"
#include "evidence/layout.h"
#include "evidence/reader.h"
#include "evidence/report_file.h"
#include "evidence/signature.h"
#include "rules/judge.h"
#include "rules/pyformat.h"
#include "rules/rule_set.h"

namespace ratchet {
namespace {

std::string Quoted(const std::string& text) { return "'" + text + "'"; }

// The rule set the audit judges with: the one --rules gives, which must be the one the evidence
// was scored under, or else the embedded one whose sha256 contract.json locks. Sets
// `result->rules` to say which.
Result<RuleSet> RulesForEvidence(const ContractView& contract, const EvidenceAuditOptions& options,
                                 AuditResult* result) {
  const std::optional<std::string>& given = options.rules_path;
  if (!contract.locked_rules().ok()) {
    // A finding of its own below; the figures are still re-derived, under the rule set given
    // or the default.
    Result<RuleSet> rules = options.rules ? Result<RuleSet>(*options.rules) : LoadRuleSet(given);
    if (rules.ok()) {
      result->rules = rules->id +
                      (options.rules ? " (the run's"
                       : given       ? " (given with --rules"
                                     : " (the default") +
                      "; contract.json locks no rule set)";
    }
    return rules;
  }
  const Json sha256 = contract.rules_sha256().found_or_null();
  Result<const RuleSet*> embedded =
      FindEmbeddedRuleSetBySha256(contract.rules_sha256().value_or(""));
  if (!embedded.ok()) return embedded.status();
  const std::string scored_under = "the evidence was scored under the rule set " +
                                   JsonShown(contract.rules_id().found_or_null()) + " (sha256 " +
                                   JsonShown(sha256) + " in contract.json)";
  const std::string give = *embedded != nullptr
                               ? "give --rules " + (*embedded)->id + ", or leave --rules out"
                               : std::string("give that rule set with --rules FILE");
  if (options.rules) {
    if (sha256 != Json(options.rules->sha256)) {
      return Status::BadInput(scored_under + "; the run names the rule set " + options.rules->id +
                              " (sha256 " + options.rules->sha256 + ") in report.json");
    }
    result->rules = options.rules->id + " (the run's; the rule set contract.json locks, sha256 " +
                    options.rules->sha256 + ")";
    return *options.rules;
  }
  if (!given) {
    if (*embedded == nullptr) {
      return Status::Usage(scored_under +
                           "; no rule set compiled into ratchet has that sha256 (they are " +
                           EmbeddedRuleSetIds() + "): " + give);
    }
    result->rules = (*embedded)->id + " (compiled in; the rule set contract.json locks, sha256 " +
                    (*embedded)->sha256 + ")";
    return **embedded;
  }
  Result<RuleSet> rules = LoadRuleSet(given);
  if (!rules.ok()) return rules.status();
  if (sha256 != Json(rules->sha256)) {
    return Status::Usage(scored_under + "; this audit judges with " + rules->id + " (sha256 " +
                         rules->sha256 + "): " + give);
  }
  result->rules = rules->id + " (given with --rules; the rule set contract.json locks, sha256 " +
                  rules->sha256 + ")";
  return rules;
}

std::string Plural(int n, const std::string& one, const std::string& many) {
  return std::to_string(n) + " " + (n == 1 ? one : many);
}

// What one report entry claims, for the verdict.
struct EntryClaim {
  std::string text;     // "<id> (<file>:<function>) at 5.40% error: qualified, ranked ..."
  std::string outcome;  // "qualified, ranked ..." alone
  int runs = 0;
  std::optional<AuditedScoring> derived;  // when every run could be re-judged
  bool qualified = false;
};

// Audits one report entry (a record, or its "rerun"): its fields, every run it lists (numbered
// from `first_run`), and its outcome, broken rules and ranked time against those runs. nullopt
// when the entry is too damaged to say what it claims (findings say why).
Result<std::optional<EntryClaim>> AuditEntry(EvidenceContext& context, const std::string& id,
                                             const Json& record, const std::string& path,
                                             int first_run, std::set<std::string>* listed_folders,
                                             AuditResult* result) {
  FieldReader record_reader(kReportFile, result);
  std::optional<ReportEntry> entry = ReadReportEntry(record, path, record_reader);
  if (!entry) return std::optional<EntryClaim>();
  if (entry->band_bp < 1 || entry->band_bp > 9999) {
    result->Breaks(std::string(kReportFile) + ": " + JoinPath(path, "band_bp"),
                   std::to_string(entry->band_bp) + " is not a band of 1..9999 basis points");
    return std::optional<EntryClaim>();
  }
  RecordFacts facts{id, entry->submission, entry->sha256, entry->band_bp};

  bool all_known = true, all_qualified = true;
  std::vector<double> ranked;
  std::vector<double> energy_mj;  // the runs' energy figures (each checked against energy.json)
  std::set<std::string> rules_broken;
  for (size_t i = 0; i < entry->runs.size(); ++i) {
    const std::string run_path = JoinPath(JoinPath(path, "runs"), i);
    const ReportRun& report_run = entry->runs[i];
    const int64_t expected_number = first_run + static_cast<int64_t>(i);
    if (report_run.run != expected_number) {
      result->Breaks(std::string(kReportFile) + ": " + JoinPath(run_path, "run"),
                     std::to_string(report_run.run) + " where run " +
                         std::to_string(expected_number) + " belongs; runs are numbered in order");
      all_known = false;
      continue;
    }
    listed_folders->insert(RunFolder(id, static_cast<int>(report_run.run)));
    Result<RunOutcomeFacts> run =
        AuditRun(context, facts, static_cast<int>(report_run.run), report_run, run_path, result);
    if (!run.ok()) return run.status();
    if (!run->known) {
      all_known = false;
      continue;
    }
    if (report_run.energy.is_object() &&
        report_run.energy.value("mj_per_call", Json()).is_number()) {
      energy_mj.push_back(report_run.energy["mj_per_call"].get<double>());
    }
    if (run->qualified && run->ranked_ms) {
      ranked.push_back(*run->ranked_ms);
    } else {
      all_qualified = false;
      rules_broken.insert(run->rules_broken.begin(), run->rules_broken.end());
    }
  }
  if (entry->runs.empty()) {
    result->Breaks(std::string(kReportFile) + ": " + JoinPath(path, "runs"),
                   "no runs: nothing backs the outcome");
    all_known = false;
  }

  // The entry's outcome and time follow from its runs.
  if (all_known) {
    const std::string expected_status = all_qualified ? "qualified" : "disqualified";
    const std::vector<std::string> expected_broken(rules_broken.begin(), rules_broken.end());
    const double median = all_qualified ? Median(ranked) : 0.0;
    if (entry->qualified != all_qualified) {
      result->Breaks(std::string(kReportFile) + ": " + JoinPath(path, "outcome.status"),
                     Quoted(entry->status()) + ", but its runs make it " + expected_status);
    }
    if (entry->broken != expected_broken) {
      result->Breaks(std::string(kReportFile) + ": " + JoinPath(path, "outcome.broken"),
                     JsonShown(Json(entry->broken)) + ", but its runs break " +
                         JsonShown(Json(expected_broken)));
    }
    if (entry->ranked_ms.has_value() != all_qualified ||
        (all_qualified && *entry->ranked_ms != median)) {
      result->Breaks(std::string(kReportFile) + ": " + JoinPath(path, "ranked_ms"),
                     (entry->ranked_ms ? ExactNumber(*entry->ranked_ms) : std::string("null")) +
                         ", but its runs give " +
                         (all_qualified ? ExactNumber(median) + " (the median of " +
                                              std::to_string(ranked.size()) + ")"
                                        : std::string("null")));
    }
  }
  // The record's energy follows from its runs' too: the median of their figures (the column is
  // measured once per record) when every run qualified, else null, and how many have one.
  if (all_known) {
    const bool figure = all_qualified && !energy_mj.empty();
    const std::optional<double> expected_mj =
        figure ? std::optional<double>(Median(energy_mj)) : std::nullopt;
    if (entry->energy_mj != expected_mj) {
      result->Breaks(std::string(kReportFile) + ": " + JoinPath(path, "energy.mj_per_call"),
                     (entry->energy_mj ? ExactNumber(*entry->energy_mj) : std::string("null")) +
                         ", but its runs give " +
                         (figure ? ExactNumber(*expected_mj) : std::string("null")));
    }
    if (entry->energy_runs_measured != static_cast<int64_t>(energy_mj.size())) {
      result->Breaks(std::string(kReportFile) + ": " + JoinPath(path, "energy.runs_measured"),
                     std::to_string(entry->energy_runs_measured) + ", but " +
                         std::to_string(energy_mj.size()) + " of its runs have an energy figure");
    }
  }
  EntryClaim claim;
  claim.runs = static_cast<int>(entry->runs.size());
  if (all_known) {
    claim.derived =
        AuditedScoring{entry->sha256, entry->band_bp, all_qualified,
                       std::vector<std::string>(rules_broken.begin(), rules_broken.end()),
                       all_qualified ? std::optional<double>(Median(ranked)) : std::nullopt};
  }
  claim.qualified = entry->qualified;
  claim.outcome = entry->status();
  if (entry->qualified && entry->ranked_ms) {
    claim.outcome +=
        ", ranked " + FormatFixed(*entry->ranked_ms, 3) + " ms" +
        (entry->runs.size() > 1 ? " (median of " + std::to_string(entry->runs.size()) + " runs)"
                                : "");
  } else {
    std::string rules;
    for (const std::string& rule : entry->broken) rules += (rules.empty() ? "" : ", ") + rule;
    if (!rules.empty()) claim.outcome += " (rules broken: " + rules + ")";
  }
  claim.text = id + " (" + entry->submission + ":" + entry->function + ") at " +
               FormatFixed(entry->band_bp / 100.0, 2) + "% error: " + claim.outcome;
  return std::optional<EntryClaim>(claim);
}

}  // namespace

void AuditSignature(const std::string& dir, const std::string& manifest_file,
                    AuditResult* result) {
  const SignatureCheck check = CheckSignature(dir, manifest_file);
  if (!check.present) {
    result->Note(kSignatureFile, "unsigned: no signature binds " + manifest_file +
                                     ", so a consistent rewrite of every file and the manifest "
                                     "would not be seen (sign with --sign KEY)");
  } else if (!check.valid) {
    result->Breaks(kSignatureFile, check.problem);
  } else {
    result->signed_by = check.public_hex;
    result->Checked("signed by key " + KeyId(check.public_hex) + " (public key " +
                    check.public_hex + "): SIGNATURE.json verifies against " + manifest_file);
  }
}

Status AuditEvidence(const std::string& dir, const EvidenceAuditOptions& options,
                     AuditResult* result) {
  Result<EvidenceSummary> summary = ReadEvidence(dir);
  if (!summary.ok()) return summary.status();
  const ContractView contract(summary->contract);
  Result<RuleSet> rules = RulesForEvidence(contract, options, result);
  if (!rules.ok()) {
    // A contract.json changed after the run may lock a rule set nobody has: that it no longer
    // matches its manifest is the finding, not a rule set to give.
    const bool contract_changed =
        std::any_of(summary->findings.begin(), summary->findings.end(),
                    [](const EvidenceFinding& f) { return f.file == kContractFile; });
    if (!contract_changed) return rules.status();
    result->format = "a ratchet evidence directory (status " + summary->status + ")";
    for (const EvidenceFinding& finding : summary->findings) {
      result->Breaks(finding.file, finding.problem);
    }
    result->Note(kContractFile, "no run was re-judged: " + rules.status().message());
    return Status::Ok();
  }
  Result<std::vector<FolderItem>> items = ScanFolder(dir);
  if (!items.ok()) return items.status();

  result->format = "a ratchet evidence directory (status " + summary->status + ")";
  // A lane is named by the hash of its facts: facts edited after the run name another lane.
  if (contract.lane().ok()) {
    Result<std::string> id = LaneId(*contract.lane());
    if (id.ok() && Json(*id) != contract.lane_id().found_or_null()) {
      result->Breaks(std::string(kContractFile) + ": lane.id",
                     JsonShown(contract.lane_id().found_or_null()) +
                         ", but the lane's facts hash to " + *id +
                         ": the lane was edited after the run");
    }
  }
  // The reader's findings; those that are a disagreement with the manifest name it, since
  // either side may be the one that changed.
  std::vector<EvidenceFinding> against_manifest;
  if (!summary->manifest.empty()) against_manifest = CompareWithManifest(*items, summary->manifest);
  for (const EvidenceFinding& finding : summary->findings) {
    const bool manifest = std::any_of(
        against_manifest.begin(), against_manifest.end(), [&](const EvidenceFinding& f) {
          return f.file == finding.file && f.problem == finding.problem;
        });
    result->Breaks(finding.file, manifest && finding.file != kManifestFile
                                     ? "does not match MANIFEST.json: " + finding.problem
                                     : finding.problem);
  }
  if (summary->partial) {
    result->Breaks(BaseName(dir),
                   "a hidden partial folder: the run stopped before it finished, so its "
                   "evidence is incomplete and never audits as complete");
  } else if (summary->status != kStatusComplete) {
    result->Breaks(kStatusFile, "the run ended " + summary->status +
                                    (summary->exit_code >= 0
                                         ? " (exit " + std::to_string(summary->exit_code) + ")"
                                         : std::string()) +
                                    (summary->message.empty() ? "" : ": " + summary->message) +
                                    "; only a complete run makes a claim");
  } else if (summary->findings.empty()) {
    result->Checked("the manifest (" +
                    Plural(static_cast<int>(summary->manifest.size()), "file", "files") +
                    ", each with its size and sha256, none missing or extra)");
  }

  if (options.signature) AuditSignature(dir, kManifestFile, result);

  EvidenceContext context;
  context.dir = dir;
  context.rules = &*rules;
  for (FolderItem& item : *items) context.items[item.path] = item;
  context.contract = summary->contract;
  context.data_dir = options.data_dir;
  context.recount = options.recount;
  context.datasets = options.datasets;
  if (!summary->seed_reveal.empty() && !summary->seed_commit.empty() &&
      SeedMatchesCommit(summary->seed_reveal, summary->seed_commit)) {
    Result<RunSeed> seed = ParseRunSeed(summary->seed_reveal, kSeedRevealFile);
    if (seed.ok()) {
      context.seed = *seed;
      result->Checked("seed.reveal is the seed seed.commit binds");
    }
  } else if (summary->seed_reveal.empty()) {
    result->Note(kSeedRevealFile,
                 "no revealed seed: the plan of each run and its correct labels cannot be "
                 "re-derived");
  }

  // Nothing at the top but what a run writes there.
  static const std::set<std::string> kTopLevel = {kManifestFile, kStatusFile,     kContractFile,
                                                  kReportFile,   kSeedCommitFile, kSeedRevealFile,
                                                  kRecordsFolder};
  for (const auto& [item_path, item] : context.items) {
    if (item_path.find('/') == std::string::npos && kTopLevel.count(item_path) == 0) {
      result->Breaks(item_path, "not part of a run's evidence: a run writes only " +
                                    std::string(kContractFile) + ", " + kReportFile + ", " +
                                    kSeedCommitFile + ", " + kSeedRevealFile + ", " + kStatusFile +
                                    ", " + kManifestFile + " and " + kRecordsFolder +
                                    "/ at the top");
    }
  }

  // Official or not.
  if (contract.json().is_object()) {
    // `locked` and its rule set, each an object; else a finding naming the first that is not.
    const ContractField<Json> locked_rules = contract.locked_rules();
    if (!locked_rules.ok()) {
      result->Breaks(std::string(kContractFile) + ": " + locked_rules.wrong_path(),
                     locked_rules.problem());
    }
    const Json kind = contract.device_kind().found_or_null();
    if (kind == Json("cpu")) {
      result->NotOfficial(std::string(kContractFile) + ": lane.device.kind",
                          "cpu: the calls ran on a CPU, not on a GPU", "a CPU lane");
    } else if (!kind.is_string()) {
      result->Breaks(std::string(kContractFile) + ": lane.device.kind",
                     "missing: the lane's device is not recorded");
    } else if (kind != Json("cuda")) {
      result->Breaks(std::string(kContractFile) + ": lane.device.kind",
                     JsonShown(kind) + ": not a device ratchet scores on (cpu or cuda)");
    }
    // The datasets the calls were drawn from must be the ones ratchet knows: with other files
    // locked, no audit could re-count a label against the real draws.
    const ContractField<Json> datasets = contract.locked_datasets();
    if (datasets.ok()) {
      for (const auto& [name, entry] : datasets->items()) {
        if (entry.is_null()) continue;  // not there when the run was scored
        const std::string where =
            std::string(kContractFile) + ": " + JoinPath(datasets.path(), name);
        const DatasetSpec* spec = FindDataset(name);
        if (spec == nullptr) {
          result->Breaks(where, "not a dataset ratchet knows (" + DatasetNames() + ")");
          continue;
        }
        const std::pair<ContractField<std::string>, const IdxIdentity*> files[] = {
            {contract.dataset_images_sha256(name), &spec->images},
            {contract.dataset_labels_sha256(name), &spec->labels}};
        for (const auto& [locked_file, identity] : files) {
          if (identity->sha256.empty()) continue;  // pinned by another hash: nothing to compare
          const Json value = locked_file.found_or_null();
          if (value != Json(identity->sha256)) {
            result->Breaks(std::string(kContractFile) + ": " + locked_file.path(),
                           JsonShown(value) + ", but the " + name + " ratchet knows has " +
                               identity->sha256 +
                               ": the calls were not drawn from the known dataset");
          }
        }
      }
    }
  }
  const Json& report = summary->report;
  if (!report.is_object()) {
    if (!report.is_null())
      result->Breaks(kReportFile, "expected an object, found " + JsonTypeName(report));
    if (summary->status == kStatusComplete)
      result->claims.push_back("no report: nothing is claimed");
    return Status::Ok();
  }
  FieldReader reader(kReportFile, result);
  const Json* records = ReportRecordsObject(report, reader);
  if (records == nullptr && report.value("schema", Json()) != Json(kReportSchema)) {
    return Status::Ok();
  }
  std::optional<std::string> sandbox = reader.String(report, "", "sandbox");
  const Json observed_sandbox = contract.sandbox().found_or_null();
  // A "full" report needs a contract that observed the full sandbox: without it, nothing says
  // the workers ran in one.
  if (sandbox && (*sandbox == "full") != (observed_sandbox == Json("full"))) {
    result->Breaks(std::string(kReportFile) + ": sandbox",
                   Quoted(*sandbox) + ", but contract.json's observed.sandbox is " +
                       (observed_sandbox.is_string() ? Quoted(observed_sandbox.get<std::string>())
                                                     : JsonShown(observed_sandbox)));
  }
  // The rule set `ratchet run` names in the report is the one the contract locks.
  const Json ratchet_part = report.value("ratchet", Json());
  const Json run_rules = ratchet_part.is_object() ? ratchet_part.value("rule_set", Json()) : Json();
  const Json locked_id = contract.rules_id().found_or_null();
  if (run_rules.is_object() && run_rules.value("id", Json()) != locked_id) {
    result->Breaks(std::string(kReportFile) + ": ratchet.rule_set.id",
                   JsonShown(run_rules.value("id", Json())) +
                       ", but contract.json locks the rule set " + JsonShown(locked_id));
  }
  if (sandbox && *sandbox != "full") {
    result->NotOfficial(std::string(kReportFile) + ": sandbox",
                        Quoted(*sandbox) + ": the workers ran without the full sandbox",
                        "the workers ran without the full sandbox (" + *sandbox + ")");
  }
  if (records == nullptr) return Status::Ok();

  int record_count = 0;
  bool all_qualified = true;  // the last scoring of every record the report could say
  for (const auto& [id, record] : records->items()) {
    const std::string path = JoinPath("records", id);
    Status plain = CheckEvidencePath(id);
    if (!plain.ok() || id.find('/') != std::string::npos) {
      result->Breaks(std::string(kReportFile) + ": " + path, "not a record id that names a folder");
      continue;
    }
    if (!reader.IsObject(record, path)) continue;
    std::set<std::string> listed_folders;
    Result<std::optional<EntryClaim>> main_claim =
        AuditEntry(context, id, record, path, options.first_run, &listed_folders, result);
    if (!main_claim.ok()) return main_claim.status();
    if (!*main_claim) {
      result->claims.push_back(id + ": a report entry too damaged to say what it claims");
      continue;
    }
    ++record_count;
    bool qualified = (*main_claim)->qualified;
    std::string claim = (*main_claim)->text;
    std::optional<AuditedRecord> derived;
    if ((*main_claim)->derived) derived = AuditedRecord{*(*main_claim)->derived, std::nullopt};
    // A record scored once more (a time outside its tolerance): its runs follow the first ones.
    if (record.contains("rerun")) {
      const std::string rerun_path = JoinPath(path, "rerun");
      Result<std::optional<EntryClaim>> rerun =
          AuditEntry(context, id, record["rerun"], rerun_path, options.first_run + (*main_claim)->runs,
                     &listed_folders, result);
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
    all_qualified = all_qualified && qualified;
    if (derived) result->records[id] = *derived;
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
    result->claims.push_back(claim);
  }
  // Record folders the report does not list.
  std::set<std::string> unlisted;
  const std::string records_prefix = std::string(kRecordsFolder) + "/";
  for (const auto& [item_path, item] : context.items) {
    if (item_path.rfind(records_prefix, 0) != 0) continue;
    const std::string rest = item_path.substr(records_prefix.size());
    const std::string id = rest.substr(0, rest.find('/'));
    if (!records->contains(id) && unlisted.insert(id).second) {
      result->Breaks(records_prefix + id, "a record folder report.json does not list");
    }
  }
  if (record_count == 0 && summary->status == kStatusComplete) {
    result->Breaks(std::string(kReportFile) + ": records", "no records: nothing is claimed");
  }
  // A complete run's exit code is what its report makes it: `ratchet run` exits 1 when its
  // comparison with the baseline found an error (the report's ratchet.errors), `ratchet score`
  // and the scorer alone when a record's last scoring did not qualify.
  const Json errors = ratchet_part.is_object() ? ratchet_part.value("errors", Json()) : Json();
  const bool compared = ratchet_part.is_object() && errors.is_array();
  if (summary->status == kStatusComplete && summary->exit_code >= 0 &&
      record_count == static_cast<int>(records->size()) &&
      (compared || !ratchet_part.is_object())) {
    const bool clean = compared ? errors.empty() : all_qualified;
    const int expected = clean ? kExitSuccess : kExitFinding;
    if (summary->exit_code != expected) {
      result->Breaks(std::string(kStatusFile) + ": exit_code",
                     std::to_string(summary->exit_code) + ", but " +
                         (compared ? "report.json's ratchet.errors " +
                                         std::string(clean ? "is empty" : "lists errors")
                                   : std::string(clean ? "every record qualified"
                                                       : "a record did not qualify")) +
                         ": the run exits " + std::to_string(expected));
    }
  }

  for (const EvidenceContext::Skipped& skipped : context.skipped_recounts) {
    result->Note(
        skipped.first_file + (skipped.calls > 1
                                  ? " and " + Plural(skipped.calls - 1, "more call", "more calls")
                                  : ""),
        "correct not re-counted: " + skipped.why);
  }
  if (context.submissions > 0) {
    result->Checked("the submission's sha256 in " + Plural(context.submissions, "run", "runs"));
  }
  if (context.runs_judged > 0) {
    result->Checked(Plural(context.runs_judged, "run", "runs") + " re-judged from " +
                    Plural(context.calls_judged, "call", "calls") +
                    " (problems, summary, ranked time)");
  }
  if (context.plans > 0) {
    result->Checked(
        "the plan of " + Plural(context.plans, "run", "runs") +
        " (hold-out, warm-up, each call's dataset and draw) regenerated from the revealed seed");
  }
  if (context.labels_counted > 0) {
    result->Checked("correct re-counted for " + Plural(context.labels_counted, "call", "calls") +
                    " from their labels against draws regenerated from the revealed seed");
  }
  return Status::Ok();
}

}  // namespace ratchet
