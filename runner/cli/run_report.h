// What `ratchet report` and `ratchet run --markdown` show a reviewer: a run's evidence read back
// (its contract, each record's outcome and time against the baseline the run was held to, the
// ratchet's errors and notes) and written as Markdown for a pull request.
#ifndef RATCHET_CLI_RUN_REPORT_H_
#define RATCHET_CLI_RUN_REPORT_H_

#include <optional>
#include <string>
#include <vector>

#include "baseline/ratchet.h"
#include "core/status.h"

namespace ratchet {

struct RunReportRow {
  std::string id;
  std::string expected;  // the baseline's outcome ("(unreviewed)", "claimed ..."), "" without one
  std::string scored;    // the outcome compared (a second scoring's, when there is one)
  std::optional<double> ranked_ms, again_ms;  // first scoring's, second scoring's
  std::optional<double> reviewed_ms;          // the baseline's on this run's lane
  double tolerance_ms = 0;  // how far a time may lie from reviewed_ms: the record's own tolerance
  std::optional<double> energy_mj;
  std::vector<std::string> codes;  // the ratchet's errors that name the record
};

struct RunReport {
  std::string path;           // the evidence directory or sharded run
  std::string status;         // complete, interrupted, failed
  int exit_code = -1;
  std::string contract_line;  // the contract in one line
  std::string baseline;       // the baseline the run was held to ("" when none)
  std::string baseline_note;  // why expected outcomes are not shown, when they are not
  std::vector<RatchetError> run_errors;  // the errors that name no record
  std::vector<std::string> notes;
  std::vector<RunReportRow> rows;  // the differences first, then the rest, each by id
};

// Reads the evidence directory (or sharded run) `dir`; the baseline its report names is read too,
// when it is still the one the run was held to, for the expected outcomes and reviewed times.
Result<RunReport> ReadRunReport(const std::string& dir);

// The Markdown a reviewer pastes into a pull request.
std::string MarkdownReport(const RunReport& report);

}  // namespace ratchet

#endif  // RATCHET_CLI_RUN_REPORT_H_
