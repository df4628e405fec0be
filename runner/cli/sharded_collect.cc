#include "cli/sharded_collect.h"

#include <algorithm>
#include <set>

#include "contract/contract_view.h"
#include "core/exit_codes.h"
#include "core/file.h"
#include "evidence/fields.h"
#include "evidence/layout.h"
#include "evidence/reader.h"

namespace ratchet {

namespace {

Scoring ScoringOf(const ReportEntry& entry) {
  return Scoring{entry.sha256, {entry.status(), entry.broken}, entry.ranked_ms};
}

}  // namespace

std::string ShardContracts::Lane(const std::string& id) {
  auto known = lanes_.find(id);
  if (known != lanes_.end()) return known->second;
  std::string lane;
  Result<std::string> text = ReadFile(ShardFolder(dir_, id) + "/" + kContractFile, 16u << 20);
  if (text.ok()) {
    Result<Json> contract = ParseJson(*text, kContractFile);
    if (contract.ok()) {
      lane = ContractView(*contract).lane_id().value_or("");
      by_lane_.emplace(lane, *contract);
    }
  }
  lanes_[id] = lane;
  return lane;
}

std::string ShardContracts::SharedLane(const std::vector<std::string>& ids) {
  std::set<std::string> lanes;
  for (const std::string& id : ids) lanes.insert(Lane(id));
  return lanes.size() == 1 ? *lanes.begin() : "";
}

Result<ReportEntry> ShardEntry(const std::string& folder, const Shard& shard,
                               const std::string& run_seed_commit) {
  Result<std::string> text = ReadFile(folder + "/" + kReportFile, 64u << 20);
  if (!text.ok()) return text.status();
  Result<Json> report = ParseJson(*text, kReportFile);
  if (!report.ok()) return report.status();
  if (!report->is_object() ||
      report->value(kShardReportKey, Json()) != ShardReportJson(shard, run_seed_commit)) {
    return Status::BadInput(std::string(kReportFile) + ": its \"" + kShardReportKey +
                            "\" is not this shard's");
  }
  FindingLines lines;
  FieldReader reader(kReportFile, &lines);
  const Json* records = ReportRecordsObject(*report, reader);
  if (records == nullptr || records->size() != 1 || !records->contains(shard.record)) {
    return Status::BadInput(std::string(kReportFile) + ": does not hold record " + shard.record +
                            " alone");
  }
  std::optional<ReportRecord> record =
      ReadReportRecord(records->at(shard.record), "records." + shard.record, reader);
  if (!record || !lines.lines().empty()) {
    return Status::BadInput(lines.lines().empty() ? std::string(kReportFile) + ": unreadable"
                                                  : lines.lines().front());
  }
  const ReportEntry& entry = record->first;
  if (record->rerun || entry.runs.size() != 1 || entry.runs[0].run != shard.run) {
    return Status::BadInput(std::string(kReportFile) + ": record " + shard.record +
                            " does not hold run " + std::to_string(shard.run) + " alone");
  }
  if (entry.sha256 != shard.submission_sha256) {
    return Status::BadInput(std::string(kReportFile) + ": the submission scored has sha256 " +
                            entry.sha256 + ", not the shard's " + shard.submission_sha256);
  }
  return entry;
}

Status VerifyShard(const std::string& folder, const Shard& shard, const ShardedRun& run,
                   const std::string& run_seed) {
  Result<EvidenceSummary> evidence = ReadEvidence(folder);
  if (!evidence.ok()) return evidence.status();
  if (!evidence->findings.empty()) {
    return Status::BadInput(evidence->findings.front().file + ": " +
                            evidence->findings.front().problem);
  }
  if (!evidence->complete) {
    return Status::BadInput("it is not complete (status " + evidence->status + ")");
  }
  ContractView contract(evidence->contract);
  if (!contract.locked().ok() || *contract.locked() != run.locked) {
    std::string keys;
    if (contract.locked().ok()) {
      for (const auto& [key, value] : run.locked.items()) {
        const Json mine = contract.locked()->value(key, Json());
        if (mine != value) keys += (keys.empty() ? "" : ", ") + key;
      }
    }
    return Status::BadInput("its contract's locked part is not the run's" +
                            (keys.empty() ? std::string() : " (it differs at " + keys + ")"));
  }
  Result<std::string> seed = ShardSeed(run_seed, shard.id);
  if (!seed.ok()) return seed.status();
  if (evidence->seed_reveal != *seed) {
    return Status::BadInput("its seed is not the one the run derived for it");
  }
  Result<ReportEntry> entry = ShardEntry(folder, shard, run.seed_commit);
  return entry.ok() ? Status::Ok() : entry.status();
}

Result<std::vector<ScoreAgainShards>> RecordsToScoreAgain(const std::string& dir,
                                                          const ShardedRun& run, bool gpu,
                                                          const RunRequest& request,
                                                          const std::vector<std::string>& records) {
  std::vector<ScoreAgainShards> again;
  ShardContracts contracts(dir);
  for (const std::string& id : records) {
    std::vector<ReportEntry> entries;
    std::vector<std::string> ids;
    bool has_rerun = false;
    for (const ShardedRunShard& s : run.shards) {
      if (s.shard.record != id) continue;
      if (s.rerun) {
        has_rerun = true;
        continue;
      }
      Result<ReportEntry> entry = ShardEntry(ShardFolder(dir, s.shard.id), s.shard, run.seed_commit);
      if (!entry.ok()) return Status::Unavailable(entry.status().message());
      entries.push_back(*entry);
      ids.push_back(s.shard.id);
    }
    if (has_rerun || entries.empty()) continue;
    const Scoring first = ScoringOf(CombineShardEntries(entries));
    // Held to the lane its shards were scored on (the run's, when they are on several).
    std::string lane = contracts.SharedLane(ids);
    bool lane_gpu = gpu;
    if (lane.empty() || !contracts.by_lane().count(lane)) {
      lane = run.lane;
    } else {
      lane_gpu = GpuLane(ContractView(contracts.by_lane().at(lane)));
    }
    const ScoreAgain why = WhetherToScoreAgain(request.baseline, id, lane, lane_gpu, first);
    if (why == ScoreAgain::kNo) continue;
    again.push_back({id, static_cast<int>(entries.size()),
                     ScoreAgainLine(request.baseline, id, lane, why, first)});
  }
  return again;
}

Result<RunOutcome> CollectShards(const std::string& dir, const ShardedRun& run,
                                 const std::string& run_seed, bool gpu, const RunRequest& request,
                                 const Json& rule_set, const std::vector<std::string>& records,
                                 std::vector<std::string> notes) {
  RunOutcome outcome;
  outcome.evidence = dir;
  outcome.inputs.require_lane = request.require_lane;
  outcome.inputs.rule_set = rule_set;
  ShardContracts contracts(dir);
  std::map<std::string, std::string> record_lanes;  // "" for a record on more than one lane
  for (const std::string& id : records) {
    std::vector<ReportEntry> first_entries, rerun_entries;
    std::vector<std::string> ids;
    for (const ShardedRunShard& s : run.shards) {
      if (s.shard.record != id) continue;
      const std::string folder = ShardFolder(dir, s.shard.id);
      Status verified = VerifyShard(folder, s.shard, run, run_seed);
      if (!verified.ok()) {
        return Status::Unavailable("shard " + s.shard.id + " fails verification at collect: " +
                                   verified.message());
      }
      Result<ReportEntry> entry = ShardEntry(folder, s.shard, run.seed_commit);
      if (!entry.ok()) return Status::Unavailable(entry.status().message());
      (s.rerun ? rerun_entries : first_entries).push_back(*entry);
      ids.push_back(s.shard.id);
    }
    if (first_entries.empty()) continue;
    const std::string lane = contracts.SharedLane(ids);
    record_lanes[id] = lane;
    const std::string held_to = lane.empty() || !contracts.by_lane().count(lane) ? run.lane : lane;
    const bool lane_gpu = contracts.by_lane().count(held_to)
                              ? GpuLane(ContractView(contracts.by_lane().at(held_to)))
                              : gpu;
    outcome.inputs.selected.push_back(id);
    ReportRecord entry{CombineShardEntries(first_entries), std::nullopt};
    const Scoring first = ScoringOf(entry.first);
    std::optional<Scoring> second;
    ScoreAgain why = ScoreAgain::kNo;
    if (!rerun_entries.empty()) {
      why = WhetherToScoreAgain(request.baseline, id, held_to, lane_gpu, first);
      entry.rerun = CombineShardEntries(rerun_entries);
      second = ScoringOf(*entry.rerun);
    }
    outcome.inputs.scored[id] = CombineScorings(why, first, second);
    outcome.records[id] = entry;
  }
  // The run's contract: a shard's on the lane the run was planned on, else the first lane's.
  if (contracts.by_lane().count(run.lane)) {
    outcome.inputs.contract = contracts.by_lane().at(run.lane);
  } else if (!contracts.by_lane().empty()) {
    outcome.inputs.contract = contracts.by_lane().begin()->second;
  }
  std::set<std::string> lanes;
  for (const auto& [lane, contract] : contracts.by_lane()) lanes.insert(lane);
  if (lanes.size() > 1 || (lanes.size() == 1 && *lanes.begin() != run.lane)) {
    std::string named;
    for (const std::string& lane : lanes) named += (named.empty() ? "" : ", ") + lane;
    notes.push_back("the shards were scored on lanes " + named + ", the run was planned on " +
                    run.lane + ": each record is held to the lane its shards were scored on");
  }
  HoldByLane(request, record_lanes, contracts.by_lane(), run.lane, notes, &outcome);
  if (request.require_lane && lanes.size() > 1) {
    outcome.ratchet.errors.push_back(RatchetError{
        "lane-mixed", "",
        "--require-lane: the shards were scored on more than one lane; score them on one"});
    outcome.exit_code = kExitFinding;
  }
  return outcome;
}

void HoldByLane(const RunRequest& request, const std::map<std::string, std::string>& record_lanes,
                const std::map<std::string, Json>& contracts, const std::string& run_lane,
                const std::vector<std::string>& notes, RunOutcome* outcome) {
  // The records by the lane they are held to.
  std::map<std::string, std::vector<std::string>> by_lane;
  std::set<std::string> mixed;
  std::vector<std::string> lane_notes;
  for (const std::string& id : outcome->inputs.selected) {
    auto lane = record_lanes.find(id);
    if (lane == record_lanes.end() || lane->second.empty() || !contracts.count(lane->second)) {
      if (lane != record_lanes.end() && lane->second.empty()) mixed.insert(id);
      by_lane[run_lane].push_back(id);
      continue;
    }
    by_lane[lane->second].push_back(id);
    if (lane->second != run_lane) {
      lane_notes.push_back(id + ": its shards were scored on lane " + lane->second +
                           ", not the run's " + run_lane + ": it is held to lane " + lane->second);
    }
  }
  RatchetResult merged;
  merged.lane_reviewed = true;
  auto add = [](auto* into, const auto& item) {
    if (std::find(into->begin(), into->end(), item) == into->end()) into->push_back(item);
  };
  for (const auto& [lane, ids] : by_lane) {
    RunOutcome part;
    part.inputs = outcome->inputs;
    auto contract = contracts.find(lane);
    if (contract != contracts.end()) part.inputs.contract = contract->second;
    part.inputs.selected = ids;
    for (const std::string& id : ids) {
      if (mixed.count(id)) part.inputs.untimed.insert(id);
    }
    HoldToBaseline(request, {}, &part);
    for (const RatchetError& error : part.ratchet.errors) add(&merged.errors, error);
    for (const std::string& note : part.ratchet.notes) add(&merged.notes, note);
    merged.contract_changed = merged.contract_changed || part.ratchet.contract_changed;
    merged.lane_reviewed = merged.lane_reviewed && part.ratchet.lane_reviewed;
    merged.timings_compared = merged.timings_compared || part.ratchet.timings_compared;
  }
  if (by_lane.empty()) {
    HoldToBaseline(request, {}, outcome);
    merged = outcome->ratchet;
  }
  for (const std::string& note : lane_notes) merged.notes.push_back(note);
  for (const std::string& note : notes) merged.notes.push_back(note);
  outcome->lane = run_lane;
  outcome->ratchet = std::move(merged);
  outcome->exit_code = outcome->ratchet.errors.empty() ? kExitSuccess : kExitFinding;
}

}  // namespace ratchet
