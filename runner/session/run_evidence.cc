#include "session/run_evidence.h"

#include "core/file.h"
#include "evidence/layout.h"

namespace ratchet {

std::vector<CallEntry> CallEntries(const RunOutcome& outcome) {
  std::vector<CallEntry> calls;
  int64_t number = 0;
  for (const CallRecord& record : outcome.calls) {
    CallEntry call;
    call.call = ++number;
    call.dataset = record.dataset;
    call.draw_index = record.draw_index;
    call.warmup_dataset = record.warmup_dataset;
    call.warmup_draw_index = record.warmup_draw_index;
    call.inputs_sha256 = record.inputs_sha256;
    call.ms = record.ms;
    call.parent_ms = record.parent_ms;
    call.overhead_ms = record.overhead_ms;
    call.correct = record.correct;
    call.total = record.total;
    call.worker_exit = record.worker_exit;
    call.log_bytes = static_cast<int64_t>(record.log_total_bytes);
    call.worker = record.hello;
    call.phases = record.phases;
    calls.push_back(std::move(call));
  }
  return calls;
}

JudgeEntry JudgeEntryOf(const RunOutcome& outcome) {
  JudgeEntry judge;
  for (const Problem& problem : outcome.problems()) {
    judge.problems.push_back({problem.rule, problem.message});
  }
  judge.qualified = outcome.qualified();
  if (judge.qualified) judge.ranked_ms = outcome.judgement->ranked_ms;
  if (outcome.judgement) {
    judge.summary = outcome.judgement->summary;
    judge.floored = outcome.judgement->floored;
  }
  if (outcome.failure) judge.failed_call = static_cast<int64_t>(outcome.calls.size());
  if (outcome.harness_failure) judge.harness_failure = outcome.harness_failure->message;
  return judge;
}

ReportRun ReportRunOf(int run, const RunOutcome& outcome) {
  const JudgeEntry judge = JudgeEntryOf(outcome);
  ReportRun entry;
  entry.run = run;
  entry.qualified = judge.qualified;
  entry.problems = judge.problems;
  entry.ranked_ms = judge.ranked_ms;
  entry.summary = judge.summary;
  entry.holdout = outcome.plan.holdout;
  entry.warmup = outcome.plan.warmup;
  entry.single_foreign = outcome.plan.single_foreign;
  return entry;
}

Status WriteRun(EvidenceWriter& evidence, const std::string& record_id, int run,
                const Prepared& prepared, const RunOutcome& outcome) {
  const std::string folder = RunFolder(record_id, run);
  RATCHET_RETURN_IF_ERROR(evidence.WriteFile(
      SubmissionPath(folder, BaseName(prepared.submission.path)), prepared.submission.source));
  RATCHET_RETURN_IF_ERROR(
      evidence.WriteJson(RunFile(folder, kCallsFile), CallsJson(CallEntries(outcome))));
  RATCHET_RETURN_IF_ERROR(
      evidence.WriteJson(RunFile(folder, kJudgeFile), JudgeJson(JudgeEntryOf(outcome))));
  if (outcome.compile) {
    RATCHET_RETURN_IF_ERROR(
        evidence.WriteJson(RunFile(folder, kCompileFile), CompileJson(*outcome.compile)));
    RATCHET_RETURN_IF_ERROR(evidence.WriteFile(CompileLogPath(folder), outcome.compile_log));
  }
  int number = 0;
  for (const CallRecord& call : outcome.calls) {
    ++number;
    if (!call.labels.empty()) {
      RATCHET_RETURN_IF_ERROR(evidence.WriteFile(LabelsPath(folder, number), call.labels));
    }
    RATCHET_RETURN_IF_ERROR(evidence.WriteFile(LogPath(folder, number), call.log));
  }
  return Status::Ok();
}

}  // namespace ratchet
