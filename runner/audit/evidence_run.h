// One run folder of an evidence directory (records/<id>/run-<k>/) audited against the report's
// entry for it: the parts of the evidence audit that look inside a run.
#ifndef RATCHET_AUDIT_EVIDENCE_RUN_H_
#define RATCHET_AUDIT_EVIDENCE_RUN_H_

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "audit/result.h"
#include "core/canonical_json.h"
#include "core/status.h"
#include "data/keyed_stream.h"
#include "data/locate.h"
#include "evidence/manifest.h"
#include "evidence/report_file.h"
#include "rules/rule_set.h"
#include "scorer/plan.h"

namespace ratchet {

// What the audit of a whole directory shares with each run's.
struct EvidenceContext {
  std::string dir;
  const RuleSet* rules = nullptr;
  std::map<std::string, FolderItem> items;  // every item under dir, by relative path
  std::optional<RunSeed> seed;              // the revealed seed, when it matches its commitment
  Json contract;                            // null when unreadable
  std::optional<std::string> data_dir;
  bool recount = true;  // EvidenceAuditOptions::recount
  // Located on first need; `datasets_error` set when they could not be.
  std::optional<std::vector<LocatedDataset>> datasets;
  // Why labels were not re-counted: each reason once, with the first labels file and a count.
  struct Skipped {
    std::string why, first_file;
    int calls = 0;
  };
  std::vector<Skipped> skipped_recounts;

  // Tallies for what was checked.
  int runs_judged = 0, calls_judged = 0, plans = 0, labels_counted = 0, submissions = 0;
};

// The record's figures that a run's audit needs from report.json.
struct RecordFacts {
  std::string id;
  std::string submission;  // the file name
  std::string sha256;
  int64_t band_bp = 0;
};

// A run's outcome as its evidence gives it, once audited.
struct RunOutcomeFacts {
  bool known = false;  // judge.json could be read
  bool qualified = false;
  std::optional<double> ranked_ms;
  std::vector<std::string> rules_broken;
};

// Audits records/<record.id>/run-<run>/ against `report_run` (the report's entry, read at
// report.json path `report_path`). Errors only when datasets cannot be
// located for a reason that is the user's (a --data that is not a folder) or the harness's.
Result<RunOutcomeFacts> AuditRun(EvidenceContext& context, const RecordFacts& record, int run,
                                 const ReportRun& report_run, const std::string& report_path,
                                 AuditResult* result);

}  // namespace ratchet

#endif  // RATCHET_AUDIT_EVIDENCE_RUN_H_
