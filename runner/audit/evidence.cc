#include "audit/evidence.h"

#include <algorithm>
#include <set>

#include "audit/evidence_record.h"
#include "audit/evidence_run.h"
#include "audit/numbers.h"
#include "baseline/ratchet_report.h"
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

// What the audit of a directory read, for its checks: the evidence reader's summary, the
// contract, what each run's audit shares (EvidenceContext: every item, the rule set, the seed),
// and report.json's parts once read.
struct DirectoryFacts {
  DirectoryFacts(const std::string& dir_in, const EvidenceAuditOptions& options_in,
                 EvidenceSummary summary_in)
      : dir(dir_in),
        options(options_in),
        summary(std::move(summary_in)),
        contract(summary.contract) {}

  const std::string& dir;
  const EvidenceAuditOptions& options;
  EvidenceSummary summary;
  const ContractView contract;
  std::vector<FolderItem> scanned;  // every item under dir, as ScanFolder lists them
  EvidenceContext context;

  // report.json: its records (nullptr when it has none that can be read), its sandbox and the
  // part `ratchet run` writes, read by its owner with a reader of its own (nullopt when absent,
  // or when malformed: the reader then broke the claim naming the field).
  const Json* records = nullptr;
  std::optional<std::string> sandbox;
  bool has_ratchet_part = false;
  std::optional<RatchetReport> ratchet;
  // The records that make a claim, and whether the last scoring of each qualified.
  int record_count = 0;
  bool all_qualified = true;
};

// The contract locks a rule set nobody has and no longer matches its manifest: that it changed
// is the finding, not a rule set to give. Nothing is re-judged.
bool ReportUnjudgedContract(const EvidenceSummary& summary, const Status& why,
                            AuditResult* result) {
  const bool contract_changed =
      std::any_of(summary.findings.begin(), summary.findings.end(),
                  [](const EvidenceFinding& f) { return f.file == kContractFile; });
  if (!contract_changed) return false;
  result->format = "a ratchet evidence directory (status " + summary.status + ")";
  for (const EvidenceFinding& finding : summary.findings) {
    result->Breaks(finding.file, finding.problem);
  }
  result->Note(kContractFile, "no run was re-judged: " + why.message());
  return true;
}

// A lane is named by the hash of its facts: facts edited after the run name another lane.
void CheckLaneId(const DirectoryFacts& facts, AuditResult* result) {
  const ContractView& contract = facts.contract;
  if (!contract.lane().ok()) return;
  Result<std::string> id = LaneId(*contract.lane());
  if (id.ok() && Json(*id) != contract.lane_id().found_or_null()) {
    result->Breaks(std::string(kContractFile) + ": lane.id",
                   JsonShown(contract.lane_id().found_or_null()) +
                       ", but the lane's facts hash to " + *id +
                       ": the lane was edited after the run");
  }
}

// The evidence reader's findings (every file with its size and sha256, nothing missing or extra,
// status.json well formed); those that are a disagreement with the manifest name it, since
// either side may be the one that changed.
void CheckFilesAgainstManifest(const DirectoryFacts& facts, AuditResult* result) {
  const EvidenceSummary& summary = facts.summary;
  std::vector<EvidenceFinding> against_manifest;
  if (!summary.manifest.empty())
    against_manifest = CompareWithManifest(facts.scanned, summary.manifest);
  for (const EvidenceFinding& finding : summary.findings) {
    const bool manifest = std::any_of(
        against_manifest.begin(), against_manifest.end(), [&](const EvidenceFinding& f) {
          return f.file == finding.file && f.problem == finding.problem;
        });
    result->Breaks(finding.file, manifest && finding.file != kManifestFile
                                     ? "does not match MANIFEST.json: " + finding.problem
                                     : finding.problem);
  }
}

// Only a complete run makes a claim: a hidden partial folder or a run that ended otherwise is a
// finding. A complete one whose files all agree with the manifest is checked.
void CheckStatus(const DirectoryFacts& facts, AuditResult* result) {
  const EvidenceSummary& summary = facts.summary;
  if (summary.partial) {
    result->Breaks(BaseName(facts.dir),
                   "a hidden partial folder: the run stopped before it finished, so its "
                   "evidence is incomplete and never audits as complete");
  } else if (summary.status != kStatusComplete) {
    result->Breaks(kStatusFile,
                   "the run ended " + summary.status +
                       (summary.exit_code >= 0 ? " (exit " + std::to_string(summary.exit_code) + ")"
                                               : std::string()) +
                       (summary.message.empty() ? "" : ": " + summary.message) +
                       "; only a complete run makes a claim");
  } else if (summary.findings.empty()) {
    result->Checked("the manifest (" +
                    Plural(static_cast<int>(summary.manifest.size()), "file", "files") +
                    ", each with its size and sha256, none missing or extra)");
  }
}

// seed.reveal is the seed seed.commit binds; it then plans each run (facts->context.seed).
// Without a revealed seed nothing the seed decides can be re-derived.
void CheckSeed(DirectoryFacts* facts, AuditResult* result) {
  const EvidenceSummary& summary = facts->summary;
  if (!summary.seed_reveal.empty() && !summary.seed_commit.empty() &&
      SeedMatchesCommit(summary.seed_reveal, summary.seed_commit)) {
    Result<RunSeed> seed = ParseRunSeed(summary.seed_reveal, kSeedRevealFile);
    if (seed.ok()) {
      facts->context.seed = *seed;
      result->Checked("seed.reveal is the seed seed.commit binds");
    }
  } else if (summary.seed_reveal.empty()) {
    result->Note(kSeedRevealFile,
                 "no revealed seed: the plan of each run and its correct labels cannot be "
                 "re-derived");
  }
}

// Nothing at the top but what a run writes there.
void CheckTopLevelEntries(const DirectoryFacts& facts, AuditResult* result) {
  static const std::set<std::string> kTopLevel = {kManifestFile, kStatusFile,     kContractFile,
                                                  kReportFile,   kSeedCommitFile, kSeedRevealFile,
                                                  kRecordsFolder};
  for (const auto& [item_path, item] : facts.context.items) {
    if (item_path.find('/') == std::string::npos && kTopLevel.count(item_path) == 0) {
      result->Breaks(item_path, "not part of a run's evidence: a run writes only " +
                                    std::string(kContractFile) + ", " + kReportFile + ", " +
                                    kSeedCommitFile + ", " + kSeedRevealFile + ", " + kStatusFile +
                                    ", " + kManifestFile + " and " + kRecordsFolder +
                                    "/ at the top");
    }
  }
}

// contract.json's `locked` and its rule set, each an object; else a finding naming the first
// that is not.
void CheckLockedRuleSet(const DirectoryFacts& facts, AuditResult* result) {
  if (!facts.contract.json().is_object()) return;
  const ContractField<Json> locked_rules = facts.contract.locked_rules();
  if (!locked_rules.ok()) {
    result->Breaks(std::string(kContractFile) + ": " + locked_rules.wrong_path(),
                   locked_rules.problem());
  }
}

// Official or not: a CPU lane is a note that makes the claim unofficial; a device kind other than
// cpu or cuda, or none, is a finding.
void CheckDeviceKind(const DirectoryFacts& facts, AuditResult* result) {
  if (!facts.contract.json().is_object()) return;
  const Json kind = facts.contract.device_kind().found_or_null();
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
}

// The datasets the calls were drawn from must be the ones ratchet knows: with other files locked,
// no audit could re-count a label against the real draws.
void CheckLockedDatasets(const DirectoryFacts& facts, AuditResult* result) {
  const ContractView& contract = facts.contract;
  if (!contract.json().is_object()) return;
  const ContractField<Json> datasets = contract.locked_datasets();
  if (!datasets.ok()) return;
  for (const auto& [name, entry] : datasets->items()) {
    if (entry.is_null()) continue;  // not there when the run was scored
    const std::string where = std::string(kContractFile) + ": " + JoinPath(datasets.path(), name);
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
                           identity->sha256 + ": the calls were not drawn from the known dataset");
      }
    }
  }
}

// report.json's records, sandbox and `ratchet` part, into `facts`. False when there is nothing
// more to check: no report (a claim of nothing, when the run is complete), or a document that is
// not ratchet's report.
bool ReadReport(DirectoryFacts* facts, AuditResult* result) {
  const Json& report = facts->summary.report;
  if (!report.is_object()) {
    if (!report.is_null())
      result->Breaks(kReportFile, "expected an object, found " + JsonTypeName(report));
    if (facts->summary.status == kStatusComplete)
      result->claims.push_back("no report: nothing is claimed");
    return false;
  }
  FieldReader reader(kReportFile, result);
  facts->records = ReportRecordsObject(report, reader);
  if (facts->records == nullptr && report.value("schema", Json()) != Json(kReportSchema)) {
    return false;
  }
  facts->sandbox = reader.String(report, "", "sandbox");
  facts->has_ratchet_part = report.contains(kRatchetReportKey);
  if (facts->has_ratchet_part) {
    FieldReader part_reader(kReportFile, result);  // its own: a finding elsewhere is not its
    facts->ratchet = ReadRatchetReport(report, part_reader);
  }
  return true;
}

// A "full" report needs a contract that observed the full sandbox: without it, nothing says the
// workers ran in one.
void CheckReportSandbox(const DirectoryFacts& facts, AuditResult* result) {
  const Json observed_sandbox = facts.contract.sandbox().found_or_null();
  if (facts.sandbox && (*facts.sandbox == "full") != (observed_sandbox == Json("full"))) {
    result->Breaks(std::string(kReportFile) + ": sandbox",
                   Quoted(*facts.sandbox) + ", but contract.json's observed.sandbox is " +
                       (observed_sandbox.is_string() ? Quoted(observed_sandbox.get<std::string>())
                                                     : JsonShown(observed_sandbox)));
  }
}

// The rule set `ratchet run` names in the report is the one the contract locks.
void CheckReportRuleSet(const DirectoryFacts& facts, AuditResult* result) {
  if (!facts.ratchet || !facts.ratchet->rule_set.is_object()) return;
  const Json run_rules_id = facts.ratchet->rule_set.value("id", Json());
  const Json locked_id = facts.contract.rules_id().found_or_null();
  if (run_rules_id != locked_id) {
    result->Breaks(std::string(kReportFile) + ": ratchet.rule_set.id",
                   JsonShown(run_rules_id) + ", but contract.json locks the rule set " +
                       JsonShown(locked_id));
  }
}

// Official or not: workers without the full sandbox make the claim unofficial.
void NoteUnsandboxed(const DirectoryFacts& facts, AuditResult* result) {
  if (facts.sandbox && *facts.sandbox != "full") {
    result->NotOfficial(std::string(kReportFile) + ": sandbox",
                        Quoted(*facts.sandbox) + ": the workers ran without the full sandbox",
                        "the workers ran without the full sandbox (" + *facts.sandbox + ")");
  }
}

// Each record of the report audited (AuditRecord: its entry, its runs, its outcome re-derived),
// and counted when it makes a claim.
Status AuditRecords(DirectoryFacts* facts, AuditResult* result) {
  for (const auto& [id, record] : facts->records->items()) {
    Result<std::optional<bool>> qualified =
        AuditRecord(facts->context, id, record, facts->options.first_run, result);
    if (!qualified.ok()) return qualified.status();
    if (!*qualified) continue;
    ++facts->record_count;
    facts->all_qualified = facts->all_qualified && **qualified;
  }
  return Status::Ok();
}

// Record folders the report does not list.
void CheckUnlistedRecordFolders(const DirectoryFacts& facts, AuditResult* result) {
  std::set<std::string> unlisted;
  const std::string records_prefix = std::string(kRecordsFolder) + "/";
  for (const auto& [item_path, item] : facts.context.items) {
    if (item_path.rfind(records_prefix, 0) != 0) continue;
    const std::string rest = item_path.substr(records_prefix.size());
    const std::string id = rest.substr(0, rest.find('/'));
    if (!facts.records->contains(id) && unlisted.insert(id).second) {
      result->Breaks(records_prefix + id, "a record folder report.json does not list");
    }
  }
}

// A complete run claims at least one record.
void CheckSomethingClaimed(const DirectoryFacts& facts, AuditResult* result) {
  if (facts.record_count == 0 && facts.summary.status == kStatusComplete) {
    result->Breaks(std::string(kReportFile) + ": records", "no records: nothing is claimed");
  }
}

// A complete run's exit code is what its report makes it: `ratchet run` exits 1 when its
// comparison with the baseline found an error (the report's ratchet.errors), `ratchet score` and
// the scorer alone when a record's last scoring did not qualify. A ratchet part that cannot be
// read (its reader broke the claim already) has no errors to trust: the run exits 1.
void CheckExitCode(const DirectoryFacts& facts, AuditResult* result) {
  const EvidenceSummary& summary = facts.summary;
  if (summary.status != kStatusComplete || summary.exit_code < 0 ||
      facts.record_count != static_cast<int>(facts.records->size())) {
    return;
  }
  std::string why;
  bool clean = false;
  if (!facts.has_ratchet_part) {
    clean = facts.all_qualified;
    why = clean ? "every record qualified" : "a record did not qualify";
  } else if (!facts.ratchet) {
    why = "report.json's ratchet part cannot be read";
  } else {
    clean = facts.ratchet->errors.empty();
    why = std::string("report.json's ratchet.errors ") + (clean ? "is empty" : "lists errors");
  }
  const int expected = clean ? kExitSuccess : kExitFinding;
  if (summary.exit_code != expected) {
    result->Breaks(std::string(kStatusFile) + ": exit_code",
                   std::to_string(summary.exit_code) + ", but " + why + ": the run exits " +
                       std::to_string(expected));
  }
}

// Why labels were not re-counted: each reason once, naming its first labels file.
void NoteSkippedRecounts(const EvidenceContext& context, AuditResult* result) {
  for (const EvidenceContext::Skipped& skipped : context.skipped_recounts) {
    result->Note(
        skipped.first_file + (skipped.calls > 1
                                  ? " and " + Plural(skipped.calls - 1, "more call", "more calls")
                                  : ""),
        "correct not re-counted: " + skipped.why);
  }
}

// The tallies of what the runs' audits re-derived and found agreeing.
void TallyChecked(const EvidenceContext& context, AuditResult* result) {
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
}

}  // namespace

std::string ManifestChangedWhileRead(const std::string& manifest_file, const std::string& read_sha256,
                                     const std::string& signed_sha256) {
  return manifest_file + " changed while it was read: the audit read bytes of sha256 " +
         read_sha256 + ", the signature verified bytes of sha256 " + signed_sha256;
}

void AuditSignature(const std::string& dir, const std::string& manifest_file, AuditResult* result,
                    const std::string& read_manifest_sha256) {
  const SignatureCheck check = CheckSignature(dir, manifest_file);
  if (!check.present) {
    result->Note(kSignatureFile, "unsigned: no signature binds " + manifest_file +
                                     ", so a consistent rewrite of every file and the manifest "
                                     "would not be seen (sign with --sign KEY)");
  } else if (!check.valid) {
    result->Breaks(kSignatureFile, check.problem);
  } else if (!read_manifest_sha256.empty() && check.manifest_sha256 != read_manifest_sha256) {
    result->Breaks(manifest_file, ManifestChangedWhileRead(manifest_file, read_manifest_sha256,
                                                           check.manifest_sha256));
  } else {
    result->signed_by = check.public_hex;
    result->Checked("signed by key " + KeyId(check.public_hex) + " (public key " +
                    check.public_hex + "): SIGNATURE.json verifies against " + manifest_file);
  }
}

// The checks of a directory, in order (docs/audit.md, "What it checks: an evidence directory").
Status AuditEvidence(const std::string& dir, const EvidenceAuditOptions& options,
                     AuditResult* result) {
  Result<EvidenceSummary> summary = ReadEvidence(dir);
  if (!summary.ok()) return summary.status();
  DirectoryFacts facts(dir, options, std::move(summary).value());
  Result<RuleSet> rules = RulesForEvidence(facts.contract, options, result);
  if (!rules.ok()) {
    return ReportUnjudgedContract(facts.summary, rules.status(), result) ? Status::Ok()
                                                                         : rules.status();
  }
  Result<std::vector<FolderItem>> items = ScanFolder(dir);
  if (!items.ok()) return items.status();
  facts.scanned = std::move(items).value();
  facts.context.dir = dir;
  facts.context.rules = &*rules;
  for (const FolderItem& item : facts.scanned) facts.context.items[item.path] = item;
  facts.context.contract = facts.summary.contract;
  facts.context.data_dir = options.data_dir;
  facts.context.recount = options.recount;
  facts.context.datasets = options.datasets;
  result->format = "a ratchet evidence directory (status " + facts.summary.status + ")";
  result->manifest_sha256 = facts.summary.manifest_sha256;

  CheckLaneId(facts, result);
  CheckFilesAgainstManifest(facts, result);
  CheckStatus(facts, result);
  if (options.signature) {
    AuditSignature(dir, kManifestFile, result, facts.summary.manifest_sha256);
  }
  CheckSeed(&facts, result);
  CheckTopLevelEntries(facts, result);
  CheckLockedRuleSet(facts, result);
  CheckDeviceKind(facts, result);
  CheckLockedDatasets(facts, result);
  if (!ReadReport(&facts, result)) return Status::Ok();
  CheckReportSandbox(facts, result);
  CheckReportRuleSet(facts, result);
  NoteUnsandboxed(facts, result);
  if (facts.records == nullptr) return Status::Ok();
  RATCHET_RETURN_IF_ERROR(AuditRecords(&facts, result));
  CheckUnlistedRecordFolders(facts, result);
  CheckSomethingClaimed(facts, result);
  CheckExitCode(facts, result);
  NoteSkippedRecounts(facts.context, result);
  TallyChecked(facts.context, result);
  return Status::Ok();
}

}  // namespace ratchet
