#include "shard/held_run.h"

#include <cmath>
#include <cstdio>
#include <iomanip>
#include <sstream>

#include "shard/reviewed_evidence.h"
#include "baseline/ratchet_report.h"
#include "contract/contract_view.h"
#include "core/exit_codes.h"

namespace ratchet {

namespace {

// A time in ms as the table prints it, "-" when there is none.
std::string MsText(std::optional<double> ms) {
  if (!ms) return "-";
  std::ostringstream text;
  text << std::fixed << std::setprecision(3) << *ms;
  return text.str();
}

// The machine's load average over the last minute (the first field of /proc/loadavg), or nothing
// where it cannot be read.
std::optional<double> LoadAverage() {
  std::FILE* file = std::fopen("/proc/loadavg", "re");
  if (file == nullptr) return std::nullopt;
  double load = 0;
  const bool read = std::fscanf(file, "%lf", &load) == 1;
  std::fclose(file);
  if (!read || !std::isfinite(load) || load < 0) return std::nullopt;
  return load;
}

}  // namespace

int RunsOf(const RunRequest& request, const std::string& record, bool gpu) {
  const BaselineRecord& entry = request.baseline.records.at(record);
  return static_cast<int>(request.runs_flag.value_or(entry.runs.value_or(gpu ? 3 : 1)));
}

std::string ScoreAgainLine(const Baseline& baseline, const std::string& id,
                           const std::string& lane, ScoreAgain why, const Scoring& first) {
  const BaselineRecord& record = baseline.records.at(id);
  if (why == ScoreAgain::kTimingRulesAlone) {
    return "record " + id + ": scored " + OutcomeText(first.outcome) +
           (record.expected ? ", reviewed " + OutcomeText(*record.expected)
                            : ", claimed " + OutcomeText(record.claimed->outcome)) +
           ": timing rules alone differ: scoring it again\n";
  }
  return "record " + id + ": " + MsText(first.ranked_ms) +
         " ms is outside the tolerance of the reviewed " +
         MsText(record.timing.at(lane).ranked_ms) + " ms: scoring it again\n";
}

void HoldToBaseline(const RunRequest& request, const std::vector<std::string>& notes,
                    RunOutcome* outcome) {
  RatchetInputs& inputs = outcome->inputs;
  inputs.load_average = LoadAverage();
  outcome->lane = ContractView(inputs.contract).lane_id().value_or("");
  // The boards the reviewed times came from, for the messages of times outside their tolerance.
  for (const std::string& id : inputs.selected) {
    inputs.reviewed_boards[id] =
        ReviewedBoard(request.baseline, request.folder, outcome->lane, id);
  }
  outcome->ratchet = RatchetErrors(request.baseline, inputs);
  for (const std::string& note : notes) outcome->ratchet.notes.push_back(note);
  // The reviewed evidence a record names must be there, whole.
  CheckReviewedEvidence(request.baseline, request.folder, inputs.selected, &outcome->ratchet);
  outcome->exit_code = outcome->ratchet.errors.empty() ? kExitSuccess : kExitFinding;
}

Json RatchetPartOf(const RunRequest& request, const RunOutcome& outcome) {
  RatchetReport part;
  part.baseline = request.baseline_path;
  part.baseline_sha256 = request.baseline_sha256;
  part.errors = outcome.ratchet.errors;
  part.notes = outcome.ratchet.notes;
  part.lane_reviewed = outcome.ratchet.lane_reviewed;
  part.contract_changed = outcome.ratchet.contract_changed;
  part.require_lane = outcome.inputs.require_lane;
  part.rule_set = outcome.inputs.rule_set;
  return RatchetReportJson(part);
}

}  // namespace ratchet
