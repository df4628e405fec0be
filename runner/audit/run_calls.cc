#include <algorithm>
#include <map>
#include <tuple>

#include "audit/run_checks.h"
#include "contract/contract_view.h"
#include "core/file.h"
#include "evidence/fields.h"
#include "evidence/layout.h"
#include "sandbox/policy.h"
#include "scorer/draw_source.h"
#include "scorer/plan.h"

namespace ratchet {
namespace {

constexpr uint8_t kOutOfRangeLabel = 255;

// The first of `calls` (the call that stopped a run left out) whose worker hello does not give
// what `agrees` accepts, and how many do not; `differing` 0 when all do.
struct Disagreement {
  size_t differing = 0, first = 0;
  Json found;  // what the first one's hello said
};
template <typename Accept>
Disagreement FirstDisagreeing(const std::vector<CallEntry>& calls, bool stopped, const char* field,
                              Accept agrees) {
  Disagreement d;
  for (size_t i = 0; i < calls.size(); ++i) {
    if (stopped && i + 1 == calls.size()) continue;
    const Json said = HelloMember(calls[i].worker, field);
    if (!agrees(said) && d.differing++ == 0) {
      d.first = i;
      d.found = said;
    }
  }
  return d;
}

std::string AndInMore(const Disagreement& d) {
  return d.differing > 1 ? " (and in " + std::to_string(d.differing - 1) + " more calls)"
                         : std::string();
}

// Under the full sandbox every worker said so itself: a uid of the scorer's sandbox slot
// (observed.sandbox_slot; slot 0 in evidence from before slots), no_new_privs, and seccomp in
// filter mode (2).
void CheckCallsRanInTheSandbox(const RunFacts& run, AuditResult* result) {
  const ContractView contract(run.context.contract);
  if (contract.sandbox().found_or_null() != Json("full")) return;
  const ContractField<int64_t> slot_field = contract.sandbox_slot();
  // Missing: evidence from before slots, slot 0. Anything else that is not a slot: no uid fits.
  const int64_t read_slot = slot_field.found() ? slot_field.value_or(-1) : 0;
  const int slot = read_slot >= 0 && read_slot < kSandboxSlotCount ? static_cast<int>(read_slot) : -1;
  const Json slot_json = slot_field.found() ? slot_field.found_or_null() : Json(0);
  const std::vector<uid_t> slot_uids = slot >= 0 ? SlotWorkerUids(slot) : std::vector<uid_t>{};
  const Disagreement d =
      FirstDisagreeing(*run.calls, run.stopped, kHelloSandbox, [&](const Json& part) {
        const HelloSandbox said = ReadHelloSandbox(part);
        const bool sandbox_uid =
            said.uid && std::find(slot_uids.begin(), slot_uids.end(), *said.uid) != slot_uids.end();
        return sandbox_uid && said.no_new_privs && said.seccomp_filter;
      });
  if (d.differing > 0) {
    result->Breaks(
        run.calls_file + ": " + JoinPath(JoinPath("calls", d.first), "worker") + "." +
            kHelloSandbox,
        JsonShown(d.found) + AndInMore(d) +
            ", but contract.json observed the full sandbox in slot " + JsonShown(slot_json) +
            ", where a worker runs as one of the slot's uids with no_new_privs 1 and "
            "seccomp 2");
  }
}

// Whether the contract locks the dataset as it is here; otherwise why not.
std::string LockedDifference(const ContractView& contract, const LocatedDataset& located) {
  if (!contract.locked_dataset(located.name).ok()) {
    return "contract.json locks no " + located.name + " dataset";
  }
  if (contract.dataset_images_sha256(located.name).found_or_null() != Json(located.images_sha256) ||
      contract.dataset_labels_sha256(located.name).found_or_null() != Json(located.labels_sha256)) {
    return "the " + located.name + " files here (" + located.images_path +
           ") are not the ones contract.json locks";
  }
  return "";
}

// Why `dataset`'s labels cannot be re-counted here ("" when they can), the datasets located on
// first need.
Result<std::string> WhyNoRecount(EvidenceContext& context, const std::string& dataset) {
  if (!context.datasets) {
    Result<DataSearch> search = MakeDataSearch(context.data_dir);
    if (!search.ok()) return search.status();
    Result<std::vector<LocatedDataset>> located = LocateDatasets(*search);
    if (!located.ok()) return located.status();
    context.datasets = std::move(located).value();
  }
  const LocatedDataset* located = nullptr;
  for (const LocatedDataset& d : *context.datasets) {
    if (d.name == dataset) located = &d;
  }
  if (located != nullptr && located->present) {
    return LockedDifference(ContractView(context.contract), *located);
  }
  std::string searched;
  if (located != nullptr) {
    for (const std::string& folder_searched : located->searched) {
      searched += (searched.empty() ? "" : ", ") + folder_searched;
    }
  }
  return dataset + " is not here" + (searched.empty() ? "" : " (looked in " + searched + ")") +
         "; name its folder with --data DIR";
}

// A re-count skipped, for the note: each reason once, with its first labels file and a count.
void SkipRecount(EvidenceContext& context, const std::string& why, const std::string& labels_file) {
  auto same = std::find_if(context.skipped_recounts.begin(), context.skipped_recounts.end(),
                           [&](const EvidenceContext::Skipped& s) { return s.why == why; });
  if (same == context.skipped_recounts.end()) {
    context.skipped_recounts.push_back({why, labels_file, 1});
  } else {
    ++same->calls;
  }
}

// Call `index`'s log keeps what the worker printed, up to the rule set's cap.
void CheckCallLog(const RunFacts& run, size_t index, AuditResult* result) {
  const CallEntry& c = (*run.calls)[index];
  const int64_t log_cap = run.context.rules->limits.worker_log_bytes;
  const std::string log_file = LogPath(run.folder, static_cast<int>(index + 1));
  auto log = run.context.items.find(log_file);
  if (log == run.context.items.end()) {
    result->Breaks(log_file, "missing: every call keeps the worker's output");
  } else if (log->second.kind == FolderItem::Kind::kFile &&
             static_cast<int64_t>(log->second.bytes) != std::min(c.log_bytes, log_cap)) {
    result->Breaks(log_file, std::to_string(log->second.bytes) + " bytes, but the worker printed " +
                                 std::to_string(c.log_bytes) +
                                 " (calls.json) and a log keeps the last " +
                                 std::to_string(log_cap));
  }
}

// Call `index`'s labels: one byte per test image, each 0-9 or 255. nullopt when there are none to
// count (the call that stopped the run keeps none) or they are not labels (a finding).
std::optional<std::string> ReadCallLabels(const RunFacts& run, size_t index, AuditResult* result) {
  const CallEntry& c = (*run.calls)[index];
  const std::string labels_file = LabelsPath(run.folder, static_cast<int>(index + 1));
  const bool failed_here = run.stopped && index + 1 == run.calls->size();
  auto labels_item = run.context.items.find(labels_file);
  if (labels_item == run.context.items.end()) {
    if (!failed_here)
      result->Breaks(labels_file, "missing: a completed call keeps its predicted labels");
    return std::nullopt;
  }
  if (labels_item->second.kind != FolderItem::Kind::kFile || failed_here) return std::nullopt;
  Result<std::string> labels =
      ReadFile(run.context.dir + "/" + labels_file, static_cast<size_t>(c.total) + 1);
  if (!labels.ok()) {
    result->Breaks(labels_file, labels.status().message());
    return std::nullopt;
  }
  if (static_cast<int64_t>(labels->size()) != c.total) {
    result->Breaks(labels_file, std::to_string(labels_item->second.bytes) +
                                    " bytes, but the call had " + std::to_string(c.total) +
                                    " test images");
    return std::nullopt;
  }
  const auto bad = std::find_if(labels->begin(), labels->end(), [](char b) {
    const uint8_t label = static_cast<uint8_t>(b);
    return label > 9 && label != kOutOfRangeLabel;
  });
  if (bad != labels->end()) {
    result->Breaks(labels_file, "byte " + std::to_string(bad - labels->begin()) + " is " +
                                    std::to_string(static_cast<uint8_t>(*bad)) +
                                    "; a label is 0-9, or 255 for one outside 0-9");
    return std::nullopt;
  }
  return std::move(labels).value();
}

// Call `index`'s `correct` re-counted from its labels against its draw, regenerated from the
// revealed seed (`draws`, made on first need); skipped, for a note, where the dataset is not here.
Status RecountCorrect(const RunFacts& run, size_t index, const std::string& labels,
                      std::optional<DrawSource>* draws, AuditResult* result) {
  const CallEntry& c = (*run.calls)[index];
  const std::string labels_file = LabelsPath(run.folder, static_cast<int>(index + 1));
  const std::string at = run.calls_file + ": calls[" + std::to_string(index) + "]";
  Result<std::string> why = WhyNoRecount(run.context, c.dataset);
  if (!why.ok()) return why.status();
  if (!why->empty()) {
    SkipRecount(run.context, *why, labels_file);
    return Status::Ok();
  }
  if (!*draws) draws->emplace(run.seed, *run.context.datasets);
  Result<Draw> draw = (*draws)->Make(c.dataset, c.draw_index);
  if (!draw.ok()) return draw.status();
  if (static_cast<int64_t>(draw->test_y.size()) != c.total) {
    result->Breaks(at + ".total", std::to_string(c.total) + ", but draw " + c.dataset + "/" +
                                      std::to_string(c.draw_index) + " has " +
                                      std::to_string(draw->test_y.size()) + " test images");
    return Status::Ok();
  }
  int64_t correct = 0;
  for (size_t j = 0; j < labels.size(); ++j) {
    correct += static_cast<int64_t>(static_cast<uint8_t>(labels[j])) == draw->test_y[j];
  }
  if (correct != c.correct) {
    result->Breaks(at + ".correct",
                   std::to_string(c.correct) + ", but the labels of " + labels_file + " match " +
                       std::to_string(correct) + " of draw " + c.dataset + "/" +
                       std::to_string(c.draw_index) + " regenerated from the revealed seed");
  } else {
    ++run.context.labels_counted;
  }
  return Status::Ok();
}

}  // namespace

// A contract relabelled after the run (a CPU run called an H200's) disagrees with every hello.
// The call that stopped a run may have failed before its hello: it is left out.
void CheckCallsRanOnTheLane(const RunFacts& run, AuditResult* result) {
  const ContractView contract(run.context.contract);
  const Json kind = contract.device_kind().found_or_null();
  const bool gpu = kind == Json("cuda");
  // (hello field, the contract's field, its value)
  const std::vector<std::tuple<const char*, std::string, Json>> expected = {
      {kHelloDevice, contract.device_kind().path(), kind},
      {kHelloDeviceName, contract.device_name().path(),
       gpu ? contract.device_name().found_or_null() : Json()},
      {kHelloUuid, contract.device_uuid().path(),
       gpu ? contract.device_uuid().found_or_null() : Json()}};
  for (const auto& [field, contract_field, value] : expected) {
    if (field != std::string(kHelloDevice) && !gpu) continue;
    const Disagreement d = FirstDisagreeing(*run.calls, run.stopped, field,
                                            [&](const Json& said) { return said == value; });
    if (d.differing > 0) {
      result->Breaks(
          run.calls_file + ": " + JoinPath(JoinPath("calls", d.first), "worker") + "." + field,
          JsonShown(d.found) + AndInMore(d) + ", but contract.json's " + contract_field + " is " +
              JsonShown(value) + ": the calls did not run on the lane the contract names");
    }
  }
  CheckCallsRanInTheSandbox(run, result);
}

// The scorer draws only from datasets it found and hashed: a lock set to null after the run
// would otherwise leave the labels unchecked.
void CheckCallsDrewFromLockedDatasets(const RunFacts& run, AuditResult* result) {
  const ContractView contract(run.context.contract);
  const std::vector<CallEntry>& calls = *run.calls;
  std::map<std::string, std::pair<size_t, size_t>> unlocked;  // dataset: first call, count
  for (size_t i = 0; i < calls.size(); ++i) {
    for (const std::string& dataset : {calls[i].dataset, calls[i].warmup_dataset}) {
      if (dataset.empty() || contract.locked_dataset(dataset).found_or_null().is_object()) continue;
      auto [it, added] = unlocked.emplace(dataset, std::make_pair(i, size_t{0}));
      ++it->second.second;
    }
  }
  for (const auto& [dataset, where] : unlocked) {
    result->Breaks(run.calls_file + ": " + JoinPath("calls", where.first),
                   std::to_string(where.second) + (where.second == 1 ? " draw" : " draws") +
                       " from " + dataset +
                       ", which contract.json does not lock (locked.datasets." + dataset + " is " +
                       JsonShown(contract.locked_dataset(dataset).found_or_null()) +
                       "): the scorer draws only from a dataset it locked");
  }
}

// Which dataset and draw each call had, from the revealed seed alone.
Status CheckPlan(const RunFacts& run, AuditResult* result) {
  if (!run.context.seed || !run.calls || run.calls->empty()) return Status::Ok();
  const std::vector<CallEntry>& calls = *run.calls;
  const ReportRun& report_run = run.report_run;
  if (report_run.refused) {
    result->Breaks("report.json: " + run.report_path,
                   "a run refused before it was planned, but " + run.calls_file + " lists calls");
    return Status::Ok();
  }
  const RuleSet& rules = *run.context.rules;
  const std::string& holdout = report_run.holdout;
  const std::string& warmup = report_run.warmup;
  const std::vector<std::string> present =
      report_run.single_foreign ? std::vector<std::string>{holdout} : rules.datasets.foreign;
  Result<RunPlan> plan = MakeRunPlan(run.seed, rules, present);
  if (!plan.ok()) return plan.status();
  bool agrees = true;
  if (plan->holdout != holdout || plan->warmup != warmup) {
    result->Breaks("report.json: " + run.report_path, "hold-out " + holdout + " and warm-up " +
                                                          warmup +
                                                          ", but the revealed seed makes them " +
                                                          plan->holdout + " and " + plan->warmup);
    agrees = false;
  }
  if (calls.size() > plan->calls.size()) {
    result->Breaks(run.calls_file, std::to_string(calls.size()) +
                                       " calls; the revealed seed plans " +
                                       std::to_string(plan->calls.size()));
    agrees = false;
  }
  for (size_t i = 0; i < calls.size() && i < plan->calls.size(); ++i) {
    const CallEntry& c = calls[i];
    const PlannedCall& p = plan->calls[i];
    if (c.dataset != p.dataset || c.draw_index != p.draw_index ||
        c.warmup_dataset != p.warmup_dataset || c.warmup_draw_index != p.warmup_draw_index) {
      result->Breaks(run.calls_file + ": calls[" + std::to_string(i) + "]",
                     "draw " + c.dataset + "/" + std::to_string(c.draw_index) + " after warm-up " +
                         c.warmup_dataset + "/" + std::to_string(c.warmup_draw_index) +
                         ", but the revealed seed plans draw " + p.dataset + "/" +
                         std::to_string(p.draw_index) + " after warm-up " + p.warmup_dataset + "/" +
                         std::to_string(p.warmup_draw_index));
      agrees = false;
    }
  }
  if (agrees) ++run.context.plans;
  return Status::Ok();
}

Status CheckLogsAndLabels(const RunFacts& run, AuditResult* result) {
  if (!run.calls) return Status::Ok();
  std::optional<DrawSource> draws;
  for (size_t i = 0; i < run.calls->size(); ++i) {
    CheckCallLog(run, i, result);
    std::optional<std::string> labels = ReadCallLabels(run, i, result);
    if (!labels || !run.context.seed || !run.context.recount) continue;
    RATCHET_RETURN_IF_ERROR(RecountCorrect(run, i, *labels, &draws, result));
  }
  return Status::Ok();
}

}  // namespace ratchet
