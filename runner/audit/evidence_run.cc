#include "audit/evidence_run.h"

#include <algorithm>
#include <map>
#include <set>
#include <tuple>

#include "audit/energy_column.h"
#include "audit/numbers.h"
#include "contract/contract_view.h"
#include "core/file.h"
#include "core/sha256.h"
#include "evidence/fields.h"
#include "evidence/layout.h"
#include "evidence/run_files.h"
#include "rules/judge.h"
#include "rules/rule_ids.h"
#include "sandbox/policy.h"
#include "scorer/draw_source.h"
#include "scorer/plan.h"

namespace ratchet {
namespace {

constexpr size_t kMaxJsonBytes = 256u << 20;
constexpr uint8_t kOutOfRangeLabel = 255;

std::string Quoted(const std::string& text) { return "'" + text + "'"; }
std::string FirstLine(const std::string& text) { return text.substr(0, text.find('\n')); }

// A JSON file of the run, parsed; nullopt with a finding when it is missing or unreadable.
std::optional<Json> ReadRunJson(const EvidenceContext& context, const std::string& relative,
                                const std::string& needed_for, AuditResult* result) {
  auto item = context.items.find(relative);
  if (item == context.items.end() || item->second.kind != FolderItem::Kind::kFile) {
    result->Breaks(relative, (item == context.items.end() ? "missing" : "not a regular file") +
                                 std::string(", so ") + needed_for);
    return std::nullopt;
  }
  Result<std::string> text = ReadFile(context.dir + "/" + relative, kMaxJsonBytes + 1);
  if (!text.ok()) {
    result->Breaks(relative, text.status().message());
    return std::nullopt;
  }
  if (text->size() > kMaxJsonBytes) {
    result->Breaks(relative, "larger than " + std::to_string(kMaxJsonBytes) + " bytes");
    return std::nullopt;
  }
  Result<Json> json = ParseJson(*text, relative);
  if (!json.ok()) {
    result->Breaks(relative, json.status().message());
    return std::nullopt;
  }
  return std::move(json).value();
}

std::string ProblemText(const ProblemEntry& problem) {
  return problem.rule + ": " + Quoted(FirstLine(problem.message));
}

bool SameProblem(const ProblemEntry& a, const ProblemEntry& b) {
  return a.rule == b.rule && a.message == b.message;
}

// judge.json's problems against the re-judged ones; a finding for each that differs.
bool CompareProblems(const std::vector<ProblemEntry>& recorded, const std::vector<Problem>& judged,
                     const std::string& file, AuditResult* result) {
  std::vector<ProblemEntry> derived;
  for (const Problem& p : judged) derived.push_back({p.rule, p.message});
  if (std::equal(recorded.begin(), recorded.end(), derived.begin(), derived.end(), SameProblem)) {
    return true;
  }
  auto listed = [](const std::vector<ProblemEntry>& in, const ProblemEntry& p) {
    return std::any_of(in.begin(), in.end(),
                       [&](const ProblemEntry& q) { return SameProblem(p, q); });
  };
  bool named = false;
  for (size_t i = 0; i < recorded.size(); ++i) {
    if (!listed(derived, recorded[i])) {
      result->Breaks(file + ": problems[" + std::to_string(i) + "]",
                     ProblemText(recorded[i]) + " does not follow from " + kCallsFile);
      named = true;
    }
  }
  for (const ProblemEntry& p : derived) {
    if (!listed(recorded, p)) {
      result->Breaks(file + ": problems", "re-judging " + std::string(kCallsFile) +
                                              " breaks rule " + ProblemText(p) + ", which " +
                                              kJudgeFile + " does not list");
      named = true;
    }
  }
  if (!named) result->Breaks(file + ": problems", "the problems of calls.json, in another order");
  return false;
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

// Every call ran on the lane contract.json names: its worker's hello (what the worker found
// itself running on) gives the lane's device kind and, on a GPU, its name and the board the
// contract observed. A contract relabelled after the run (a CPU run called an H200's) disagrees
// with every hello. The call that stopped a run may have failed before its hello: it is left out.
void CheckCallsRanOnTheLane(const EvidenceContext& context, const std::vector<CallEntry>& calls,
                            const std::string& calls_file, bool stopped, AuditResult* result) {
  const ContractView contract(context.contract);
  const Json kind = contract.device_kind().found_or_null();
  const bool gpu = kind == Json("cuda");
  // (hello field, the contract's field, its value)
  const std::vector<std::tuple<const char*, std::string, Json>> expected = {
      {"device", "lane.device.kind", kind},
      {"device_name", "lane.device.name", gpu ? contract.device_name().found_or_null() : Json()},
      {"uuid", "observed.device_uuid", gpu ? contract.device_uuid().found_or_null() : Json()}};
  for (const auto& [field, contract_field, value] : expected) {
    if (field != std::string("device") && !gpu) continue;
    size_t differing = 0, first = 0;
    Json found;
    for (size_t i = 0; i < calls.size(); ++i) {
      if (stopped && i + 1 == calls.size()) continue;
      const Json& hello = calls[i].worker;
      const Json said = hello.is_object() ? hello.value(field, Json()) : Json();
      if (said != value) {
        if (differing++ == 0) {
          first = i;
          found = said;
        }
      }
    }
    if (differing > 0) {
      result->Breaks(
          calls_file + ": " + JoinPath(JoinPath("calls", first), "worker") + "." + field,
          JsonShown(found) +
              (differing > 1 ? " (and in " + std::to_string(differing - 1) + " more calls)"
                             : std::string()) +
              ", but contract.json's " + contract_field + " is " + JsonShown(value) +
              ": the calls did not run on the lane the contract names");
    }
  }
  // Under the full sandbox every worker said so itself: a uid of the scorer's sandbox slot
  // (observed.sandbox_slot; slot 0 in evidence from before slots), no_new_privs, and seccomp in
  // filter mode (2).
  if (contract.sandbox().found_or_null() != Json("full")) return;
  const Json observed = context.contract.value("observed", Json());
  const Json slot_json = observed.is_object() ? observed.value("sandbox_slot", Json(0)) : Json(0);
  const int slot = slot_json.is_number_integer() && slot_json.get<int64_t>() >= 0 &&
                           slot_json.get<int64_t>() < kSandboxSlotCount
                       ? static_cast<int>(slot_json.get<int64_t>())
                       : -1;
  const std::vector<uid_t> slot_uids = slot >= 0 ? SlotWorkerUids(slot) : std::vector<uid_t>{};
  size_t differing = 0, first = 0;
  Json found;
  for (size_t i = 0; i < calls.size(); ++i) {
    if (stopped && i + 1 == calls.size()) continue;
    const Json& hello = calls[i].worker;
    const Json said = hello.is_object() ? hello.value("sandbox", Json()) : Json();
    const Json uid = said.is_object() ? said.value("uid", Json()) : Json();
    const bool sandbox_uid =
        uid.is_number_integer() &&
        std::find(slot_uids.begin(), slot_uids.end(), uid.get<int64_t>()) != slot_uids.end();
    const bool confined = said.is_object() && said.value("no_new_privs", Json()) == Json(1) &&
                          said.value("seccomp", Json()) == Json(2);
    if (!sandbox_uid || !confined) {
      if (differing++ == 0) {
        first = i;
        found = said;
      }
    }
  }
  if (differing > 0) {
    result->Breaks(calls_file + ": " + JoinPath(JoinPath("calls", first), "worker") + ".sandbox",
                   JsonShown(found) +
                       (differing > 1 ? " (and in " + std::to_string(differing - 1) + " more calls)"
                                      : std::string()) +
                       ", but contract.json observed the full sandbox in slot " +
                       JsonShown(slot_json) +
                       ", where a worker runs as one of the slot's uids with no_new_privs 1 and "
                       "seccomp 2");
  }
}

// Every call's draw (and its warm-up's) comes from a dataset contract.json locks: the scorer
// draws only from datasets it found and hashed. A lock set to null after the run would otherwise
// leave the labels unchecked.
void CheckCallsDrewFromLockedDatasets(const ContractView& contract,
                                      const std::vector<CallEntry>& calls,
                                      const std::string& calls_file, AuditResult* result) {
  std::map<std::string, std::pair<size_t, size_t>> unlocked;  // dataset: first call, count
  for (size_t i = 0; i < calls.size(); ++i) {
    for (const std::string& dataset : {calls[i].dataset, calls[i].warmup_dataset}) {
      if (dataset.empty() || contract.locked_dataset(dataset).found_or_null().is_object()) continue;
      auto [it, added] = unlocked.emplace(dataset, std::make_pair(i, size_t{0}));
      ++it->second.second;
    }
  }
  for (const auto& [dataset, where] : unlocked) {
    result->Breaks(calls_file + ": " + JoinPath("calls", where.first),
                   std::to_string(where.second) + (where.second == 1 ? " draw" : " draws") + " from " +
                       dataset + ", which contract.json does not lock (locked.datasets." + dataset +
                       " is " + JsonShown(contract.locked_dataset(dataset).found_or_null()) +
                       "): the scorer draws only from a dataset it locked");
  }
}

}  // namespace

Result<RunOutcomeFacts> AuditRun(EvidenceContext& context, const RecordFacts& record, int run,
                                 const ReportRun& report_run, const std::string& report_path,
                                 AuditResult* result) {
  const RuleSet& rules = *context.rules;
  const std::string folder = RunFolder(record.id, run);
  const std::string calls_file = RunFile(folder, kCallsFile);
  const std::string judge_file = RunFile(folder, kJudgeFile);
  RunOutcomeFacts facts;

  // The submission: one file, the one the report names, with the report's sha256.
  const std::string submission_folder = RunFile(folder, kSubmissionFolder) + "/";
  std::vector<std::string> submitted;
  for (const auto& [path, item] : context.items) {
    if (path.rfind(submission_folder, 0) == 0) submitted.push_back(path);
  }
  const std::string expected_submission = SubmissionPath(folder, record.submission);
  if (submitted != std::vector<std::string>{expected_submission}) {
    std::string listed;
    for (const std::string& path : submitted)
      listed += (listed.empty() ? "" : ", ") + path.substr(submission_folder.size());
    result->Breaks(submission_folder,
                   "holds [" + listed + "]; report.json names the one file " + record.submission);
  }
  auto submission = context.items.find(expected_submission);
  if (submission != context.items.end() && submission->second.kind == FolderItem::Kind::kFile) {
    if (submission->second.sha256 != record.sha256) {
      result->Breaks(expected_submission, "sha256 " + submission->second.sha256 +
                                              ", but report.json's " + "records." + record.id +
                                              ".sha256 is " + record.sha256);
    } else {
      ++context.submissions;
    }
  }

  // judge.json against the report's entry for the run.
  std::optional<Json> judge_json =
      ReadRunJson(context, judge_file, "the run's verdict cannot be checked", result);
  FieldReader judge_reader(judge_file, result);
  std::optional<JudgeEntry> judge;
  if (judge_json) judge = ReadJudge(*judge_json, judge_reader);
  if (judge) {
    for (const ProblemEntry& p : judge->problems) facts.rules_broken.push_back(p.rule);
    facts.known = true;
    facts.qualified = judge->qualified;
    facts.ranked_ms = judge->ranked_ms;
    // The report's entry for the run repeats the verdict (a refusal's has no time or summary).
    const Json verdict = JudgeJson(*judge);
    const Json reported = ReportRunJson(report_run);
    for (const char* key : {"problems", "qualified", "ranked_ms", "summary"}) {
      if (!reported.contains(key)) continue;
      if (reported[key] != verdict[key]) {
        result->Breaks(
            "report.json: " + JoinPath(report_path, key),
            JsonShown(reported[key]) + ", but " + judge_file + " says " + JsonShown(verdict[key]));
      }
    }
    if (judge->qualified != judge->problems.empty()) {
      result->Breaks(judge_file + ": qualified",
                     std::string(judge->qualified ? "true" : "false") + " with " +
                         std::to_string(judge->problems.size()) + " problems");
    }
    if (judge->ranked_ms.has_value() != judge->qualified) {
      result->Breaks(judge_file + ": ranked_ms",
                     "a ranked time belongs to a qualified run, and only to one");
    }
  }

  // calls.json, read strictly.
  std::optional<Json> calls_json =
      ReadRunJson(context, calls_file, "the run cannot be re-judged", result);
  FieldReader calls_reader(calls_file, result);
  std::optional<std::vector<CallEntry>> calls;
  if (calls_json) calls = ReadCalls(*calls_json, calls_reader);

  const bool harness_failure = judge && judge->harness_failure;
  const bool stopped = judge && judge->failed_call;
  if (calls) {
    CheckCallsRanOnTheLane(context, *calls, calls_file, stopped, result);
    CheckCallsDrewFromLockedDatasets(ContractView(context.contract), *calls, calls_file, result);
  }
  if (harness_failure) {
    result->Breaks(judge_file + ": harness_failure",
                   "the harness could not run the method: " +
                       Quoted(FirstLine(*judge->harness_failure)) + "; the run has no verdict");
  } else if (stopped && facts.known && calls) {
    // A run stopped by the method's failure: its last call failed, in a worker; only its rule
    // and message are in the evidence.
    const int64_t failed_call = *judge->failed_call;
    if (failed_call != static_cast<int64_t>(calls->size())) {
      result->Breaks(judge_file + ": failed_call", std::to_string(failed_call) +
                                                       ", but calls.json holds " +
                                                       std::to_string(calls->size()) + " calls");
    }
    // A run that stopped on a rule of the run loop was not judged.
    const bool one_known_rule =
        judge->problems.size() == 1 && IsRunLoopRule(judge->problems[0].rule);
    if (!one_known_rule || facts.qualified) {
      result->Breaks(judge_file + ": problems",
                     "a run that stopped on a failure records exactly one problem of the run "
                     "loop (" +
                         RunLoopRuleIdsText() + "); found " +
                         JsonShown(ProblemsJson(judge->problems)));
    } else if (calls->empty()) {
      result->Note(judge_file + ": problems[0]",
                   "the submission was refused before any worker ran, " +
                       ProblemText(judge->problems[0]) +
                       "; the audit does not run the source checker again");
    } else {
      result->Note(judge_file + ": problems[0]",
                   "the run stopped at call " + std::to_string(calls->size()) + ", " +
                       ProblemText(judge->problems[0]) +
                       "; the failure happened in a worker and is "
                       "not re-derivable (its output is " +
                       LogPath(folder, static_cast<int>(calls->size())) + ")");
    }
  } else if (facts.known && calls) {
    // A judged run: the verdict follows from the calls alone.
    std::vector<Call> plain;
    int64_t mnist = 0;
    for (const CallEntry& c : *calls) {
      plain.push_back(Call{c.dataset, c.ms, c.parent_ms, c.correct, c.total, c.overhead_ms});
      mnist += c.dataset == rules.datasets.mnist;
    }
    const int64_t planned = rules.calls.mnist_calls + rules.calls.holdout_calls;
    if (static_cast<int64_t>(plain.size()) != planned || mnist != rules.calls.mnist_calls) {
      result->Breaks(calls_file, std::to_string(plain.size()) + " calls (" + std::to_string(mnist) +
                                     " " + rules.datasets.mnist + "); a judged run of " + rules.id +
                                     " makes " + std::to_string(planned) + " (" +
                                     std::to_string(rules.calls.mnist_calls) + " " +
                                     rules.datasets.mnist + ")");
    }
    for (size_t i = 0; i < plain.size(); ++i) {
      const Call& c = plain[i];
      const std::pair<const char*, double> times[] = {
          {"ms", c.ms}, {"parent_ms", c.parent_ms}, {"overhead_ms", c.overhead_ms}};
      for (const auto& [field, value] : times) {
        if (value < 0) {  // as the scorer reads a worker's reply: -0.0 is zero
          result->Breaks(calls_file + ": calls[" + std::to_string(i) + "]." + field,
                         ExactNumber(value) + ": a time is never negative");
        }
      }
    }
    Result<Judgement> judgement = Judge(plain, record.band_bp, rules);
    if (!judgement.ok()) {
      result->Breaks(calls_file, "cannot be judged: " + judgement.status().message());
    } else {
      bool agrees = CompareProblems(judge->problems, judgement->problems, judge_file, result);
      const bool passes = judgement->problems.empty();
      if (judge->qualified != passes) {
        result->Breaks(judge_file + ": qualified",
                       std::string(judge->qualified ? "true" : "false") +
                           ", but re-judging calls.json " +
                           (passes ? "qualifies the run" : "disqualifies it"));
        agrees = false;
      }
      const std::optional<double> expected_ranked =
          passes ? std::optional<double>(judgement->ranked_ms) : std::nullopt;
      if (judge->ranked_ms != expected_ranked) {
        result->Breaks(judge_file + ": ranked_ms",
                       (judge->ranked_ms ? ExactNumber(*judge->ranked_ms) : std::string("null")) +
                           ", but re-judging calls.json gives " +
                           (expected_ranked ? ExactNumber(*expected_ranked) : std::string("null")));
        agrees = false;
      }
      if (judge->summary != std::optional<std::string>(judgement->summary)) {
        result->Breaks(judge_file + ": summary", Quoted(judge->summary.value_or("null")) +
                                                     ", but re-judging calls.json gives " +
                                                     Quoted(judgement->summary));
        agrees = false;
      }
      if (judge->floored != judgement->floored) {
        result->Breaks(judge_file + ": floored", std::string(judge->floored ? "true" : "false") +
                                                     ", but re-judging calls.json says " +
                                                     (judgement->floored ? "true" : "false"));
        agrees = false;
      }
      if (agrees) {
        ++context.runs_judged;
        context.calls_judged += static_cast<int>(plain.size());
      }
    }
  }

  // The plan: which dataset and draw each call had, from the revealed seed alone.
  const RunSeed run_seed =
      context.seed ? SeedOfRecordRun(*context.seed, record.id, run) : RunSeed{};
  if (context.seed && calls && !calls->empty()) {
    if (report_run.refused) {
      result->Breaks("report.json: " + report_path,
                     "a run refused before it was planned, but " + calls_file + " lists calls");
    } else {
      const std::string& holdout = report_run.holdout;
      const std::string& warmup = report_run.warmup;
      const std::vector<std::string> present =
          report_run.single_foreign ? std::vector<std::string>{holdout} : rules.datasets.foreign;
      Result<RunPlan> plan = MakeRunPlan(run_seed, rules, present);
      if (!plan.ok()) return plan.status();
      bool agrees = true;
      if (plan->holdout != holdout || plan->warmup != warmup) {
        result->Breaks("report.json: " + report_path, "hold-out " + holdout + " and warm-up " +
                                                          warmup +
                                                          ", but the revealed seed makes them " +
                                                          plan->holdout + " and " + plan->warmup);
        agrees = false;
      }
      if (calls->size() > plan->calls.size()) {
        result->Breaks(calls_file, std::to_string(calls->size()) +
                                       " calls; the revealed seed plans " +
                                       std::to_string(plan->calls.size()));
        agrees = false;
      }
      for (size_t i = 0; i < calls->size() && i < plan->calls.size(); ++i) {
        const CallEntry& c = (*calls)[i];
        const PlannedCall& p = plan->calls[i];
        if (c.dataset != p.dataset || c.draw_index != p.draw_index ||
            c.warmup_dataset != p.warmup_dataset || c.warmup_draw_index != p.warmup_draw_index) {
          result->Breaks(calls_file + ": calls[" + std::to_string(i) + "]",
                         "draw " + c.dataset + "/" + std::to_string(c.draw_index) +
                             " after warm-up " + c.warmup_dataset + "/" +
                             std::to_string(c.warmup_draw_index) +
                             ", but the revealed seed plans draw " + p.dataset + "/" +
                             std::to_string(p.draw_index) + " after warm-up " + p.warmup_dataset +
                             "/" + std::to_string(p.warmup_draw_index));
          agrees = false;
        }
      }
      if (agrees) ++context.plans;
    }
  }

  // Labels, logs, and nothing else in the run's folder.
  std::set<std::string> expected = {calls_file, judge_file, RunFile(folder, kEnergyFile),
                                    expected_submission};
  if (calls) {
    const int64_t log_cap = rules.limits.worker_log_bytes;
    std::optional<DrawSource> draws;
    for (size_t i = 0; i < calls->size(); ++i) {
      const CallEntry& c = (*calls)[i];
      const std::string labels_file = LabelsPath(folder, static_cast<int>(i + 1));
      const std::string log_file = LogPath(folder, static_cast<int>(i + 1));
      const std::string at = calls_file + ": calls[" + std::to_string(i) + "]";
      expected.insert(labels_file);
      expected.insert(log_file);
      auto log = context.items.find(log_file);
      if (log == context.items.end()) {
        result->Breaks(log_file, "missing: every call keeps the worker's output");
      } else if (log->second.kind == FolderItem::Kind::kFile &&
                 static_cast<int64_t>(log->second.bytes) != std::min(c.log_bytes, log_cap)) {
        result->Breaks(log_file,
                       std::to_string(log->second.bytes) + " bytes, but the worker printed " +
                           std::to_string(c.log_bytes) + " (calls.json) and a log keeps the last " +
                           std::to_string(log_cap));
      }
      const bool failed_here = stopped && i + 1 == calls->size();
      auto labels_item = context.items.find(labels_file);
      if (labels_item == context.items.end()) {
        if (!failed_here)
          result->Breaks(labels_file, "missing: a completed call keeps its predicted labels");
        continue;
      }
      if (labels_item->second.kind != FolderItem::Kind::kFile || failed_here) continue;
      Result<std::string> labels =
          ReadFile(context.dir + "/" + labels_file, static_cast<size_t>(c.total) + 1);
      if (!labels.ok()) {
        result->Breaks(labels_file, labels.status().message());
        continue;
      }
      if (static_cast<int64_t>(labels->size()) != c.total) {
        result->Breaks(labels_file, std::to_string(labels_item->second.bytes) +
                                        " bytes, but the call had " + std::to_string(c.total) +
                                        " test images");
        continue;
      }
      const auto bad = std::find_if(labels->begin(), labels->end(), [](char b) {
        const uint8_t label = static_cast<uint8_t>(b);
        return label > 9 && label != kOutOfRangeLabel;
      });
      if (bad != labels->end()) {
        result->Breaks(labels_file, "byte " + std::to_string(bad - labels->begin()) + " is " +
                                        std::to_string(static_cast<uint8_t>(*bad)) +
                                        "; a label is 0-9, or 255 for one outside 0-9");
        continue;
      }
      // Re-count correct against the draw, regenerated from the revealed seed.
      if (!context.seed || !context.recount) continue;
      if (!context.datasets) {
        Result<DataSearch> search = MakeDataSearch(context.data_dir);
        if (!search.ok()) return search.status();
        Result<std::vector<LocatedDataset>> located = LocateDatasets(*search);
        if (!located.ok()) return located.status();
        context.datasets = std::move(located).value();
      }
      const LocatedDataset* located = nullptr;
      for (const LocatedDataset& d : *context.datasets) {
        if (d.name == c.dataset) located = &d;
      }
      std::string why;
      if (located == nullptr || !located->present) {
        std::string searched;
        if (located != nullptr) {
          for (const std::string& folder_searched : located->searched) {
            searched += (searched.empty() ? "" : ", ") + folder_searched;
          }
        }
        why = c.dataset + " is not here" +
              (searched.empty() ? "" : " (looked in " + searched + ")") +
              "; name its folder with --data DIR";
      } else {
        why = LockedDifference(ContractView(context.contract), *located);
      }
      if (!why.empty()) {
        auto same = std::find_if(context.skipped_recounts.begin(), context.skipped_recounts.end(),
                                 [&](const EvidenceContext::Skipped& s) { return s.why == why; });
        if (same == context.skipped_recounts.end()) {
          context.skipped_recounts.push_back({why, labels_file, 1});
        } else {
          ++same->calls;
        }
        continue;
      }
      if (!draws) draws.emplace(run_seed, *context.datasets);
      Result<Draw> draw = draws->Make(c.dataset, c.draw_index);
      if (!draw.ok()) return draw.status();
      if (static_cast<int64_t>(draw->test_y.size()) != c.total) {
        result->Breaks(at + ".total", std::to_string(c.total) + ", but draw " + c.dataset + "/" +
                                          std::to_string(c.draw_index) + " has " +
                                          std::to_string(draw->test_y.size()) + " test images");
        continue;
      }
      int64_t correct = 0;
      for (size_t j = 0; j < labels->size(); ++j) {
        correct += static_cast<int64_t>(static_cast<uint8_t>((*labels)[j])) == draw->test_y[j];
      }
      if (correct != c.correct) {
        result->Breaks(at + ".correct",
                       std::to_string(c.correct) + ", but the labels of " + labels_file +
                           " match " + std::to_string(correct) + " of draw " + c.dataset + "/" +
                           std::to_string(c.draw_index) + " regenerated from the revealed seed");
      } else {
        ++context.labels_counted;
      }
    }
  }
  for (const auto& [path, item] : context.items) {
    if (path.rfind(folder + "/", 0) != 0 || expected.count(path) > 0) continue;
    if (item.kind == FolderItem::Kind::kFolder) {
      const std::string name = path.substr(folder.size() + 1);
      if (name == "submission" || name == "labels" || name == "logs") continue;
    }
    if (path.rfind(submission_folder, 0) == 0) continue;  // said above
    result->Breaks(
        path,
        "not part of a run's evidence (calls.json, judge.json, energy.json, submission/, "
        "labels/ and logs/ of its calls)");
  }

  // The energy column, when the run has one; the report's entry for it says the same.
  const std::string energy_file = RunFile(folder, kEnergyFile);
  const std::string report_energy = "report.json: " + JoinPath(report_path, "energy");
  if (context.items.count(energy_file) == 0) {
    const Json& claimed = report_run.energy;
    if (claimed.is_object() && claimed.value("mj_per_call", Json()).is_number()) {
      result->Breaks(report_energy, "claims an energy column, but the run has no energy.json");
    }
    if (facts.qualified &&
        ContractView(context.contract).device_kind().found_or_null() == Json("cuda")) {
      result->Note(folder + "/",
                   "a run that qualified on a GPU lane has no energy.json: its "
                   "energy column is not in the evidence");
    }
  } else {
    std::optional<Json> energy =
        ReadRunJson(context, energy_file, "the energy column cannot be checked", result);
    if (energy && !report_run.energy.is_null()) {
      Json summary = *energy;
      if (summary.is_object()) summary.erase("windows");
      if (report_run.energy != summary) {
        result->Breaks(report_energy, "is not " + energy_file + " without its windows");
      }
    }
    if (energy && !facts.qualified) {
      result->Breaks(energy_file, "an energy column for a run that did not qualify");
    } else if (energy && calls) {
      std::vector<double> mnist_ms;
      for (const CallEntry& c : *calls) {
        if (c.dataset == rules.datasets.mnist) mnist_ms.push_back(c.ms);
      }
      // The band is the one of the board the contract names, not of a name energy.json gives
      // (a column that was not measured has no windows and names no board).
      const bool measured_column = energy->is_object() && energy->contains("windows");
      const ContractView contract(context.contract);
      const Json contract_name = contract.device_name().found_or_null();
      const Json measured = energy->is_object() ? energy->value("device", Json()) : Json();
      const Json measured_name = measured.is_object() ? measured.value("name", Json()) : Json();
      if (measured_column && contract.device().ok() && measured_name != contract_name) {
        result->Breaks(energy_file + ": device.name",
                       JsonShown(measured_name) + ", but contract.json's lane.device.name is " +
                           JsonShown(contract_name));
      }
      const Json board = contract.device_uuid().found_or_null();
      const Json measured_board = measured.is_object() ? measured.value("uuid", Json()) : Json();
      if (measured_column && board.is_string() && !measured_board.is_null() &&
          measured_board != board) {
        result->Breaks(energy_file + ": device.uuid",
                       JsonShown(measured_board) +
                           ", but contract.json's observed.device_uuid is " + JsonShown(board));
      }
      FieldReader energy_reader(energy_file, result);
      if (AuditEnergy(*energy, "", energy_reader, Median(mnist_ms), record.band_bp, rules)) {
        result->Checked(energy_file + " recomputed from its windows");
      }
    }
  }
  return facts;
}

}  // namespace ratchet
