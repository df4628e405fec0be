// A scored run's files in the evidence (records/<id>/run-<k>/): the submission as scored,
// calls.json, judge.json, and each call's labels and log, written through the evidence's typed
// writer (evidence/run_files.h), which owns every name and field.
#ifndef RATCHET_SESSION_RUN_EVIDENCE_H_
#define RATCHET_SESSION_RUN_EVIDENCE_H_

#include <string>
#include <vector>

#include "core/canonical_json.h"
#include "core/status.h"
#include "evidence/report_file.h"
#include "evidence/run_files.h"
#include "evidence/writer.h"
#include "scorer/prepare.h"
#include "scorer/run.h"

namespace ratchet {

// The run's calls and its verdict as the evidence keeps them.
std::vector<CallEntry> CallEntries(const RunOutcome& outcome);
JudgeEntry JudgeEntryOf(const RunOutcome& outcome);
// The report's entry for run `run` (its energy column aside): judge.json's verdict, and the
// plan's datasets.
ReportRun ReportRunOf(int run, const RunOutcome& outcome);

Status WriteRun(EvidenceWriter& evidence, const std::string& record_id, int run,
                const Prepared& prepared, const RunOutcome& outcome);

}  // namespace ratchet

#endif  // RATCHET_SESSION_RUN_EVIDENCE_H_
