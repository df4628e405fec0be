// What `ratchet run` was asked and what it came to, held to the baseline: the direct run (one
// scorer session) and the sharded run (runner/shard/) share it, so that both hold a record to the
// baseline alike and write the same ratchet part of report.json.
#ifndef RATCHET_SHARD_HELD_RUN_H_
#define RATCHET_SHARD_HELD_RUN_H_

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "baseline/baseline.h"
#include "baseline/ratchet.h"
#include "core/canonical_json.h"
#include "evidence/report_file.h"
#include "session/request.h"

namespace ratchet {

// What `ratchet run` was asked, checked: the baseline read, every record's submission there.
struct RunRequest {
  std::string baseline_path;  // as given
  std::string baseline_sha256;
  std::string folder;  // the baseline's folder
  Baseline baseline;
  std::vector<std::string> asked;     // --record ids as given (empty: every record)
  std::vector<std::string> selected;  // the records to score
  std::map<std::string, RecordSpec> specs;
  std::optional<int64_t> runs_flag;
  bool require_lane = false;
  bool json = false;
  SessionOptions options;  // --data, --python, --rules, --out, --no-energy
  std::optional<std::string> markdown;  // --markdown FILE: the run's summary for a pull request
};

// Runs of `record` on a lane with (`gpu`) or without a GPU: --runs, else the record's, else 1 on
// a CPU lane and 3 on a GPU lane.
int RunsOf(const RunRequest& request, const std::string& record, bool gpu);

// "record ID: ... scoring it again": why a record is scored once more.
std::string ScoreAgainLine(const Baseline& baseline, const std::string& id,
                           const std::string& lane, ScoreAgain why, const Scoring& first);

// What a run came to, however it was scored.
struct RunOutcome {
  std::string evidence;  // the evidence directory
  std::string lane;
  RatchetInputs inputs;
  RatchetResult ratchet;
  std::map<std::string, ReportRecord> records;
  int exit_code = 0;
};

// The ratchet's verdict on what was scored (inputs.scored, inputs.contract): errors and notes,
// with `notes` added, the reviewed evidence checked.
void HoldToBaseline(const RunRequest& request, const std::vector<std::string>& notes,
                    RunOutcome* outcome);
// The ratchet part of report.json.
Json RatchetPartOf(const RunRequest& request, const RunOutcome& outcome);
}  // namespace ratchet

#endif  // RATCHET_SHARD_HELD_RUN_H_
