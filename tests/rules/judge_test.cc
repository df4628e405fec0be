#include "rules/judge.h"

#include <gtest/gtest.h>

#include <cmath>
#include <limits>

namespace ratchet {
namespace {

const RuleSet& Rules() {
  static const RuleSet* const kRules = [] {
    Result<RuleSet> rules = LoadRuleSet(std::nullopt);
    EXPECT_TRUE(rules.ok()) << rules.status().message();
    return new RuleSet(rules.ok() ? *rules : RuleSet());
  }();
  return *kRules;
}

constexpr int64_t kBand = 540;  // difficulty 1

Call MakeCall(const std::string& dataset, double ms, double parent_ms, int64_t correct,
              double overhead_ms = 1.0) {
  return Call{dataset, ms, parent_ms, correct, 10000, overhead_ms};
}

// A clean run: 11 MNIST calls at 95% and 4 Fashion-MNIST calls at 50%, every call 10 ms by both
// clocks once the 1 ms protocol cost is taken off.
std::vector<Call> CleanRun() {
  std::vector<Call> calls;
  for (int i = 0; i < 11; ++i) calls.push_back(MakeCall("mnist", 10.0, 11.0, 9500));
  for (int i = 0; i < 4; ++i) calls.push_back(MakeCall("fashion", 10.0, 11.0, 5000));
  return calls;
}

Judgement JudgeOk(const std::vector<Call>& calls, int64_t band = kBand) {
  Result<Judgement> judgement = Judge(calls, band, Rules());
  EXPECT_TRUE(judgement.ok()) << judgement.status().message();
  return judgement.ok() ? *judgement : Judgement();
}

std::vector<std::string> RulesOf(const Judgement& judgement) {
  std::vector<std::string> rules;
  for (const Problem& problem : judgement.problems) rules.push_back(problem.rule);
  return rules;
}

using RuleIds = std::vector<std::string>;

TEST(RequiredCorrectTest, RoundsUpInIntegers) {
  EXPECT_EQ(RequiredCorrect(10000, 540), 9460);
  EXPECT_EQ(RequiredCorrect(110000, 540), 104060);
  EXPECT_EQ(RequiredCorrect(10000, 690), 9310);
  EXPECT_EQ(RequiredCorrect(40000, 8500), 6000);
  EXPECT_EQ(RequiredCorrect(1, 1), 1);     // 0.9999 rounds up
  EXPECT_EQ(RequiredCorrect(3, 3333), 3);  // 2.0001 rounds up
  EXPECT_EQ(RequiredCorrect(3, 3334), 2);  // 1.9998 rounds up to 2
  EXPECT_EQ(RequiredCorrect(10000, 0), 10000);
  EXPECT_EQ(RequiredCorrect(10000, 10000), 0);
  EXPECT_EQ(RequiredCorrect(0, 540), 0);
  EXPECT_EQ(RequiredCorrect(3, 10001), 0);                            // -0.0003 rounds up to 0
  EXPECT_EQ(RequiredCorrect(10000, 10001), -1);                       // an exact -1
  EXPECT_EQ(RequiredCorrect(int64_t{1} << 50, 1), 1125787316851940);  // no overflow
}

TEST(JudgeTest, CleanRunQualifies) {
  Judgement judgement = JudgeOk(CleanRun());
  EXPECT_TRUE(judgement.problems.empty());
  EXPECT_EQ(judgement.ranked_ms, 10.0);
  EXPECT_FALSE(judgement.floored);
  EXPECT_EQ(judgement.summary,
            "MNIST 95.00% (104,500/110,000), 10.000 ms/call; hold-out (fashion) 50.00%, "
            "10.000 ms/call");
}

TEST(JudgeTest, CallWithUnexplainedTime) {
  std::vector<Call> calls = CleanRun();
  calls[2].parent_ms = 1.0 + 10.0 + 55.0;  // exactly 50 ms + half of 10 ms: allowed
  Judgement at_limit = JudgeOk(calls);
  EXPECT_TRUE(at_limit.problems.empty());
  // The call is the one dropped from the group gate, but the floor still sees it.
  EXPECT_TRUE(at_limit.floored);
  EXPECT_NEAR(at_limit.ranked_ms, 14.85, 1e-12);
  EXPECT_EQ(at_limit.summary,
            "MNIST 95.00% (104,500/110,000), 14.850 ms/call; hold-out (fashion) 50.00%, "
            "10.000 ms/call (floored by the scorer's clock)");

  calls[2].parent_ms = 1.0 + 10.0 + 55.5;
  Judgement past = JudgeOk(calls);
  EXPECT_EQ(RulesOf(past), RuleIds{"timing-call"});
  EXPECT_EQ(past.problems[0].message,
            "call 3 (mnist): the method reported 10.000 ms but the scorer measured 65.500 ms "
            "beyond the protocol's own cost");
  EXPECT_NEAR(past.ranked_ms, 14.895454545454545, 1e-12);
}

TEST(JudgeTest, CallReportingMoreThanTheParentsClock) {
  std::vector<Call> calls = CleanRun();
  calls[4] = MakeCall("mnist", 11.5, 10.5, 9500, 0.0);  // 1.0 ms over: allowed
  EXPECT_TRUE(JudgeOk(calls).problems.empty());
  calls[4] = MakeCall("mnist", 12.0, 10.9, 9500, 0.0);
  Judgement judgement = JudgeOk(calls);
  EXPECT_EQ(RulesOf(judgement), RuleIds{"timing-call"});
  EXPECT_EQ(judgement.problems[0].message,
            "call 5 (mnist): the method reported 12.000 ms but the scorer measured 10.900 ms "
            "beyond the protocol's own cost");
}

TEST(JudgeTest, GroupWithUnexplainedTime) {
  std::vector<Call> calls = CleanRun();
  // 4.5 ms unexplained on every MNIST call: exactly 3 ms + 15% of 10 ms.
  for (int i = 0; i < 11; ++i) calls[i].parent_ms = 15.5;
  Judgement at_limit = JudgeOk(calls);
  EXPECT_TRUE(at_limit.problems.empty());
  EXPECT_TRUE(at_limit.floored);
  EXPECT_NEAR(at_limit.ranked_ms, 14.35, 1e-12);

  for (int i = 0; i < 11; ++i) calls[i].parent_ms = 15.6;
  Judgement past = JudgeOk(calls);
  EXPECT_EQ(RulesOf(past), RuleIds{"timing-group"});
  EXPECT_EQ(past.problems[0].message,
            "MNIST calls: the method reported 10.000 ms on average but the scorer measured "
            "14.600 ms beyond the protocol's own cost");
}

TEST(JudgeTest, GroupGateDropsTheWorstFifth) {
  std::vector<Call> calls = CleanRun();
  // Of 11 calls, the 2 with the most unexplained time are not counted (11 // 5 = 2).
  calls[0].parent_ms = 1.0 + 10.0 + 45.0;
  calls[7].parent_ms = 1.0 + 10.0 + 45.0;
  EXPECT_TRUE(JudgeOk(calls).problems.empty());
  calls[9].parent_ms = 1.0 + 10.0 + 45.0;  // a third one is counted: 45 / 9 > 4.5
  EXPECT_EQ(RulesOf(JudgeOk(calls)), RuleIds{"timing-group"});
  // Of 4 hold-out calls, one is dropped (at least one).
  std::vector<Call> hold = CleanRun();
  hold[12].parent_ms = 1.0 + 10.0 + 40.0;
  EXPECT_TRUE(JudgeOk(hold).problems.empty());
  hold[13].parent_ms = 1.0 + 10.0 + 40.0;
  Judgement judgement = JudgeOk(hold);
  EXPECT_EQ(RulesOf(judgement), RuleIds{"timing-group"});
  EXPECT_EQ(judgement.problems[0].message,
            "hold-out calls: the method reported 10.000 ms on average but the scorer measured "
            "23.333 ms beyond the protocol's own cost");
}

TEST(JudgeTest, MnistAccuracyAtTheBand) {
  std::vector<Call> calls = CleanRun();
  for (int i = 0; i < 11; ++i) calls[i].correct = 9460;  // 104,060: exactly what 5.40% needs
  Judgement at_band = JudgeOk(calls);
  EXPECT_TRUE(at_band.problems.empty());
  EXPECT_EQ(at_band.summary,
            "MNIST 94.60% (104,060/110,000), 10.000 ms/call; hold-out (fashion) 50.00%, "
            "10.000 ms/call");
  calls[0].correct = 9459;
  Judgement below = JudgeOk(calls);
  EXPECT_EQ(RulesOf(below), RuleIds{"accuracy"});
  EXPECT_EQ(below.problems[0].message,
            "MNIST accuracy 94.599% (104,059/110,000); the band needs 104,060 correct");
}

TEST(JudgeTest, WeakestDraw) {
  std::vector<Call> calls = CleanRun();
  calls[5].correct = 9310;  // the band plus 1.5 points: 9,310 of 10,000
  EXPECT_TRUE(JudgeOk(calls).problems.empty());
  calls[5].correct = 9309;
  Judgement judgement = JudgeOk(calls);
  EXPECT_EQ(RulesOf(judgement), RuleIds{"draw-floor"});
  EXPECT_EQ(judgement.problems[0].message,
            "one MNIST draw scored 9,309/10,000; no draw may fall below 9,310");
}

TEST(JudgeTest, WeakestDrawNeedsTwoMnistCalls) {
  std::vector<Call> calls = {MakeCall("mnist", 10.0, 11.0, 9000)};
  Judgement judgement = JudgeOk(calls);
  EXPECT_EQ(RulesOf(judgement), RuleIds{"accuracy"});
  EXPECT_EQ(judgement.summary, "MNIST 90.00% (9,000/10,000), 10.000 ms/call");
}

TEST(JudgeTest, HoldoutAtFifteenPercent) {
  std::vector<Call> calls = CleanRun();
  for (int i = 11; i < 15; ++i) calls[i].correct = 1500;  // 6,000 of 40,000: exactly 15%
  Judgement at_limit = JudgeOk(calls);
  EXPECT_TRUE(at_limit.problems.empty());
  calls[12].correct = 1499;
  Judgement below = JudgeOk(calls);
  EXPECT_EQ(RulesOf(below), RuleIds{"holdout"});
  EXPECT_EQ(below.problems[0].message,
            "hold-out accuracy 15.00% (5,999/40,000); at least 6,000 needed. The method does not "
            "appear to learn from the data it is given");
}

TEST(JudgeTest, NoHoldoutCalls) {
  std::vector<Call> calls = CleanRun();
  calls.resize(11);
  Judgement judgement = JudgeOk(calls);
  EXPECT_TRUE(judgement.problems.empty());
  EXPECT_EQ(judgement.ranked_ms, 10.0);
  EXPECT_EQ(judgement.summary, "MNIST 95.00% (104,500/110,000), 10.000 ms/call");
}

TEST(JudgeTest, SlowestCallAtAndPastTheDispersionLimit) {
  std::vector<Call> calls = CleanRun();
  calls[3] = MakeCall("mnist", 22.0, 23.0, 9500);  // exactly 2 x the 10 ms median + 2 ms
  Judgement at_limit = JudgeOk(calls);
  EXPECT_TRUE(at_limit.problems.empty());
  const double past = std::nextafter(22.0, 100.0);
  calls[3] = MakeCall("mnist", past, past + 1.0, 9500);
  Judgement judgement = JudgeOk(calls);
  EXPECT_EQ(RulesOf(judgement), RuleIds{"dispersion-slow"});
  EXPECT_EQ(judgement.problems[0].message,
            "the slowest MNIST call took 22.000 ms, more than 2x the median 10.000 ms; every call "
            "must do the same work");
}

TEST(JudgeTest, FastestCallAtAndPastTheDispersionLimit) {
  std::vector<Call> calls = CleanRun();
  calls[3] = MakeCall("mnist", 3.0, 4.0, 9500);  // exactly the 10 ms median / 2 - 2 ms
  Judgement at_limit = JudgeOk(calls);
  EXPECT_TRUE(at_limit.problems.empty());
  EXPECT_EQ(at_limit.ranked_ms, 10.0);  // the hold-out's 10 ms is the slower mean
  const double past = std::nextafter(3.0, 0.0);
  calls[3] = MakeCall("mnist", past, past + 1.0, 9500);
  Judgement judgement = JudgeOk(calls);
  EXPECT_EQ(RulesOf(judgement), RuleIds{"dispersion-fast"});
  EXPECT_EQ(judgement.problems[0].message,
            "the fastest MNIST call took 3.000 ms, less than 1/2 of the median 10.000 ms; every "
            "call must do the same work");
  EXPECT_EQ(judgement.summary,
            "MNIST 95.00% (104,500/110,000), 9.364 ms/call; hold-out (fashion) 50.00%, "
            "10.000 ms/call");
}

TEST(JudgeTest, HoldoutDispersionUsesTheEvenMedian) {
  std::vector<Call> calls = CleanRun();
  // Hold-out times 10, 10, 20, 42: median 15, limit 2 x 15 + 2 = 32.
  calls[13] = MakeCall("fashion", 20.0, 21.0, 5000);
  calls[14] = MakeCall("fashion", 42.0, 43.0, 5000);
  Judgement judgement = JudgeOk(calls);
  EXPECT_EQ(RulesOf(judgement), RuleIds{"dispersion-slow"});
  EXPECT_EQ(judgement.problems[0].message,
            "the slowest hold-out call took 42.000 ms, more than 2x the median 15.000 ms; every "
            "call must do the same work");
  EXPECT_EQ(judgement.ranked_ms, 20.5);  // the hold-out's mean is now the slower one
}

TEST(JudgeTest, OneCallPerGroupSkipsTheGroupRules) {
  // Wildly different times and much unexplained time on average: with fewer than three calls a
  // group has no dispersion and no group gate.
  std::vector<Call> calls = {MakeCall("mnist", 10.0, 11.0 + 40.0, 9500),
                             MakeCall("mnist", 100.0, 101.0, 9500),
                             MakeCall("kmnist", 10.0, 11.0, 3000)};
  Judgement judgement = JudgeOk(calls);
  EXPECT_TRUE(judgement.problems.empty());
  EXPECT_TRUE(judgement.floored);
  EXPECT_EQ(judgement.summary,
            "MNIST 95.00% (19,000/20,000), 74.625 ms/call; hold-out (kmnist) 30.00%, "
            "10.000 ms/call (floored by the scorer's clock)");
}

TEST(JudgeTest, FloorByTheParentsClock) {
  std::vector<Call> calls = CleanRun();
  // 2 ms unexplained on every hold-out call: under the group gate, over the floor's slack.
  for (int i = 11; i < 15; ++i) calls[i].parent_ms = 13.0;
  Judgement judgement = JudgeOk(calls);
  EXPECT_TRUE(judgement.problems.empty());
  EXPECT_TRUE(judgement.floored);
  EXPECT_NEAR(judgement.ranked_ms, 12.0 - 0.1 - 0.05, 1e-12);
  EXPECT_EQ(judgement.summary,
            "MNIST 95.00% (104,500/110,000), 10.000 ms/call; hold-out (fashion) 50.00%, "
            "11.850 ms/call (floored by the scorer's clock)");
}

TEST(JudgeTest, BothForeignDatasetsAreOneHoldoutGroup) {
  std::vector<Call> calls = CleanRun();
  calls[11].dataset = "kmnist";
  calls[14].dataset = "kmnist";
  Judgement judgement = JudgeOk(calls);
  EXPECT_EQ(judgement.summary,
            "MNIST 95.00% (104,500/110,000), 10.000 ms/call; hold-out (fashion+kmnist) 50.00%, "
            "10.000 ms/call");
}

TEST(JudgeTest, ProblemsInTheSeedsOrder) {
  std::vector<Call> calls = CleanRun();
  for (int i = 0; i < 11; ++i) calls[i].parent_ms = 16.0;  // group gate
  calls[1] = MakeCall("mnist", 30.0, 100.0, 8000);         // call gate, slow, weak
  for (int i = 11; i < 15; ++i) calls[i].correct = 100;    // hold-out
  calls[12].ms = 0.5;                                      // fast hold-out call
  calls[12].parent_ms = 1.5;
  Judgement judgement = JudgeOk(calls);
  EXPECT_EQ(RulesOf(judgement), (RuleIds{"timing-call", "timing-group", "accuracy", "draw-floor",
                                         "holdout", "dispersion-slow", "dispersion-fast"}));
}

TEST(JudgeTest, RefusesInputNoRunProduces) {
  EXPECT_EQ(Judge({MakeCall("fashion", 10, 11, 5000)}, kBand, Rules()).status().message(),
            "no mnist call to judge among 1 calls");
  std::vector<Call> calls = CleanRun();
  calls[2].ms = std::numeric_limits<double>::quiet_NaN();
  EXPECT_EQ(Judge(calls, kBand, Rules()).status().message(),
            "call 3 (mnist): a time is not a finite number");
  calls = CleanRun();
  calls[0].correct = 10001;
  EXPECT_EQ(Judge(calls, kBand, Rules()).status().code(), Status::Code::kBadInput);
  EXPECT_EQ(Judge(CleanRun(), 0, Rules()).status().code(), Status::Code::kBadInput);
  EXPECT_EQ(Judge(CleanRun(), 10000, Rules()).status().code(), Status::Code::kBadInput);
}

}  // namespace
}  // namespace ratchet
