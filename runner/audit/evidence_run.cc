#include "audit/evidence_run.h"

#include <algorithm>
#include <set>

#include "audit/energy_column.h"
#include "audit/fields.h"
#include "audit/numbers.h"
#include "core/file.h"
#include "core/sha256.h"
#include "evidence/layout.h"
#include "rules/judge.h"
#include "scorer/draw_source.h"
#include "scorer/plan.h"

namespace ratchet {
namespace {

constexpr size_t kMaxJsonBytes = 256u << 20;
constexpr uint8_t kOutOfRangeLabel = 255;

// The rule ids of the run loop: a run that stopped on one of these was not judged.
const char* const kRunLoopRules[] = {"source",         "import",         "crash",         "timeout",
                                     "output",         "run-time",       "memory",        "processes",
                                     "disk",           "compile-time",   "compile-memory", "compile-output"};

std::string Quoted(const std::string& text) { return "'" + text + "'"; }
std::string FirstLine(const std::string& text) { return text.substr(0, text.find('\n')); }

struct RunCall {
  Call call;
  uint64_t draw_index = 0;
  std::string warmup_dataset;
  uint64_t warmup_draw_index = 0;
  int64_t log_bytes = 0;
};

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

std::optional<std::vector<RunCall>> ReadCalls(const Json& list, FieldReader& reader) {
  if (!list.is_array()) {
    reader.result()->Breaks(reader.Where(""),
                            "expected an array of calls, found " + JsonTypeName(list));
    return std::nullopt;
  }
  std::vector<RunCall> calls;
  bool ok = true;
  for (size_t i = 0; i < list.size(); ++i) {
    const std::string at = "calls" + std::string("[") + std::to_string(i) + "]";
    const Json& item = list[i];
    if (!reader.IsObject(item, at)) {
      ok = false;
      continue;
    }
    std::optional<int64_t> number = reader.Integer(item, at, "call");
    std::optional<std::string> dataset = reader.String(item, at, "dataset");
    std::optional<int64_t> draw = reader.Integer(item, at, "draw_index");
    std::optional<std::string> warmup = reader.String(item, at, "warmup_dataset");
    std::optional<int64_t> warmup_draw = reader.Integer(item, at, "warmup_draw_index");
    std::optional<std::string> inputs = reader.String(item, at, "inputs_sha256");
    std::optional<double> ms = reader.Number(item, at, "ms");
    std::optional<double> parent_ms = reader.Number(item, at, "parent_ms");
    std::optional<double> overhead_ms = reader.Number(item, at, "overhead_ms");
    std::optional<int64_t> correct = reader.Integer(item, at, "correct");
    std::optional<int64_t> total = reader.Integer(item, at, "total");
    std::optional<std::string> exit = reader.String(item, at, "worker_exit");
    std::optional<int64_t> log_bytes = reader.Integer(item, at, "log_bytes");
    if (!number || !dataset || !draw || !warmup || !warmup_draw || !inputs || !ms || !parent_ms ||
        !overhead_ms || !correct || !total || !exit || !log_bytes) {
      ok = false;
      continue;
    }
    if (*number != static_cast<int64_t>(i + 1)) {
      reader.result()->Breaks(reader.Where(JoinPath(at, "call")),
                              std::to_string(*number) + " at position " + std::to_string(i + 1) +
                                  "; calls are numbered from 1 in the order they ran");
      ok = false;
    }
    if (*draw < 0 || *warmup_draw < 0 || *log_bytes < 0) {
      reader.result()->Breaks(reader.Where(at), "a negative draw index or log size");
      ok = false;
      continue;
    }
    RunCall call;
    call.call = Call{*dataset, *ms, *parent_ms, *correct, *total, *overhead_ms};
    call.draw_index = static_cast<uint64_t>(*draw);
    call.warmup_dataset = *warmup;
    call.warmup_draw_index = static_cast<uint64_t>(*warmup_draw);
    call.log_bytes = *log_bytes;
    calls.push_back(std::move(call));
  }
  if (!ok) return std::nullopt;
  return calls;
}

Json ProblemsJson(const std::vector<Problem>& problems) {
  Json out = Json::array();
  for (const Problem& p : problems) out.push_back({{"message", p.message}, {"rule", p.rule}});
  return out;
}

std::string ProblemText(const Json& problem) {
  return problem.value("rule", std::string("?")) + ": " +
         Quoted(FirstLine(problem.value("message", std::string())));
}

// judge.json's problems against the re-judged ones; a finding for each that differs.
bool CompareProblems(const Json& recorded, const std::vector<Problem>& judged,
                     const std::string& file, AuditResult* result) {
  const Json derived = ProblemsJson(judged);
  if (recorded == derived) return true;
  bool named = false;
  for (size_t i = 0; i < recorded.size(); ++i) {
    if (std::find(derived.begin(), derived.end(), recorded[i]) == derived.end()) {
      result->Breaks(file + ": problems[" + std::to_string(i) + "]",
                     ProblemText(recorded[i]) + " does not follow from calls.json");
      named = true;
    }
  }
  for (const Json& p : derived) {
    if (std::find(recorded.begin(), recorded.end(), p) == recorded.end()) {
      result->Breaks(file + ": problems", "re-judging calls.json breaks rule " + ProblemText(p) +
                                              ", which judge.json does not list");
      named = true;
    }
  }
  if (!named) result->Breaks(file + ": problems", "the problems of calls.json, in another order");
  return false;
}

// Whether the contract locks the dataset as it is here; otherwise why not.
std::string LockedDifference(const Json& contract, const LocatedDataset& located) {
  const Json locked = contract.is_object() ? contract.value("locked", Json()) : Json();
  const Json datasets = locked.is_object() ? locked.value("datasets", Json()) : Json();
  const Json entry = datasets.is_object() ? datasets.value(located.name, Json()) : Json();
  if (!entry.is_object()) return "contract.json locks no " + located.name + " dataset";
  if (entry.value("images_sha256", Json()) != Json(located.images_sha256) ||
      entry.value("labels_sha256", Json()) != Json(located.labels_sha256)) {
    return "the " + located.name + " files here (" + located.images_path +
           ") are not the ones contract.json locks";
  }
  return "";
}

}  // namespace

Result<RunOutcomeFacts> AuditRun(EvidenceContext& context, const RecordFacts& record, int run,
                                 const Json& report_run, const std::string& report_path,
                                 AuditResult* result) {
  const RuleSet& rules = *context.rules;
  const std::string folder = RunFolder(record.id, run);
  const std::string calls_file = folder + "/calls.json";
  const std::string judge_file = folder + "/judge.json";
  RunOutcomeFacts facts;

  // The submission: one file, the one the report names, with the report's sha256.
  std::vector<std::string> submitted;
  for (const auto& [path, item] : context.items) {
    if (path.rfind(folder + "/submission/", 0) == 0) submitted.push_back(path);
  }
  const std::string expected_submission = folder + "/submission/" + record.submission;
  if (submitted != std::vector<std::string>{expected_submission}) {
    std::string listed;
    for (const std::string& path : submitted)
      listed += (listed.empty() ? "" : ", ") + path.substr(folder.size() + 12);
    result->Breaks(folder + "/submission/",
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
  FieldReader report_reader("report.json", result);
  std::optional<Json> judge =
      ReadRunJson(context, judge_file, "the run's verdict cannot be checked", result);
  FieldReader judge_reader(judge_file, result);
  const Json* judge_problems = nullptr;
  std::optional<bool> judge_qualified;
  std::optional<std::optional<double>> judge_ranked;
  std::optional<std::optional<std::string>> judge_summary;
  std::optional<bool> judge_floored;
  if (judge) {
    judge_problems = judge_reader.Array(*judge, "", "problems");
    judge_qualified = judge_reader.Bool(*judge, "", "qualified");
    judge_ranked = judge_reader.NullableNumber(*judge, "", "ranked_ms");
    judge_summary = judge_reader.NullableString(*judge, "", "summary");
    judge_floored = judge_reader.Bool(*judge, "", "floored");
    if (judge_problems) {
      for (size_t i = 0; i < judge_problems->size(); ++i) {
        const Json& p = (*judge_problems)[i];
        const std::string at = "problems[" + std::to_string(i) + "]";
        if (judge_reader.IsObject(p, at)) {
          std::optional<std::string> rule = judge_reader.String(p, at, "rule");
          judge_reader.String(p, at, "message");
          if (rule) facts.rules_broken.push_back(*rule);
        }
      }
    }
    if (!judge_reader.failed()) {
      facts.known = true;
      facts.qualified = *judge_qualified;
      facts.ranked_ms = *judge_ranked;
      for (const char* key : {"problems", "qualified", "ranked_ms", "summary"}) {
        if (!report_run.contains(key)) {
          if (std::string(key) == "ranked_ms" || std::string(key) == "summary")
            continue;  // not on a refusal
          result->Breaks("report.json: " + JoinPath(report_path, key), "missing");
        } else if (report_run[key] != (*judge)[key]) {
          result->Breaks("report.json: " + JoinPath(report_path, key),
                         JsonShown(report_run[key]) + ", but " + judge_file + " says " +
                             JsonShown((*judge)[key]));
        }
      }
      if (*judge_qualified != judge_problems->empty()) {
        result->Breaks(judge_file + ": qualified",
                       std::string(*judge_qualified ? "true" : "false") + " with " +
                           std::to_string(judge_problems->size()) + " problems");
      }
      if (judge_ranked->has_value() != *judge_qualified) {
        result->Breaks(judge_file + ": ranked_ms",
                       "a ranked time belongs to a qualified run, and only to one");
      }
    }
  }

  // calls.json, read strictly.
  std::optional<Json> calls_json =
      ReadRunJson(context, calls_file, "the run cannot be re-judged", result);
  FieldReader calls_reader(calls_file, result);
  std::optional<std::vector<RunCall>> calls;
  if (calls_json) calls = ReadCalls(*calls_json, calls_reader);

  const bool harness_failure = judge && judge->contains("harness_failure");
  const bool stopped = judge && judge->contains("failed_call");
  if (harness_failure) {
    result->Breaks(judge_file + ": harness_failure",
                   "the harness could not run the method: " +
                       Quoted(FirstLine(JsonShown((*judge)["harness_failure"]))) +
                       "; the run has no verdict");
  } else if (stopped && facts.known && calls) {
    // A run stopped by the method's failure: its last call failed, in a worker; only its rule
    // and message are in the evidence.
    std::optional<int64_t> failed_call = judge_reader.Integer(*judge, "", "failed_call");
    if (failed_call && *failed_call != static_cast<int64_t>(calls->size())) {
      result->Breaks(judge_file + ": failed_call", std::to_string(*failed_call) +
                                                       ", but calls.json holds " +
                                                       std::to_string(calls->size()) + " calls");
    }
    const bool one_known_rule =
        judge_problems->size() == 1 &&
        std::find(std::begin(kRunLoopRules), std::end(kRunLoopRules),
                  (*judge_problems)[0].value("rule", std::string())) != std::end(kRunLoopRules);
    if (!one_known_rule || facts.qualified) {
      result->Breaks(judge_file + ": problems",
                     "a run that stopped on a failure records exactly one problem "
                     "of the run loop (source, import, crash, timeout, output, "
                     "run-time); found " +
                         JsonShown(*judge_problems));
    } else if (calls->empty()) {
      result->Note(judge_file + ": problems[0]",
                   "the submission was refused before any worker ran, " +
                       ProblemText((*judge_problems)[0]) +
                       "; the audit does not run the source checker again");
    } else {
      result->Note(judge_file + ": problems[0]",
                   "the run stopped at call " + std::to_string(calls->size()) + ", " +
                       ProblemText((*judge_problems)[0]) +
                       "; the failure happened in a worker and is "
                       "not re-derivable (its output is " +
                       folder + "/logs/" + CallNumber(static_cast<int>(calls->size())) + ".log)");
    }
  } else if (facts.known && calls) {
    // A judged run: the verdict follows from the calls alone.
    std::vector<Call> plain;
    int64_t mnist = 0;
    for (const RunCall& c : *calls) {
      plain.push_back(c.call);
      mnist += c.call.dataset == rules.datasets.mnist;
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
      bool agrees = CompareProblems(*judge_problems, judgement->problems, judge_file, result);
      const bool passes = judgement->problems.empty();
      if (*judge_qualified != passes) {
        result->Breaks(judge_file + ": qualified",
                       std::string(*judge_qualified ? "true" : "false") +
                           ", but re-judging calls.json " +
                           (passes ? "qualifies the run" : "disqualifies it"));
        agrees = false;
      }
      const std::optional<double> expected_ranked =
          passes ? std::optional<double>(judgement->ranked_ms) : std::nullopt;
      if (*judge_ranked != expected_ranked) {
        result->Breaks(
            judge_file + ": ranked_ms",
            (judge_ranked->has_value() ? ExactNumber(**judge_ranked) : std::string("null")) +
                ", but re-judging calls.json gives " +
                (expected_ranked ? ExactNumber(*expected_ranked) : std::string("null")));
        agrees = false;
      }
      if (*judge_summary != std::optional<std::string>(judgement->summary)) {
        result->Breaks(judge_file + ": summary", Quoted(judge_summary->value_or("null")) +
                                                     ", but re-judging calls.json gives " +
                                                     Quoted(judgement->summary));
        agrees = false;
      }
      if (*judge_floored != judgement->floored) {
        result->Breaks(judge_file + ": floored", std::string(*judge_floored ? "true" : "false") +
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
    std::optional<std::string> holdout = report_reader.String(report_run, report_path, "holdout");
    std::optional<std::string> warmup = report_reader.String(report_run, report_path, "warmup");
    std::optional<bool> single = report_reader.Bool(report_run, report_path, "single_foreign");
    if (holdout && warmup && single) {
      const std::vector<std::string> present =
          *single ? std::vector<std::string>{*holdout} : rules.datasets.foreign;
      Result<RunPlan> plan = MakeRunPlan(run_seed, rules, present);
      if (!plan.ok()) return plan.status();
      bool agrees = true;
      if (plan->holdout != *holdout || plan->warmup != *warmup) {
        result->Breaks("report.json: " + report_path, "hold-out " + *holdout + " and warm-up " +
                                                          *warmup +
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
        const RunCall& c = (*calls)[i];
        const PlannedCall& p = plan->calls[i];
        if (c.call.dataset != p.dataset || c.draw_index != p.draw_index ||
            c.warmup_dataset != p.warmup_dataset || c.warmup_draw_index != p.warmup_draw_index) {
          result->Breaks(calls_file + ": calls[" + std::to_string(i) + "]",
                         "draw " + c.call.dataset + "/" + std::to_string(c.draw_index) +
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
  std::set<std::string> expected = {calls_file, judge_file, folder + "/energy.json",
                                    expected_submission};
  if (calls) {
    const int64_t log_cap = rules.limits.worker_log_bytes;
    std::optional<DrawSource> draws;
    for (size_t i = 0; i < calls->size(); ++i) {
      const RunCall& c = (*calls)[i];
      const std::string number = CallNumber(static_cast<int>(i + 1));
      const std::string labels_file = folder + "/labels/" + number + ".u8";
      const std::string log_file = folder + "/logs/" + number + ".log";
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
          ReadFile(context.dir + "/" + labels_file, static_cast<size_t>(c.call.total) + 1);
      if (!labels.ok()) {
        result->Breaks(labels_file, labels.status().message());
        continue;
      }
      if (static_cast<int64_t>(labels->size()) != c.call.total) {
        result->Breaks(labels_file, std::to_string(labels_item->second.bytes) +
                                        " bytes, but the call had " + std::to_string(c.call.total) +
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
      if (!context.seed) continue;
      if (!context.datasets) {
        Result<DataSearch> search = MakeDataSearch(context.data_dir);
        if (!search.ok()) return search.status();
        Result<std::vector<LocatedDataset>> located = LocateDatasets(*search);
        if (!located.ok()) return located.status();
        context.datasets = std::move(located).value();
      }
      const LocatedDataset* located = nullptr;
      for (const LocatedDataset& d : *context.datasets) {
        if (d.name == c.call.dataset) located = &d;
      }
      std::string why;
      if (located == nullptr || !located->present) {
        std::string searched;
        if (located != nullptr) {
          for (const std::string& folder_searched : located->searched) {
            searched += (searched.empty() ? "" : ", ") + folder_searched;
          }
        }
        why = c.call.dataset + " is not here" +
              (searched.empty() ? "" : " (looked in " + searched + ")") +
              "; name its folder with --data DIR";
      } else {
        why = LockedDifference(context.contract, *located);
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
      Result<Draw> draw = draws->Make(c.call.dataset, c.draw_index);
      if (!draw.ok()) return draw.status();
      if (static_cast<int64_t>(draw->test_y.size()) != c.call.total) {
        result->Breaks(at + ".total", std::to_string(c.call.total) + ", but draw " +
                                          c.call.dataset + "/" + std::to_string(c.draw_index) +
                                          " has " + std::to_string(draw->test_y.size()) +
                                          " test images");
        continue;
      }
      int64_t correct = 0;
      for (size_t j = 0; j < labels->size(); ++j) {
        correct += static_cast<int64_t>(static_cast<uint8_t>((*labels)[j])) == draw->test_y[j];
      }
      if (correct != c.call.correct) {
        result->Breaks(at + ".correct", std::to_string(c.call.correct) + ", but the labels of " +
                                            labels_file + " match " + std::to_string(correct) +
                                            " of draw " + c.call.dataset + "/" +
                                            std::to_string(c.draw_index) +
                                            " regenerated from the revealed seed");
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
    if (path.rfind(folder + "/submission/", 0) == 0) continue;  // said above
    result->Breaks(
        path,
        "not part of a run's evidence (calls.json, judge.json, energy.json, submission/, "
        "labels/ and logs/ of its calls)");
  }

  // The energy column, when the run has one; the report's entry for it says the same.
  const std::string energy_file = folder + "/energy.json";
  const std::string report_energy = "report.json: " + JoinPath(report_path, "energy");
  if (context.items.count(energy_file) == 0) {
    const Json claimed = report_run.value("energy", Json());
    if (claimed.is_object() && claimed.value("mj_per_call", Json()).is_number()) {
      result->Breaks(report_energy, "claims an energy column, but the run has no energy.json");
    }
    const Json lane =
        context.contract.is_object() ? context.contract.value("lane", Json()) : Json();
    const Json device = lane.is_object() ? lane.value("device", Json()) : Json();
    if (facts.qualified && device.is_object() && device.value("kind", Json()) == Json("cuda")) {
      result->Note(folder + "/",
                   "a run that qualified on a GPU lane has no energy.json: its "
                   "energy column is not in the evidence");
    }
  } else {
    std::optional<Json> energy =
        ReadRunJson(context, energy_file, "the energy column cannot be checked", result);
    if (energy && report_run.contains("energy")) {
      Json summary = *energy;
      if (summary.is_object()) summary.erase("windows");
      if (report_run["energy"] != summary) {
        result->Breaks(report_energy, "is not " + energy_file + " without its windows");
      }
    }
    if (energy && !facts.qualified) {
      result->Breaks(energy_file, "an energy column for a run that did not qualify");
    } else if (energy && calls) {
      std::vector<double> mnist_ms;
      for (const RunCall& c : *calls) {
        if (c.call.dataset == rules.datasets.mnist) mnist_ms.push_back(c.call.ms);
      }
      // The band is the one of the board the contract names, not of a name energy.json gives
      // (a column that was not measured has no windows and names no board).
      const bool measured_column = energy->is_object() && energy->contains("windows");
      const Json lane =
          context.contract.is_object() ? context.contract.value("lane", Json()) : Json();
      const Json device = lane.is_object() ? lane.value("device", Json()) : Json();
      const Json measured = energy->is_object() ? energy->value("device", Json()) : Json();
      const Json measured_name = measured.is_object() ? measured.value("name", Json()) : Json();
      if (measured_column && device.is_object() && measured_name != device.value("name", Json())) {
        result->Breaks(energy_file + ": device.name",
                       JsonShown(measured_name) + ", but contract.json's lane.device.name is " +
                           JsonShown(device.value("name", Json())));
      }
      const Json observed =
          context.contract.is_object() ? context.contract.value("observed", Json()) : Json();
      const Json board = observed.is_object() ? observed.value("device_uuid", Json()) : Json();
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
