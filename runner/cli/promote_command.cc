// `ratchet promote`: writes reviewed outcomes into a baseline, with a reviewer and a reason, only
// from evidence that `ratchet audit` lets stand and that was compared with this very baseline; what
// it writes is what the audit re-derives, and the run's comparison is made again and must agree.
#include <sys/stat.h>

#include <algorithm>
#include <filesystem>
#include <map>
#include <set>
#include <sstream>
#include <string>
#include <vector>

#include "audit/evidence.h"
#include "audit/result.h"
#include "shard/reviewed_evidence.h"
#include "baseline/baseline.h"
#include "baseline/baseline_lock.h"
#include "baseline/input_file.h"
#include "baseline/ratchet.h"
#include "baseline/ratchet_report.h"
#include "cli/commands.h"
#include "compare/terminal_text.h"
#include "contract/contract_view.h"
#include "core/args.h"
#include "core/exit_codes.h"
#include "core/file.h"
#include "core/fresh_directory.h"
#include "core/sha256.h"
#include "evidence/fields.h"
#include "evidence/layout.h"
#include "evidence/manifest.h"
#include "evidence/reader.h"
#include "evidence/signature.h"
#include "rules/rule_set.h"
#include "shard/run_summary.h"
#include "shard/sharded_run.h"
#include "shard/verified_evidence.h"

#if RATCHET_HAVE_LIBGIT2
#include <git2.h>
#endif

namespace ratchet {

const char kPromoteUsage[] =
    "usage: ratchet promote --baseline FILE --evidence DIR (--record ID ... | --all-changed)\n"
    "                       --reason TEXT [--reviewer NAME] [--data DIR]\n"
    "\n"
    "Writes the outcomes (and, on a GPU lane, the times, each with the board it was scored on)\n"
    "that the evidence DIR holds into the baseline FILE as reviewed. DIR must be complete, its\n"
    "manifest must verify, `ratchet audit` must let it stand, and it must come from `ratchet run\n"
    "--baseline FILE` against the baseline as it is now: what it promotes is what the audit\n"
    "re-derives from the runs, and the run's differences from the baseline are made again and\n"
    "must be those its report lists. A record the run scored twice is promoted with its second\n"
    "scoring, the one the run compared. A record whose bytes changed loses its times on other\n"
    "lanes. A run whose contract differs from the baseline's adopts its contract only when\n"
    "every record is promoted in the same step. Evidence outside the baseline's folder is\n"
    "copied to <its folder>/evidence/. The baseline is replaced atomically, by one promote at a\n"
    "time (a second one waits, then reads what the first wrote).\n"
    "\n"
    "  --baseline FILE  the baseline (records.json)\n"
    "  --evidence DIR   the evidence directory of a `ratchet run --baseline FILE`, or the\n"
    "                   directory of a sharded one (`--executor`), whose shards share one lane\n"
    "  --record ID      promote this record (repeatable)\n"
    "  --all-changed    promote every record the run found different from the baseline\n"
    "  --reason TEXT    why the new outcomes are right (required; not UNREVIEWED)\n"
    "  --reviewer NAME  who reviewed them (default: user.name <user.email> of the git repository\n"
    "                   that holds the baseline)\n"
    "  --data DIR       searched first for the datasets, whose labels the audit re-counts (as\n"
    "                   `ratchet audit --data`; without them it notes the calls not re-counted)\n"
    "\n"
    "exit codes: 0 promoted (or nothing to promote); 1 refused (the evidence does not support "
    "it);\n"
    "            2 bad usage or input; 3 the harness could not do its work\n";

namespace {

// The audit's breaking findings, the first few, for a refusal.
std::string BreakingFindings(const AuditResult& audit) {
  std::string text;
  size_t shown = 0;
  for (const AuditFinding& finding : audit.findings) {
    if (finding.kind != AuditFinding::Kind::kBreaks) continue;
    if (shown++ == 3) {
      text += "; and " + std::to_string(audit.breaking() - 3) + " more";
      break;
    }
    text += (text.empty() ? "" : "; ") + finding.where + ": " + finding.message;
  }
  return text;
}

std::string ErrorList(std::vector<std::pair<std::string, std::string>> errors) {
  std::sort(errors.begin(), errors.end());
  std::string text;
  for (const auto& [code, record] : errors) {
    text += (text.empty() ? "" : ", ") + code + (record.empty() ? "" : " " + record);
  }
  return "[" + text + "]";
}

// The run's comparison with the baseline made again from what the audit re-derived (each
// record's scorings) and the baseline as it is now, into `ratchet`; "" when the report's ratchet
// part says the same (the same errors, by code and record; the same contract change and lane
// review), else what differs. A record must have been scored again exactly when the ratchet
// says so.
std::string RederiveRatchet(const Baseline& baseline, const std::string& folder,
                            const Json& contract, const RatchetReport& part,
                            const AuditResult& audit, RatchetResult* ratchet) {
  RatchetInputs inputs;
  inputs.contract = contract;
  inputs.rule_set = part.rule_set;
  inputs.require_lane = part.require_lane;
  const ContractView view(contract);
  const std::string lane = view.lane_id().value_or("");
  const bool gpu = GpuLane(view);
  auto scoring = [](const AuditedScoring& audited) {
    return Scoring{audited.sha256,
                   {audited.qualified ? "qualified" : "disqualified", audited.broken},
                   audited.ranked_ms};
  };
  std::string problems;
  auto problem = [&](const std::string& text) {
    problems += (problems.empty() ? "" : "; ") + text;
  };
  for (const auto& [id, record] : audit.records) {
    if (!baseline.records.count(id)) {
      problem("it scored \"" + id + "\", which is no record of the baseline");
      continue;
    }
    const Scoring first = scoring(record.first);
    std::optional<Scoring> again;
    if (record.rerun) again = scoring(*record.rerun);
    if (again && again->sha256 != first.sha256) {
      problem("records." + id + ": its second scoring is of sha256 " + again->sha256 +
              ", its first of " + first.sha256 + ": one run scores one file");
      continue;
    }
    const ScoreAgain why = WhetherToScoreAgain(baseline, id, lane, gpu, first);
    if ((why == ScoreAgain::kNo) != !again) {
      problem("records." + id +
              (again ? ": it was scored again, which its first scoring does not call for"
                     : ": its first scoring calls for a second, which the run does not hold"));
      continue;
    }
    inputs.selected.push_back(id);
    inputs.scored[id] = CombineScorings(why, first, again);
  }
  if (!problems.empty()) return problems;
  *ratchet = RatchetErrors(baseline, inputs);
  CheckReviewedEvidence(baseline, folder, inputs.selected, ratchet);
  std::vector<std::pair<std::string, std::string>> derived, reported;
  for (const RatchetError& error : ratchet->errors) derived.push_back({error.code, error.record});
  for (const RatchetError& error : part.errors) reported.push_back({error.code, error.record});
  if (ErrorList(derived) != ErrorList(reported)) {
    problem(std::string(kReportFile) + "'s ratchet.errors are " + ErrorList(reported) +
            ", but its records give " + ErrorList(derived));
  }
  if (ratchet->contract_changed != part.contract_changed) {
    problem(std::string(kReportFile) + "'s ratchet.contract_changed is " +
            (part.contract_changed ? "true" : "false") + ", but its contract " +
            (ratchet->contract_changed ? "differs from" : "is") + " the baseline's");
  }
  if (ratchet->lane_reviewed != part.lane_reviewed) {
    problem(std::string(kReportFile) + "'s ratchet.lane_reviewed is " +
            (part.lane_reviewed ? "true" : "false") + ", but lane " + lane + " is " +
            (ratchet->lane_reviewed ? "" : "not ") + "reviewed in the baseline");
  }
  return problems;
}

struct Review {
  std::string reviewer;
  std::optional<std::string> commit;
  std::optional<bool> clean;
};

// The reviewer, commit and cleanliness of the git repository holding `folder`.
Result<Review> GitReview(const std::string& folder) {
#if RATCHET_HAVE_LIBGIT2
  git_libgit2_init();
  Review review;
  git_repository* repo = nullptr;
  if (git_repository_open_ext(&repo, folder.c_str(), 0, nullptr) != 0) {
    git_libgit2_shutdown();
    return review;  // not in a repository: no identity, no commit
  }
  git_config* config = nullptr;
  if (git_repository_config_snapshot(&config, repo) == 0) {
    const char* name = nullptr;
    const char* email = nullptr;
    std::string who;
    if (git_config_get_string(&name, config, "user.name") == 0 && name) who = name;
    if (git_config_get_string(&email, config, "user.email") == 0 && email && *email) {
      who += (who.empty() ? "<" : " <") + std::string(email) + ">";
    }
    review.reviewer = who;
    git_config_free(config);
  }
  git_oid head;
  if (git_reference_name_to_id(&head, repo, "HEAD") == 0) review.commit = git_oid_tostr_s(&head);
  git_status_options options = GIT_STATUS_OPTIONS_INIT;
  options.flags = GIT_STATUS_OPT_INCLUDE_UNTRACKED;
  git_status_list* status = nullptr;
  if (git_status_list_new(&status, repo, &options) == 0) {
    review.clean = git_status_list_entrycount(status) == 0;
    git_status_list_free(status);
  }
  git_repository_free(repo);
  git_libgit2_shutdown();
  return review;
#else
  (void)folder;
  return Review{};
#endif
}

std::string AbsolutePath(const std::string& path) {
  char* resolved = realpath(path.c_str(), nullptr);
  if (resolved == nullptr) return path;
  std::string out = resolved;
  free(resolved);
  return out;
}

bool IsInside(const std::string& path, const std::string& folder) {
  return path.size() > folder.size() && path.compare(0, folder.size(), folder) == 0 &&
         path[folder.size()] == '/';
}

// The files of a verified run that its copy holds: a direct run's MANIFEST.json, its SIGNATURE.json
// when signed (the copy stays signed) and every file its manifest lists; every file of a sharded
// run's tree (its manifest lists the shards' manifests, each of which lists its shard's files).
Result<std::vector<std::string>> FilesToCopy(const std::string& source, bool sharded,
                                             const std::vector<ManifestEntry>& manifest) {
  std::vector<std::string> files;
  if (!sharded) {
    files.push_back("MANIFEST.json");
    if (PathExists(source + "/" + kSignatureFile)) files.push_back(kSignatureFile);
    for (const ManifestEntry& entry : manifest) files.push_back(entry.path);
    return files;
  }
  std::error_code error;
  for (auto it = std::filesystem::recursive_directory_iterator(source, error);
       !error && it != std::filesystem::recursive_directory_iterator(); it.increment(error)) {
    if (it->is_regular_file(error)) {
      files.push_back(std::filesystem::relative(it->path(), source, error).string());
    }
  }
  if (error) return Status::IOError("listing " + source, error.value());
  return files;
}

// What is wrong with the copy of a run at `copy` (empty when it verifies): its manifest must be
// the one promoted (`manifest_sha256`), and every file must be the one its manifest lists (for a
// sharded run: the run's manifest over run.json and the shards' manifests, each shard's over its
// files).
std::string CopyProblem(const std::string& copy, bool sharded, const std::string& manifest_sha256) {
  if (!sharded) {
    std::vector<EvidenceFinding> findings = VerifyManifest(copy);
    Result<std::string> copied = ManifestSha256(copy);
    if (!copied.ok()) return copied.status().message();
    if (*copied != manifest_sha256) return "its MANIFEST.json is not the one promoted";
    if (!findings.empty()) return findings.front().file + ": " + findings.front().problem;
    return "";
  }
  Result<EvidenceSummary> summary = ReadRunSummary(copy);
  if (!summary.ok()) return summary.status().message();
  if (summary->manifest_sha256 != manifest_sha256) return "its MANIFEST.json is not the one promoted";
  if (!summary->findings.empty()) {
    return summary->findings.front().file + ": " + summary->findings.front().problem;
  }
  Result<ShardedRun> run = ReadShardedRun(copy);
  if (!run.ok()) return run.status().message();
  for (const ShardedRunShard& shard : run->shards) {
    if (shard.state != "done") continue;
    std::vector<EvidenceFinding> findings = VerifyManifest(ShardFolder(copy, shard.shard.id));
    if (!findings.empty()) {
      return "shard " + shard.shard.id + ": " + findings.front().file + ": " +
             findings.front().problem;
    }
  }
  return "";
}

// Copies a verified run (FilesToCopy) into `target` (a fresh directory: renamed into place only
// when whole), and checks the copy (CopyProblem) before it takes its name.
Status CopyEvidence(const std::string& source, bool sharded,
                    const std::vector<ManifestEntry>& manifest,
                    const std::string& manifest_sha256, const std::string& target) {
  Result<std::vector<std::string>> files = FilesToCopy(source, sharded, manifest);
  if (!files.ok()) return files.status();
  Result<FreshDirectory> fresh = FreshDirectory::Begin(target);
  if (!fresh.ok()) return fresh.status();
  for (const std::string& file : *files) {
    Result<std::string> bytes = ReadFile(source + "/" + file);
    if (!bytes.ok()) {
      fresh->Abandon();
      return bytes.status();
    }
    size_t slash = file.rfind('/');
    if (slash != std::string::npos) {
      Status made = fresh->MakeSubdirectory(file.substr(0, slash));
      if (!made.ok()) {
        fresh->Abandon();
        return made;
      }
    }
    Status written = fresh->WriteFile(file, *bytes);
    if (!written.ok()) {
      fresh->Abandon();
      return written;
    }
  }
  // Every file checked again before the copy takes its name: a file that changed since the source
  // was verified is found here, and no copy that does not verify is left where the baseline would
  // name it.
  const std::string problem = CopyProblem(fresh->partial_path(), sharded, manifest_sha256);
  if (!problem.empty()) {
    fresh->Abandon();
    return Status::Internal("the copy of " + source + " for " + target +
                            " does not verify, so it was removed: " + problem);
  }
  return fresh->Commit();
}

int Run(CommandContext& context) {
  auto fail = [&](const Status& status) { return ReportError(context.err, "promote", status); };
  auto refuse = [&](const std::string& message) {
    context.err << "ratchet promote: refused: " << message << "\n";
    return static_cast<int>(kExitFinding);
  };
  Result<Args> args = Args::Parse(context.argv, {{"baseline", true},
                                                 {"evidence", true},
                                                 {"record", true, true},
                                                 {"all-changed", false},
                                                 {"reason", true},
                                                 {"reviewer", true},
                                                 {"data", true}});
  if (!args.ok()) return fail(args.status());
  if (!args->positional().empty()) {
    return fail(Status::Usage("unexpected argument '" + args->positional().front() + "'"));
  }
  if (!args->Has("baseline") || !args->Has("evidence")) {
    return fail(
        Status::Usage("name the baseline and the evidence: --baseline FILE --evidence DIR"));
  }
  if (args->Has("record") && args->Has("all-changed")) {
    return fail(Status::Usage(
        "give either --record ID ... or --all-changed, not both: --all-changed already promotes "
        "every record the run found different"));
  }
  if (!args->Has("record") && !args->Has("all-changed")) {
    return fail(
        Status::Usage("name the records to promote (--record ID ...) or give --all-changed"));
  }
  std::string reason = args->Get("reason").value_or("");
  if (reason.find_first_not_of(" \t\n") == std::string::npos) {
    return fail(Status::Usage("promote needs --reason TEXT: why the new outcomes are right"));
  }
  if (UnreviewedReason(reason)) {
    return fail(Status::Usage(
        "--reason UNREVIEWED marks an outcome nobody reviewed (docs/baseline.md), which promote "
        "never writes: give why the new outcomes are right"));
  }
  const std::string baseline_path = *args->Get("baseline");
  const std::string evidence_path = *args->Get("evidence");
  if (args->Has("data") && !IsDirectory(*args->Get("data"))) {
    return fail(Status::Usage("--data " + *args->Get("data") + " is not a folder"));
  }
  if (Status checked = CheckInputTree(evidence_path, "the evidence directory"); !checked.ok()) {
    return fail(checked);
  }
  // One promote of a baseline at a time, from its reading to its writing and the copy of the
  // evidence beside it: a second one reads what the first wrote.
  Result<BaselineLock> lock = BaselineLock::Acquire(baseline_path, "promote", context.err);
  if (!lock.ok()) return fail(lock.status());
  std::string baseline_sha256;  // of the very bytes parsed
  Result<Baseline> baseline = LoadBaseline(baseline_path, &baseline_sha256);
  if (!baseline.ok()) return fail(baseline.status());

  // A direct run's evidence directory or a sharded run's directory, read alike.
  const bool sharded = IsShardedRun(evidence_path);
  const std::string report_file = sharded ? kShardedRunFile : kReportFile;
  Result<EvidenceSummary> evidence = ReadRunSummary(evidence_path);
  if (!evidence.ok()) return fail(evidence.status());
  if (!evidence->complete || !evidence->findings.empty()) {
    std::string why = evidence->partial ? "it is the partial folder of a run that did not finish"
                                        : "its status is " + evidence->status;
    for (const EvidenceFinding& finding : evidence->findings) {
      why += "; " + finding.file + ": " + finding.problem;
    }
    return refuse(evidence_path + " is not complete, verified evidence (" + why + ")");
  }
  // The ratchet part of the report: what the run made of itself against the baseline.
  if (!evidence->report.is_object() || !evidence->report.contains(kRatchetReportKey)) {
    return refuse(evidence_path +
                  " was not compared with a baseline: produce it with `ratchet run --baseline " +
                  baseline_path + "`");
  }
  FindingLines part_findings;
  FieldReader part_reader(evidence_path + "/" + report_file, &part_findings);
  std::optional<RatchetReport> part = ReadRatchetReport(evidence->report, part_reader);
  if (!part) {
    return fail(Status::BadInput(part_findings.Joined() +
                                 ": not the ratchet part `ratchet run --baseline` writes"));
  }
  if (part->baseline_sha256 != baseline_sha256) {
    return refuse(baseline_path + " has changed since " + evidence_path +
                  " was compared with it (a promote from the same run changes it too: promote "
                  "a run's records in one step, --record A --record B): run `ratchet run "
                  "--baseline " +
                  baseline_path + "` again");
  }
  Result<RuleSet> rules =
      ParseRuleSet(part->rule_set.dump(), evidence_path + "/" + report_file + ": ratchet.rule_set");
  if (!rules.ok()) return fail(rules.status());

  // Promote acts only on what the evidence itself re-derives: the audit's checks, the same as
  // `ratchet audit`, must let it stand, and the outcomes promoted are the audit's.
  EvidenceAuditOptions audit_options;
  audit_options.rules = *rules;
  audit_options.data_dir = args->Get("data");
  Result<AuditResult> verified = VerifyEvidence(evidence_path, audit_options);
  if (!verified.ok()) {
    return refuse(evidence_path + " cannot be audited: " + verified.status().message());
  }
  const AuditResult& audit = *verified;
  if (audit.verdict() != AuditVerdict::kStands) {
    return refuse(evidence_path + " does not stand under `ratchet audit` (" +
                  BreakingFindings(audit) + "): see `ratchet audit " + evidence_path + "`");
  }
  if (!baseline->reviewers.empty()) {
    // A baseline that names its reviewers' keys takes only evidence one of them signed.
    const std::string signer = ReviewerOf(*baseline, audit.signed_by);
    if (audit.signed_by.empty()) {
      return refuse(evidence_path + " is not signed, and " + baseline_path +
                    " accepts only evidence signed by one of its reviewers' keys: score it "
                    "again with --sign KEY");
    }
    if (signer.empty()) {
      return refuse(evidence_path + " is signed by key " + KeyId(audit.signed_by) +
                    " (public key " + audit.signed_by + "), which is not among " +
                    baseline_path + "'s reviewers");
    }
  }
  const std::string folder = DirName(baseline_path);
  RatchetResult ratchet;
  const std::string disagreement =
      RederiveRatchet(*baseline, folder, evidence->contract, *part, audit, &ratchet);
  // status.json's exit code is the audit's to check: the one the report's errors give, which
  // must be the errors made again here.
  if (!disagreement.empty()) {
    return refuse(evidence_path + " does not follow from its runs and " + baseline_path +
                  " as it is now: " + disagreement + ": run `ratchet run --baseline " +
                  baseline_path + "` again");
  }

  const bool new_contract = ratchet.contract_changed;
  std::set<std::string> ids;
  if (args->Has("all-changed")) {
    for (const RatchetError& error : ratchet.errors) {
      if (!error.record.empty()) ids.insert(error.record);
    }
    if (new_contract) {
      for (const auto& [id, record] : audit.records) ids.insert(id);
    }
  } else {
    for (const std::string& id : args->GetAll("record")) ids.insert(id);
  }
  for (const std::string& id : ids) {
    if (!baseline->records.count(id)) {
      return fail(Status::Usage("no record \"" + id + "\" in " + baseline_path));
    }
    if (!audit.records.count(id)) {
      return refuse("record \"" + id + "\" was not scored in " + evidence_path);
    }
  }
  if (new_contract) {
    std::string left_out;
    for (const auto& [id, record] : baseline->records) {
      if (!ids.count(id)) left_out += (left_out.empty() ? "" : ", ") + id;
    }
    if (!left_out.empty()) {
      return refuse(
          "the run's contract differs from the baseline's, and a new contract is adopted only "
          "with every record promoted in the same step; not promoted: " +
          left_out);
    }
  }
  const ContractView contract(evidence->contract);
  const std::string lane = contract.lane_id().value_or("");
  const bool gpu = GpuLane(contract);
  const bool new_lane = !lane.empty() && !baseline->lanes.count(lane);
  if (ids.empty() && !new_lane) {
    context.out << "nothing to promote: " << evidence_path << " found no record different from "
                << baseline_path << ", and its lane is reviewed\n";
    return kExitSuccess;
  }

  Result<Review> git = GitReview(folder.empty() ? "." : folder);
  if (!git.ok()) return fail(git.status());
  const std::string reviewer = args->Get("reviewer").value_or(git->reviewer);
  if (reviewer.empty()) {
    return fail(
        Status::Usage("no reviewer: give --reviewer NAME (the baseline's folder has no git "
                      "identity, user.name and user.email)"));
  }

  // The evidence a baseline names lives beside it, so that a clone of the baseline's repository
  // holds it too.
  const std::string home = AbsolutePath(folder.empty() ? "." : folder);
  const std::string source = AbsolutePath(evidence_path);
  const bool inside = IsInside(source, home);
  const std::string relative =
      inside ? source.substr(home.size() + 1) : "evidence/" + BaseName(source);

  // The new baseline is made and checked whole before anything is written or copied; what it
  // did is said once it is written.
  std::ostringstream promoted;
  for (const std::string& id : ids) {
    BaselineRecord& record = baseline->records[id];
    // A record scored once more was held to that second scoring (its outcome differed from the
    // reviewed one by timing rules alone, or its time fell outside the tolerance): that is the
    // outcome and the time promoted.
    const AuditedRecord& audited_record = audit.records.at(id);
    const AuditedScoring& scored =
        audited_record.rerun ? *audited_record.rerun : audited_record.first;
    const std::string sha256 = scored.sha256;
    const std::optional<double> ranked = scored.ranked_ms;
    Expected outcome;
    outcome.status = scored.qualified ? "qualified" : "disqualified";
    outcome.broken = scored.broken;
    record.expected = outcome;
    if (!record.sha256.empty() && record.sha256 != sha256) {
      // Times reviewed on other lanes were scored on other bytes: none of them stands for these.
      for (auto it = record.timing.begin(); it != record.timing.end();) {
        if (gpu && it->first == lane) {
          ++it;
          continue;
        }
        promoted << "dropped " << TerminalText(id) << "'s time on lane " << it->first
                 << ": it was scored on other bytes of the submission; a run on that lane "
                    "notes it has no reviewed time, promote it from there with --record "
                 << TerminalText(id) << "\n";
        it = record.timing.erase(it);
      }
    }
    record.sha256 = sha256;
    if (gpu && ranked) {
      LaneTiming timing = record.timing.count(lane) ? record.timing[lane] : LaneTiming{};
      timing.ranked_ms = *ranked;
      timing.board = contract.device_uuid().value_or("");  // the board this time was scored on
      record.timing[lane] = timing;
    } else if (outcome.status != "qualified") {
      record.timing.erase(lane);
    }
    record.reason = reason;
    record.reviewed_by = reviewer;
    record.reviewed_commit = git->commit;
    record.reviewed_clean = git->clean;
    record.evidence = EvidenceRef{relative, evidence->manifest_sha256};
    // The record's id and rule ids are the evidence's: each on one line.
    promoted << "promoted " << TerminalText(id) << ": " << outcome.status;
    for (size_t i = 0; i < outcome.broken.size(); ++i) {
      promoted << (i ? ", " : " (") << TerminalText(outcome.broken[i])
               << (i + 1 == outcome.broken.size() ? ")" : "");
    }
    if (gpu && ranked) promoted << ", " << *ranked << " ms on lane " << lane;
    if (audited_record.rerun) promoted << " (its second scoring in the run)";
    promoted << "\n";
  }
  if (new_lane) {
    baseline->lanes[lane] =
        ReviewedLane{contract.lane().found().value_or(Json::object()), reviewer, reason, relative};
    promoted << "reviewed lane " << lane << "\n";
  }
  if (new_contract) {
    baseline->locked = contract.locked().found().value_or(Json::object());
    baseline->rule_set = part->rule_set;  // the rule set the contract locks: the audit checked
    promoted << "adopted the run's contract\n";
  }
  Result<std::string> text = BaselineText(*baseline);
  if (!text.ok()) return fail(text.status());
  Status valid = ParseBaseline(*text, baseline_path).status();
  if (!valid.ok()) {
    return refuse("the promoted baseline would not be valid, so nothing was written: " +
                  valid.message());
  }

  if (!inside) {
    const std::string target = home + "/" + relative;
    if (PathExists(target)) {
      // Promoted before (an earlier attempt, or another record of the same run): the copy must be
      // that evidence, whole.
      Result<EvidenceSummary> there = ReadRunSummary(target);
      if (!there.ok() || !there->complete || !there->findings.empty() ||
          there->manifest_sha256 != evidence->manifest_sha256) {
        return refuse(target + " exists and is not a verified copy of " + evidence_path +
                      ": move it away or promote from evidence of another name");
      }
    } else {
      if (!IsDirectory(home + "/evidence") && mkdir((home + "/evidence").c_str(), 0755) != 0) {
        return fail(Status::IOError("mkdir " + home + "/evidence", errno));
      }
      Status copied =
          CopyEvidence(source, sharded, evidence->manifest, evidence->manifest_sha256, target);
      if (!copied.ok()) return fail(copied);
      context.out << "copied " << evidence_path << " to " << target << "\n";
    }
  }
  // The baseline as it was read, still: an edit made meanwhile is never overwritten.
  std::string now;
  Result<Baseline> reread = LoadBaseline(baseline_path, &now);
  if (!reread.ok() || now != baseline_sha256) {
    return refuse(baseline_path + " changed while promoting; nothing was written to it");
  }
  Status written = WriteFileAtomic(baseline_path, *text, 0644);
  if (!written.ok()) return fail(written);
  context.out << promoted.str();
  context.out << "wrote " << baseline_path << " (reviewer " << reviewer
              << (git->commit ? ", commit " + git->commit->substr(0, 12) : std::string())
              << (git->clean ? (*git->clean ? ", clean tree" : ", uncommitted changes") : "")
              << ")\n";
  return kExitSuccess;
}

}  // namespace

int RunPromote(CommandContext& context) { return Run(context); }

}  // namespace ratchet
