#include "shard/collect.h"

#include <algorithm>
#include <set>

#include "contract/contract_view.h"
#include "core/exit_codes.h"
#include "core/file.h"
#include "data/locate.h"
#include "evidence/fields.h"
#include "evidence/layout.h"
#include "evidence/reader.h"
#include "rules/rule_set.h"
#include "shard/verify.h"

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

Result<ShardVerification> ShardVerificationFor(const std::string& run_seed,
                                                const RunRequest& request) {
  ShardVerification verification;
  verification.run_seed = run_seed;
  // The rule set the shards lock: the audit of each checks that its contract locks it.
  Result<RuleSet> rules = LoadRuleSet(request.options.rules_path);
  if (!rules.ok()) return rules.status();
  verification.options.rules = std::move(rules).value();
  verification.options.data_dir = request.options.data_dir;
  Result<DataSearch> search = MakeDataSearch(request.options.data_dir);
  if (!search.ok()) return search.status();
  Result<std::vector<LocatedDataset>> located = LocateDatasets(*search);
  if (!located.ok()) return located.status();
  verification.options.datasets = std::move(located).value();
  return verification;
}

Result<ReportEntry> ShardVerification::Entry(const std::string& dir, const ShardedRun& run,
                                             const Shard& shard,
                                             std::string* manifest_sha256) const {
  Result<VerifiedShard> verified =
      VerifyShard(ShardFolder(dir, shard.id), shard, run, run_seed, run.signer, options);
  if (!verified.ok()) return verified.status();
  if (!verified->stands()) {
    return Status::Unavailable("shard " + shard.id.substr(0, 12) + " (" + shard.record +
                               ", run " + std::to_string(shard.run) +
                               ") fails verification: " + verified->why_not());
  }
  if (manifest_sha256 != nullptr) *manifest_sha256 = verified->audit.manifest_sha256;
  return *verified->entry;
}

Result<std::vector<ScoreAgainShards>> RecordsToScoreAgain(const std::string& dir,
                                                          const ShardedRun& run,
                                                          const ShardVerification& verification,
                                                          bool gpu,
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
      Result<ReportEntry> entry = verification.Entry(dir, run, s.shard);
      if (!entry.ok()) return entry.status();
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
                                 const ShardVerification& verification, bool gpu,
                                 const RunRequest& request,
                                 const Json& rule_set, const std::vector<std::string>& records,
                                 std::vector<std::string> notes,
                                 std::map<std::string, std::string>* verified_manifests) {
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
      // Verified again as it is counted: a folder changed since its attempt ended is refused.
      std::string manifest_sha256;
      Result<ReportEntry> entry = verification.Entry(dir, run, s.shard, &manifest_sha256);
      if (!entry.ok()) return entry.status();
      (*verified_manifests)[s.shard.id] = manifest_sha256;
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
