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
#include "shard/evidence_copy.h"
#include "shard/reviewed_evidence.h"
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

// Why promote stops short: an error (exit by its code) or a refusal (exit 1: the evidence or the
// baseline does not support the promotion).
struct Stop {
  Status error = Status::Ok();
  std::string refused;
};
Stop Refuse(std::string why) { return Stop{Status::Ok(), std::move(why)}; }
Stop Fail(Status error) { return Stop{std::move(error), ""}; }

// One promotion, step by step: what the command line asks, then what was read and verified.
struct Promotion {
  std::string baseline_path, evidence_path, reason;
  std::optional<std::string> reviewer, data;
  bool all_changed = false;
  std::vector<std::string> asked;  // --record

  std::string baseline_sha256;  // of the very bytes parsed
  Baseline baseline;
  bool sharded = false;
  std::string report_file;  // the file the run's ratchet part is in
  EvidenceSummary evidence;
  RatchetReport part;
  AuditResult audit;
  RatchetResult ratchet;

  std::set<std::string> ids;  // the records promoted
  std::string lane;
  bool gpu = false, new_lane = false, new_contract = false;
};

// The command line, checked before anything is read.
Status ParsePromotion(const std::vector<std::string>& argv, Promotion* p) {
  Result<Args> args = Args::Parse(argv, {{"baseline", true},
                                         {"evidence", true},
                                         {"record", true, true},
                                         {"all-changed", false},
                                         {"reason", true},
                                         {"reviewer", true},
                                         {"data", true}});
  if (!args.ok()) return args.status();
  if (!args->positional().empty()) {
    return Status::Usage("unexpected argument '" + args->positional().front() + "'");
  }
  if (!args->Has("baseline") || !args->Has("evidence")) {
    return Status::Usage("name the baseline and the evidence: --baseline FILE --evidence DIR");
  }
  if (args->Has("record") && args->Has("all-changed")) {
    return Status::Usage(
        "give either --record ID ... or --all-changed, not both: --all-changed already promotes "
        "every record the run found different");
  }
  if (!args->Has("record") && !args->Has("all-changed")) {
    return Status::Usage("name the records to promote (--record ID ...) or give --all-changed");
  }
  p->reason = args->Get("reason").value_or("");
  if (p->reason.find_first_not_of(" \t\n") == std::string::npos) {
    return Status::Usage("promote needs --reason TEXT: why the new outcomes are right");
  }
  if (UnreviewedReason(p->reason)) {
    return Status::Usage(
        "--reason UNREVIEWED marks an outcome nobody reviewed (docs/baseline.md), which promote "
        "never writes: give why the new outcomes are right");
  }
  p->baseline_path = *args->Get("baseline");
  p->evidence_path = *args->Get("evidence");
  p->reviewer = args->Get("reviewer");
  p->data = args->Get("data");
  p->all_changed = args->Has("all-changed");
  p->asked = args->GetAll("record");
  if (p->data && !IsDirectory(*p->data)) {
    return Status::Usage("--data " + *p->data + " is not a folder");
  }
  return CheckInputTree(p->evidence_path, "the evidence directory");
}

// The evidence read (a direct run's or a sharded one's, alike): complete, compared with this
// very baseline, and its ratchet part readable.
std::optional<Stop> ReadEvidenceAndPart(Promotion* p) {
  p->sharded = IsShardedRun(p->evidence_path);
  p->report_file = p->sharded ? kShardedRunFile : kReportFile;
  Result<EvidenceSummary> evidence = ReadRunSummary(p->evidence_path);
  if (!evidence.ok()) return Fail(evidence.status());
  p->evidence = std::move(evidence).value();
  if (!p->evidence.complete || !p->evidence.findings.empty()) {
    std::string why = p->evidence.partial
                          ? "it is the partial folder of a run that did not finish"
                          : "its status is " + p->evidence.status;
    for (const EvidenceFinding& finding : p->evidence.findings) {
      why += "; " + finding.file + ": " + finding.problem;
    }
    return Refuse(p->evidence_path + " is not complete, verified evidence (" + why + ")");
  }
  // The ratchet part of the report: what the run made of itself against the baseline.
  if (!p->evidence.report.is_object() || !p->evidence.report.contains(kRatchetReportKey)) {
    return Refuse(p->evidence_path +
                  " was not compared with a baseline: produce it with `ratchet run --baseline " +
                  p->baseline_path + "`");
  }
  FindingLines part_findings;
  FieldReader part_reader(p->evidence_path + "/" + p->report_file, &part_findings);
  std::optional<RatchetReport> part = ReadRatchetReport(p->evidence.report, part_reader);
  if (!part) {
    return Fail(Status::BadInput(part_findings.Joined() +
                                 ": not the ratchet part `ratchet run --baseline` writes"));
  }
  p->part = std::move(*part);
  if (p->part.baseline_sha256 != p->baseline_sha256) {
    return Refuse(p->baseline_path + " has changed since " + p->evidence_path +
                  " was compared with it (a promote from the same run changes it too: promote "
                  "a run's records in one step, --record A --record B): run `ratchet run "
                  "--baseline " +
                  p->baseline_path + "` again");
  }
  return std::nullopt;
}

// Promote acts only on what the evidence itself re-derives: the audit's checks, the same as
// `ratchet audit`, must let it stand (signed by a reviewer, where the baseline names them), and
// the run's comparison with the baseline must follow from the audited runs.
std::optional<Stop> VerifyForPromotion(Promotion* p) {
  Result<RuleSet> rules = ParseRuleSet(
      p->part.rule_set.dump(), p->evidence_path + "/" + p->report_file + ": ratchet.rule_set");
  if (!rules.ok()) return Fail(rules.status());
  EvidenceAuditOptions audit_options;
  audit_options.rules = *rules;
  audit_options.data_dir = p->data;
  Result<AuditResult> verified = VerifyEvidence(p->evidence_path, audit_options);
  if (!verified.ok()) {
    return Refuse(p->evidence_path + " cannot be audited: " + verified.status().message());
  }
  p->audit = std::move(verified).value();
  if (p->audit.verdict() != AuditVerdict::kStands) {
    return Refuse(p->evidence_path + " does not stand under `ratchet audit` (" +
                  BreakingFindings(p->audit) + "): see `ratchet audit " + p->evidence_path + "`");
  }
  if (!p->baseline.reviewers.empty()) {
    // A baseline that names its reviewers' keys takes only evidence one of them signed.
    if (p->audit.signed_by.empty()) {
      return Refuse(p->evidence_path + " is not signed, and " + p->baseline_path +
                    " accepts only evidence signed by one of its reviewers' keys: score it "
                    "again with --sign KEY");
    }
    if (ReviewerOf(p->baseline, p->audit.signed_by).empty()) {
      return Refuse(p->evidence_path + " is signed by key " + KeyId(p->audit.signed_by) +
                    " (public key " + p->audit.signed_by + "), which is not among " +
                    p->baseline_path + "'s reviewers");
    }
  }
  // status.json's exit code is the audit's to check: the one the report's errors give, which
  // must be the errors made again here.
  const std::string disagreement =
      RederiveRatchet(p->baseline, DirName(p->baseline_path), p->evidence.contract, p->part,
                      p->audit, &p->ratchet);
  if (!disagreement.empty()) {
    return Refuse(p->evidence_path + " does not follow from its runs and " + p->baseline_path +
                  " as it is now: " + disagreement + ": run `ratchet run --baseline " +
                  p->baseline_path + "` again");
  }
  return std::nullopt;
}

// The records promoted: those asked, or every one the run found different (every record, with a
// new contract); each in the baseline and scored in the run. A new contract is adopted only with
// every record promoted.
std::optional<Stop> ChooseRecords(Promotion* p) {
  p->new_contract = p->ratchet.contract_changed;
  if (p->all_changed) {
    for (const RatchetError& error : p->ratchet.errors) {
      if (!error.record.empty()) p->ids.insert(error.record);
    }
    if (p->new_contract) {
      for (const auto& [id, record] : p->audit.records) p->ids.insert(id);
    }
  } else {
    p->ids.insert(p->asked.begin(), p->asked.end());
  }
  for (const std::string& id : p->ids) {
    if (!p->baseline.records.count(id)) {
      return Fail(Status::Usage("no record \"" + id + "\" in " + p->baseline_path));
    }
    if (!p->audit.records.count(id)) {
      return Refuse("record \"" + id + "\" was not scored in " + p->evidence_path);
    }
  }
  if (p->new_contract) {
    std::string left_out;
    for (const auto& [id, record] : p->baseline.records) {
      if (!p->ids.count(id)) left_out += (left_out.empty() ? "" : ", ") + id;
    }
    if (!left_out.empty()) {
      return Refuse(
          "the run's contract differs from the baseline's, and a new contract is adopted only "
          "with every record promoted in the same step; not promoted: " +
          left_out);
    }
  }
  const ContractView contract(p->evidence.contract);
  p->lane = contract.lane_id().value_or("");
  p->gpu = GpuLane(contract);
  p->new_lane = !p->lane.empty() && !p->baseline.lanes.count(p->lane);
  return std::nullopt;
}

// Record `id` of the baseline made what the audit re-derived; what was done said in `said`.
void PromoteRecord(const Promotion& p, const std::string& id, const std::string& reviewer,
                   const Review& git, const EvidenceRef& evidence, std::ostream& said,
                   BaselineRecord* record) {
  // A record scored once more was held to that second scoring (its outcome differed from the
  // reviewed one by timing rules alone, or its time fell outside the tolerance): that is the
  // outcome and the time promoted.
  const AuditedRecord& audited = p.audit.records.at(id);
  const AuditedScoring& scored = audited.rerun ? *audited.rerun : audited.first;
  const std::optional<double> ranked = scored.ranked_ms;
  Expected outcome;
  outcome.status = scored.qualified ? "qualified" : "disqualified";
  outcome.broken = scored.broken;
  record->expected = outcome;
  if (!record->sha256.empty() && record->sha256 != scored.sha256) {
    // Times reviewed on other lanes were scored on other bytes: none of them stands for these.
    for (auto it = record->timing.begin(); it != record->timing.end();) {
      if (p.gpu && it->first == p.lane) {
        ++it;
        continue;
      }
      said << "dropped " << TerminalText(id) << "'s time on lane " << it->first
           << ": it was scored on other bytes of the submission; a run on that lane notes it "
              "has no reviewed time, promote it from there with --record "
           << TerminalText(id) << "\n";
      it = record->timing.erase(it);
    }
  }
  record->sha256 = scored.sha256;
  if (p.gpu && ranked) {
    LaneTiming timing = record->timing.count(p.lane) ? record->timing[p.lane] : LaneTiming{};
    timing.ranked_ms = *ranked;
    // The board this time was scored on.
    timing.board = ContractView(p.evidence.contract).device_uuid().value_or("");
    record->timing[p.lane] = timing;
  } else if (outcome.status != "qualified") {
    record->timing.erase(p.lane);
  }
  record->reason = p.reason;
  record->reviewed_by = reviewer;
  record->reviewed_commit = git.commit;
  record->reviewed_clean = git.clean;
  record->evidence = evidence;
  // The record's id and rule ids are the evidence's: each on one line.
  said << "promoted " << TerminalText(id) << ": " << outcome.status;
  for (size_t i = 0; i < outcome.broken.size(); ++i) {
    said << (i ? ", " : " (") << TerminalText(outcome.broken[i])
         << (i + 1 == outcome.broken.size() ? ")" : "");
  }
  if (p.gpu && ranked) said << ", " << *ranked << " ms on lane " << p.lane;
  if (audited.rerun) said << " (its second scoring in the run)";
  said << "\n";
}

// The evidence copied beside the baseline (as `relative` under `home`) when it lies outside its
// folder; a copy made before must be that evidence, whole.
std::optional<Stop> CopyBeside(const Promotion& p, const std::string& home,
                               const std::string& relative, std::ostream& out) {
  const std::string target = home + "/" + relative;
  if (PathExists(target)) {
    Result<EvidenceSummary> there = ReadRunSummary(target);
    if (!there.ok() || !there->complete || !there->findings.empty() ||
        there->manifest_sha256 != p.evidence.manifest_sha256) {
      return Refuse(target + " exists and is not a verified copy of " + p.evidence_path +
                    ": move it away or promote from evidence of another name");
    }
    return std::nullopt;
  }
  if (!IsDirectory(home + "/evidence") && mkdir((home + "/evidence").c_str(), 0755) != 0) {
    return Fail(Status::IOError("mkdir " + home + "/evidence", errno));
  }
  Status copied = CopyEvidence(AbsolutePath(p.evidence_path), p.sharded, p.evidence.manifest,
                               p.evidence.manifest_sha256, target);
  if (!copied.ok()) return Fail(copied);
  out << "copied " << p.evidence_path << " to " << target << "\n";
  return std::nullopt;
}

// Steps, in order: the command line; the baseline, locked and read; the evidence read, verified
// and held to the baseline; the records chosen; the new baseline made and checked whole; the
// evidence copied beside it; the baseline written, if it is still the one read.
int Run(CommandContext& context) {
  auto said = [&](const Stop& stop) {
    if (!stop.error.ok()) return ReportError(context.err, "promote", stop.error);
    context.err << "ratchet promote: refused: " << stop.refused << "\n";
    return static_cast<int>(kExitFinding);
  };
  Promotion p;
  if (Status parsed = ParsePromotion(context.argv, &p); !parsed.ok()) return said(Fail(parsed));
  // One promote of a baseline at a time, from its reading to its writing and the copy of the
  // evidence beside it: a second one reads what the first wrote.
  Result<BaselineLock> lock = BaselineLock::Acquire(p.baseline_path, "promote", context.err);
  if (!lock.ok()) return said(Fail(lock.status()));
  Result<Baseline> baseline = LoadBaseline(p.baseline_path, &p.baseline_sha256);
  if (!baseline.ok()) return said(Fail(baseline.status()));
  p.baseline = std::move(baseline).value();
  for (auto step : {ReadEvidenceAndPart, VerifyForPromotion, ChooseRecords}) {
    if (std::optional<Stop> stop = step(&p)) return said(*stop);
  }
  if (p.ids.empty() && !p.new_lane) {
    context.out << "nothing to promote: " << p.evidence_path
                << " found no record different from " << p.baseline_path
                << ", and its lane is reviewed\n";
    return kExitSuccess;
  }

  const std::string folder = DirName(p.baseline_path);
  Result<Review> git = GitReview(folder.empty() ? "." : folder);
  if (!git.ok()) return said(Fail(git.status()));
  const std::string reviewer = p.reviewer.value_or(git->reviewer);
  if (reviewer.empty()) {
    return said(Fail(Status::Usage("no reviewer: give --reviewer NAME (the baseline's folder has "
                                   "no git identity, user.name and user.email)")));
  }
  // The evidence a baseline names lives beside it, so that a clone of the baseline's repository
  // holds it too.
  const std::string home = AbsolutePath(folder.empty() ? "." : folder);
  const std::string source = AbsolutePath(p.evidence_path);
  const bool inside = IsInside(source, home);
  const std::string relative =
      inside ? source.substr(home.size() + 1) : "evidence/" + BaseName(source);

  // The new baseline is made and checked whole before anything is written or copied; what it
  // did is said once it is written.
  std::ostringstream promoted;
  const EvidenceRef evidence{relative, p.evidence.manifest_sha256};
  for (const std::string& id : p.ids) {
    PromoteRecord(p, id, reviewer, *git, evidence, promoted, &p.baseline.records[id]);
  }
  const ContractView contract(p.evidence.contract);
  if (p.new_lane) {
    p.baseline.lanes[p.lane] = ReviewedLane{contract.lane().found().value_or(Json::object()),
                                            reviewer, p.reason, relative};
    promoted << "reviewed lane " << p.lane << "\n";
  }
  if (p.new_contract) {
    p.baseline.locked = contract.locked().found().value_or(Json::object());
    p.baseline.rule_set = p.part.rule_set;  // the rule set the contract locks: the audit checked
    promoted << "adopted the run's contract\n";
  }
  Result<std::string> text = BaselineText(p.baseline);
  if (!text.ok()) return said(Fail(text.status()));
  Status valid = ParseBaseline(*text, p.baseline_path).status();
  if (!valid.ok()) {
    return said(Refuse("the promoted baseline would not be valid, so nothing was written: " +
                       valid.message()));
  }
  if (!inside) {
    if (std::optional<Stop> stop = CopyBeside(p, home, relative, context.out)) return said(*stop);
  }
  // The baseline as it was read, still: an edit made meanwhile is never overwritten.
  std::string now;
  Result<Baseline> reread = LoadBaseline(p.baseline_path, &now);
  if (!reread.ok() || now != p.baseline_sha256) {
    return said(Refuse(p.baseline_path + " changed while promoting; nothing was written to it"));
  }
  Status written = WriteFileAtomic(p.baseline_path, *text, 0644);
  if (!written.ok()) return said(Fail(written));
  context.out << promoted.str();
  context.out << "wrote " << p.baseline_path << " (reviewer " << reviewer
              << (git->commit ? ", commit " + git->commit->substr(0, 12) : std::string())
              << (git->clean ? (*git->clean ? ", clean tree" : ", uncommitted changes") : "")
              << ")\n";
  return kExitSuccess;
}

}  // namespace

int RunPromote(CommandContext& context) { return Run(context); }

}  // namespace ratchet
