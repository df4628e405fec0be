#include <algorithm>

#include "audit/numbers.h"
#include "audit/run_checks.h"
#include "evidence/fields.h"
#include "evidence/layout.h"
#include "rules/judge.h"
#include "rules/rule_ids.h"

namespace ratchet {
namespace {

std::string Quoted(const std::string& text) { return "'" + text + "'"; }
std::string FirstLine(const std::string& text) { return text.substr(0, text.find('\n')); }

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

// A harness failure leaves the run without a verdict.
void CheckHarnessFailure(const RunFacts& run, AuditResult* result) {
  result->Breaks(run.judge_file + ": harness_failure",
                 "the harness could not run the method: " +
                     Quoted(FirstLine(*run.judge->harness_failure)) + "; the run has no verdict");
}

// A run stopped by the method's failure: its last call failed, in a worker; only its rule and
// message are in the evidence, exactly one problem of the run loop.
void CheckStoppedRun(const RunFacts& run, AuditResult* result) {
  const JudgeEntry& judge = *run.judge;
  const std::vector<CallEntry>& calls = *run.calls;
  const int64_t failed_call = *judge.failed_call;
  if (failed_call != static_cast<int64_t>(calls.size())) {
    result->Breaks(run.judge_file + ": failed_call", std::to_string(failed_call) +
                                                         ", but calls.json holds " +
                                                         std::to_string(calls.size()) + " calls");
  }
  // A run that stopped on a rule of the run loop was not judged.
  const bool one_known_rule = judge.problems.size() == 1 && IsRunLoopRule(judge.problems[0].rule);
  if (!one_known_rule || run.outcome.qualified) {
    result->Breaks(run.judge_file + ": problems",
                   "a run that stopped on a failure records exactly one problem of the run "
                   "loop (" +
                       RunLoopRuleIdsText() + "); found " +
                       JsonShown(ProblemsJson(judge.problems)));
  } else if (calls.empty()) {
    result->Note(run.judge_file + ": problems[0]",
                 "the submission was refused before any worker ran, " +
                     ProblemText(judge.problems[0]) +
                     "; the audit does not run the source checker again");
  } else {
    result->Note(run.judge_file + ": problems[0]",
                 "the run stopped at call " + std::to_string(calls.size()) + ", " +
                     ProblemText(judge.problems[0]) +
                     "; the failure happened in a worker and is "
                     "not re-derivable (its output is " +
                     LogPath(run.folder, static_cast<int>(calls.size())) + ")");
  }
}

// A judged run makes the rule set's number of calls, of which its MNIST calls.
void CheckCallCount(const RunFacts& run, const std::vector<Call>& calls, AuditResult* result) {
  const RuleSet& rules = *run.context.rules;
  int64_t mnist = 0;
  for (const Call& c : calls) mnist += c.dataset == rules.datasets.mnist;
  const int64_t planned = rules.calls.mnist_calls + rules.calls.holdout_calls;
  if (static_cast<int64_t>(calls.size()) != planned || mnist != rules.calls.mnist_calls) {
    result->Breaks(run.calls_file,
                   std::to_string(calls.size()) + " calls (" + std::to_string(mnist) + " " +
                       rules.datasets.mnist + "); a judged run of " + rules.id + " makes " +
                       std::to_string(planned) + " (" + std::to_string(rules.calls.mnist_calls) +
                       " " + rules.datasets.mnist + ")");
  }
}

// No clock ratchet reads gives a negative time.
void CheckNoNegativeTimes(const RunFacts& run, const std::vector<Call>& calls,
                          AuditResult* result) {
  for (size_t i = 0; i < calls.size(); ++i) {
    const Call& c = calls[i];
    const std::pair<const char*, double> times[] = {
        {"ms", c.ms}, {"parent_ms", c.parent_ms}, {"overhead_ms", c.overhead_ms}};
    for (const auto& [field, value] : times) {
      if (value < 0) {  // as the scorer reads a worker's reply: -0.0 is zero
        result->Breaks(run.calls_file + ": calls[" + std::to_string(i) + "]." + field,
                       ExactNumber(value) + ": a time is never negative");
      }
    }
  }
}

// Judge on the calls gives exactly judge.json's problems, qualified, ranked_ms (to the bit),
// summary and floored; a run that agrees is counted as re-judged.
void CheckReJudged(RunFacts& run, const std::vector<Call>& calls, AuditResult* result) {
  const JudgeEntry& judge = *run.judge;
  const std::string& judge_file = run.judge_file;
  Result<Judgement> judgement = Judge(calls, run.record.band_bp, *run.context.rules);
  if (!judgement.ok()) {
    result->Breaks(run.calls_file, "cannot be judged: " + judgement.status().message());
    return;
  }
  bool agrees = CompareProblems(judge.problems, judgement->problems, judge_file, result);
  const bool passes = judgement->problems.empty();
  if (judge.qualified != passes) {
    result->Breaks(judge_file + ": qualified",
                   std::string(judge.qualified ? "true" : "false") +
                       ", but re-judging calls.json " +
                       (passes ? "qualifies the run" : "disqualifies it"));
    agrees = false;
  }
  const std::optional<double> expected_ranked =
      passes ? std::optional<double>(judgement->ranked_ms) : std::nullopt;
  if (judge.ranked_ms != expected_ranked) {
    result->Breaks(judge_file + ": ranked_ms",
                   (judge.ranked_ms ? ExactNumber(*judge.ranked_ms) : std::string("null")) +
                       ", but re-judging calls.json gives " +
                       (expected_ranked ? ExactNumber(*expected_ranked) : std::string("null")));
    agrees = false;
  }
  if (judge.summary != std::optional<std::string>(judgement->summary)) {
    result->Breaks(judge_file + ": summary", Quoted(judge.summary.value_or("null")) +
                                                 ", but re-judging calls.json gives " +
                                                 Quoted(judgement->summary));
    agrees = false;
  }
  if (judge.floored != judgement->floored) {
    result->Breaks(judge_file + ": floored", std::string(judge.floored ? "true" : "false") +
                                                 ", but re-judging calls.json says " +
                                                 (judgement->floored ? "true" : "false"));
    agrees = false;
  }
  if (agrees) {
    ++run.context.runs_judged;
    run.context.calls_judged += static_cast<int>(calls.size());
  }
}

// A judged run: the verdict follows from the calls alone.
void CheckJudgedRun(RunFacts& run, AuditResult* result) {
  std::vector<Call> calls;
  for (const CallEntry& c : *run.calls) {
    calls.push_back(Call{c.dataset, c.ms, c.parent_ms, c.correct, c.total, c.overhead_ms});
  }
  CheckCallCount(run, calls, result);
  CheckNoNegativeTimes(run, calls, result);
  CheckReJudged(run, calls, result);
}

}  // namespace

void CheckVerdict(RunFacts& run, AuditResult* result) {
  if (run.judge && run.judge->harness_failure) {
    CheckHarnessFailure(run, result);
  } else if (run.stopped && run.judge && run.calls) {
    CheckStoppedRun(run, result);
  } else if (run.judge && run.calls) {
    CheckJudgedRun(run, result);
  }
}

}  // namespace ratchet
