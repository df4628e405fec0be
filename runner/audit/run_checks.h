// The checks of one run folder (AuditRun, evidence_run.h), each over what the run's audit read:
// the report's entry for the run, judge.json and calls.json. AuditRun runs them in order;
// run_verdict.cc holds the verdict's, run_calls.cc those of the calls against the contract, the
// seed and the labels. Internal to the audit.
#ifndef RATCHET_AUDIT_RUN_CHECKS_H_
#define RATCHET_AUDIT_RUN_CHECKS_H_

#include <optional>
#include <string>
#include <vector>

#include "audit/evidence_run.h"
#include "audit/result.h"
#include "core/status.h"
#include "evidence/report_file.h"
#include "evidence/run_files.h"

namespace ratchet {

// What a run's audit read, for its checks.
struct RunFacts {
  RunFacts(EvidenceContext& context, const RecordFacts& record, int run,
           const ReportRun& report_run, const std::string& report_path);

  EvidenceContext& context;
  const RecordFacts& record;
  int run;
  const ReportRun& report_run;
  const std::string& report_path;  // the report's entry for the run ("records.ncm.runs[0]")
  std::string folder;              // records/<id>/run-<k>
  std::string calls_file, judge_file;
  std::string submission_folder;    // "records/<id>/run-<k>/submission/"
  std::string submission_file;      // the one file it holds
  RunSeed seed;                     // the run's, from the revealed seed; empty without one
  std::optional<JudgeEntry> judge;  // judge.json, when it reads
  std::optional<std::vector<CallEntry>> calls;  // calls.json, when it reads
  bool stopped = false;  // judge.json names the call that failed (failed_call)
  RunOutcomeFacts outcome;
};

// run_verdict.cc: the verdict of judge.json against calls.json: a harness failure is a finding,
// a run stopped by a failure records one problem of the run loop at its last call, and a judged
// run is judged again (its number of calls, its times, problems, qualified, ranked_ms, summary,
// floored).
void CheckVerdict(RunFacts& run, AuditResult* result);

// run_calls.cc: the calls against the contract, the seed and the labels.
// Every call's worker hello names the contract's lane (device kind, name, board) and, where the
// contract observed the full sandbox, the sandbox.
void CheckCallsRanOnTheLane(const RunFacts& run, AuditResult* result);
// Every call's draw and warm-up come from a dataset contract.json locks.
void CheckCallsDrewFromLockedDatasets(const RunFacts& run, AuditResult* result);
// The hold-out, warm-up and every call's draw regenerated from the revealed seed (MakeRunPlan).
Status CheckPlan(const RunFacts& run, AuditResult* result);
// Per call, its log's size and its labels: one byte per test image, each 0-9 or 255, and where
// the dataset is here, `correct` re-counted against the draw regenerated from the seed.
Status CheckLogsAndLabels(const RunFacts& run, AuditResult* result);

// run_compile.cc: the compile step (compile.json), when the run had one: its warm-up drew the
// run's warm-up dataset at the step's own index, its listing's sha256 is re-derived, and every
// call's worker names those caches (phases.caches_sha256); without the step, no call names any.
void CheckCompileStep(const RunFacts& run, AuditResult* result);

}  // namespace ratchet

#endif  // RATCHET_AUDIT_RUN_CHECKS_H_
