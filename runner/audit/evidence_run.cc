#include "audit/evidence_run.h"

#include <algorithm>
#include <set>

#include "audit/energy_column.h"
#include "audit/numbers.h"
#include "audit/run_checks.h"
#include "contract/contract_view.h"
#include "core/file.h"
#include "energy/energy_file.h"
#include "evidence/fields.h"
#include "evidence/layout.h"
#include "evidence/run_files.h"
#include "rules/judge.h"
#include "scorer/plan.h"

namespace ratchet {
namespace {

constexpr size_t kMaxJsonBytes = 256u << 20;

// A JSON file of the run, parsed; nullopt with a finding when it is missing or unreadable.
std::optional<Json> ReadRunJson(const EvidenceContext& context, const std::string& relative,
                                const std::string& needed_for, AuditResult* result) {
  auto item = context.items.find(relative);
  if (item == context.items.end() || item->second.kind != FolderItem::Kind::kFile) {
    result->Breaks(relative, (item == context.items.end() ? "missing" : "not a regular file") +
                                 std::string(", so ") + needed_for);
    return std::nullopt;
  }
  Result<std::string> text = ReadFile(context.dir + "/" + relative, kMaxJsonBytes + 1);
  if (!text.ok()) {
    result->Breaks(relative, text.status().message());
    return std::nullopt;
  }
  if (text->size() > kMaxJsonBytes) {
    result->Breaks(relative, "larger than " + std::to_string(kMaxJsonBytes) + " bytes");
    return std::nullopt;
  }
  Result<Json> json = ParseJson(*text, relative);
  if (!json.ok()) {
    result->Breaks(relative, json.status().message());
    return std::nullopt;
  }
  return std::move(json).value();
}

// submission/ holds one file, the one the report names, with the report's sha256.
void CheckSubmission(const RunFacts& run, AuditResult* result) {
  EvidenceContext& context = run.context;
  std::vector<std::string> submitted;
  for (const auto& [path, item] : context.items) {
    if (path.rfind(run.submission_folder, 0) == 0) submitted.push_back(path);
  }
  if (submitted != std::vector<std::string>{run.submission_file}) {
    std::string listed;
    for (const std::string& path : submitted)
      listed += (listed.empty() ? "" : ", ") + path.substr(run.submission_folder.size());
    result->Breaks(
        run.submission_folder,
        "holds [" + listed + "]; report.json names the one file " + run.record.submission);
  }
  auto submission = context.items.find(run.submission_file);
  if (submission != context.items.end() && submission->second.kind == FolderItem::Kind::kFile) {
    if (submission->second.sha256 != run.record.sha256) {
      result->Breaks(run.submission_file, "sha256 " + submission->second.sha256 +
                                              ", but report.json's " + "records." + run.record.id +
                                              ".sha256 is " + run.record.sha256);
    } else {
      ++context.submissions;
    }
  }
}

// judge.json, read strictly: the run's outcome as its evidence gives it (run->outcome).
void ReadJudgeFile(RunFacts* run, AuditResult* result) {
  std::optional<Json> judge_json =
      ReadRunJson(run->context, run->judge_file, "the run's verdict cannot be checked", result);
  FieldReader judge_reader(run->judge_file, result);
  if (judge_json) run->judge = ReadJudge(*judge_json, judge_reader);
  if (!run->judge) return;
  for (const ProblemEntry& p : run->judge->problems) run->outcome.rules_broken.push_back(p.rule);
  run->outcome.known = true;
  run->outcome.qualified = run->judge->qualified;
  run->outcome.ranked_ms = run->judge->ranked_ms;
  run->stopped = run->judge->failed_call.has_value();
}

// The report's entry for the run repeats judge.json's verdict (a refusal's has no time or
// summary).
void CheckReportRepeatsVerdict(const RunFacts& run, AuditResult* result) {
  if (!run.judge) return;
  const Json verdict = JudgeJson(*run.judge);
  const Json reported = ReportRunJson(run.report_run);
  for (const char* key : {"problems", "qualified", "ranked_ms", "summary"}) {
    if (!reported.contains(key)) continue;
    if (reported[key] != verdict[key]) {
      result->Breaks("report.json: " + JoinPath(run.report_path, key),
                     JsonShown(reported[key]) + ", but " + run.judge_file + " says " +
                         JsonShown(verdict[key]));
    }
  }
}

// judge.json agrees with itself: qualified exactly without problems, a ranked time exactly when
// qualified.
void CheckJudgeConsistent(const RunFacts& run, AuditResult* result) {
  if (!run.judge) return;
  const JudgeEntry& judge = *run.judge;
  if (judge.qualified != judge.problems.empty()) {
    result->Breaks(run.judge_file + ": qualified",
                   std::string(judge.qualified ? "true" : "false") + " with " +
                       std::to_string(judge.problems.size()) + " problems");
  }
  if (judge.ranked_ms.has_value() != judge.qualified) {
    result->Breaks(run.judge_file + ": ranked_ms",
                   "a ranked time belongs to a qualified run, and only to one");
  }
}

// calls.json, read strictly (run->calls).
void ReadCallsFile(RunFacts* run, AuditResult* result) {
  std::optional<Json> calls_json =
      ReadRunJson(run->context, run->calls_file, "the run cannot be re-judged", result);
  FieldReader calls_reader(run->calls_file, result);
  if (calls_json) run->calls = ReadCalls(*calls_json, calls_reader);
}

// Nothing in the run's folder but calls.json, judge.json, energy.json, the submission, and each
// call's labels and log.
void CheckNothingElseInRunFolder(const RunFacts& run, AuditResult* result) {
  std::set<std::string> expected = {run.calls_file,
                                    run.judge_file,
                                    RunFile(run.folder, kEnergyFile),
                                    run.submission_file,
                                    RunFile(run.folder, kCompileFile),
                                    CompileLogPath(run.folder)};
  if (run.calls) {
    for (size_t i = 0; i < run.calls->size(); ++i) {
      expected.insert(LabelsPath(run.folder, static_cast<int>(i + 1)));
      expected.insert(LogPath(run.folder, static_cast<int>(i + 1)));
    }
  }
  for (const auto& [path, item] : run.context.items) {
    if (path.rfind(run.folder + "/", 0) != 0 || expected.count(path) > 0) continue;
    if (item.kind == FolderItem::Kind::kFolder) {
      const std::string name = path.substr(run.folder.size() + 1);
      if (name == "submission" || name == "labels" || name == "logs") continue;
    }
    if (path.rfind(run.submission_folder, 0) == 0) continue;  // CheckSubmission's
    result->Breaks(path,
                   "not part of a run's evidence (calls.json, judge.json, energy.json, "
                   "compile.json, submission/, labels/ and logs/ of its calls and of its "
                   "compile step)");
  }
}

// A run without energy.json claims no figure in the report; one that qualified on a GPU lane has
// no column in the evidence, a note.
void CheckNoEnergyClaimed(const RunFacts& run, AuditResult* result) {
  const Json& claimed = run.report_run.energy;
  const std::string where = "report.json: " + JoinPath(run.report_path, "energy");
  if (ClaimedEnergyMj(claimed)) {
    result->Breaks(where, "claims an energy column, but the run has no energy.json");
    return;
  }
  // What the scorer says of a qualified run on a lane without a GPU, re-derived from the device
  // its calls' workers named (or nothing, null): on such a lane, no other text stands in the
  // report without a file behind it.
  const Json device = run.calls && !run.calls->empty() && run.calls->front().worker.is_object()
                          ? run.calls->front().worker.value("device", Json())
                          : Json();
  if (run.outcome.qualified && device.is_string() && device != Json("cuda")) {
    const std::string lane =
        device != Json("cpu") ? "\"" + device.get<std::string>() + "\"" : std::string("CPU");
    const Json derived = EnergyNotMeasuredJson(NoBoardReason(device));
    if (!claimed.is_null() && claimed != derived) {
      result->Breaks(where, JsonShown(claimed) + ", but a run on a " + lane +
                                " lane has no energy column, and the scorer says so as " +
                                JsonShown(derived));
    }
  } else if (run.outcome.known && !run.outcome.qualified && !claimed.is_null()) {
    result->Breaks(where, JsonShown(claimed) + ", but a run that did not qualify has no energy "
                                               "column and no reason for one");
  }
  if (run.outcome.qualified &&
      ContractView(run.context.contract).device_kind().found_or_null() == Json("cuda")) {
    result->Note(run.folder + "/",
                 "a run that qualified on a GPU lane has no energy.json: its "
                 "energy column is not in the evidence");
  }
}

// A measured column (one with windows) names the board the contract names: its band is the
// named board's, not that of a name energy.json gives.
void CheckEnergyBoard(const RunFacts& run, const Json& energy, const std::string& energy_file,
                      AuditResult* result) {
  const bool measured_column = IsMeasuredColumn(energy);
  const ContractView contract(run.context.contract);
  const Json contract_name = contract.device_name().found_or_null();
  const Json measured = EnergyDevice(energy);
  const Json measured_name = measured.is_object() ? measured.value("name", Json()) : Json();
  if (measured_column && contract.device().ok() && measured_name != contract_name) {
    result->Breaks(energy_file + ": device.name", JsonShown(measured_name) +
                                                      ", but contract.json's lane.device.name is " +
                                                      JsonShown(contract_name));
  }
  const Json board = contract.device_uuid().found_or_null();
  const Json measured_board = measured.is_object() ? measured.value("uuid", Json()) : Json();
  if (measured_column && board.is_string() && !measured_board.is_null() &&
      measured_board != board) {
    result->Breaks(energy_file + ": device.uuid",
                   JsonShown(measured_board) + ", but contract.json's observed.device_uuid is " +
                       JsonShown(board));
  }
}

// energy.json, when the run has one: the report's entry is it without its windows; only a
// qualified run has one; its board is the contract's, and its figures are recomputed from its
// windows (AuditEnergy).
void CheckEnergyColumn(const RunFacts& run, AuditResult* result) {
  const std::string energy_file = RunFile(run.folder, kEnergyFile);
  if (run.context.items.count(energy_file) == 0) {
    CheckNoEnergyClaimed(run, result);
    return;
  }
  std::optional<Json> energy =
      ReadRunJson(run.context, energy_file, "the energy column cannot be checked", result);
  if (!energy) return;
  if (!run.report_run.energy.is_null()) {
    if (run.report_run.energy != EnergySummaryJson(*energy)) {
      result->Breaks("report.json: " + JoinPath(run.report_path, "energy"),
                     "is not " + energy_file + " without its windows");
    }
  }
  if (!run.outcome.qualified) {
    result->Breaks(energy_file, "an energy column for a run that did not qualify");
    return;
  }
  if (!run.calls) return;
  const RuleSet& rules = *run.context.rules;
  std::vector<double> mnist_ms;
  for (const CallEntry& c : *run.calls) {
    if (c.dataset == rules.datasets.mnist) mnist_ms.push_back(c.ms);
  }
  CheckEnergyBoard(run, *energy, energy_file, result);
  FieldReader energy_reader(energy_file, result);
  if (AuditEnergy(*energy, "", energy_reader, Median(mnist_ms), run.record.band_bp, rules)) {
    result->Checked(energy_file + " recomputed from its windows");
  }
}

}  // namespace

RunFacts::RunFacts(EvidenceContext& context_in, const RecordFacts& record_in, int run_in,
                   const ReportRun& report_run_in, const std::string& report_path_in)
    : context(context_in),
      record(record_in),
      run(run_in),
      report_run(report_run_in),
      report_path(report_path_in),
      folder(RunFolder(record_in.id, run_in)),
      calls_file(RunFile(folder, kCallsFile)),
      judge_file(RunFile(folder, kJudgeFile)),
      submission_folder(RunFile(folder, kSubmissionFolder) + "/"),
      submission_file(SubmissionPath(folder, record_in.submission)),
      seed(context_in.seed ? SeedOfRecordRun(*context_in.seed, record_in.id, run_in) : RunSeed{}) {}

// The checks of a run, in order (docs/audit.md, "Per record ... and per run").
Result<RunOutcomeFacts> AuditRun(EvidenceContext& context, const RecordFacts& record, int run,
                                 const ReportRun& report_run, const std::string& report_path,
                                 AuditResult* result) {
  RunFacts facts(context, record, run, report_run, report_path);
  CheckSubmission(facts, result);
  ReadJudgeFile(&facts, result);
  CheckReportRepeatsVerdict(facts, result);
  CheckJudgeConsistent(facts, result);
  ReadCallsFile(&facts, result);
  if (facts.calls) {
    CheckCallsRanOnTheLane(facts, result);
    CheckCallsDrewFromLockedDatasets(facts, result);
  }
  CheckVerdict(facts, result);
  RATCHET_RETURN_IF_ERROR(CheckPlan(facts, result));
  RATCHET_RETURN_IF_ERROR(CheckLogsAndLabels(facts, result));
  CheckCompileStep(facts, result);
  CheckNothingElseInRunFolder(facts, result);
  CheckEnergyColumn(facts, result);
  return facts.outcome;
}

}  // namespace ratchet
