// The rerelease of a draw (data/rerelease.h) and how many draws the energy column makes.
#include "data/rerelease.h"

#include <gtest/gtest.h>

#include <cmath>

#include "data/test_files.h"
#include "energy/measure.h"
#include "scorer/plan.h"

namespace ratchet {
namespace {

RunSeed Seed(uint8_t fill) {
  RunSeed seed;
  seed.bytes.fill(fill);
  return seed;
}

const Draw& BaseDraw() {
  static const Draw draw = [] {
    const Pool pool = datatest::SyntheticPool("mnist", 7);
    const Split split = MakeSplit(Seed(1), "mnist", pool.rows()).value();
    return MakeDraw(pool, split, Seed(1), kEnergyDrawBase).value();
  }();
  return draw;
}

TEST(RereleaseTest, TheLabelNamesTheDrawAndTheCall) {
  EXPECT_EQ(RereleaseLabel("mnist", 2001, 40), "rerelease/mnist/2001/40");
}

TEST(RereleaseTest, SameRowsUnderAFreshRotationAndLabelPermutation) {
  const Draw& draw = BaseDraw();
  Result<Draw> again = Rerelease(draw, Seed(1), 40);
  ASSERT_TRUE(again.ok()) << again.status().message();
  EXPECT_EQ(again->dataset, draw.dataset);
  EXPECT_EQ(again->index, draw.index);
  EXPECT_EQ(again->train_rows, draw.train_rows);
  EXPECT_EQ(again->test_rows, draw.test_rows);
  ASSERT_EQ(again->train_x.size(), draw.train_x.size());
  ASSERT_EQ(again->test_x.size(), draw.test_x.size());
  // Different inputs: no released value is where it was.
  size_t same = 0;
  for (size_t i = 0; i < draw.train_x.size(); ++i) same += again->train_x[i] == draw.train_x[i];
  EXPECT_LT(same, draw.train_x.size() / 100);
  // A rotation: every row keeps its length.
  for (size_t row : {size_t{0}, size_t{1234}, size_t{9999}}) {
    double before = 0, after = 0;
    for (size_t k = 0; k < 60; ++k) {
      before += std::pow(draw.test_x[row * 60 + k], 2);
      after += std::pow(again->test_x[row * 60 + k], 2);
    }
    EXPECT_NEAR(std::sqrt(after), std::sqrt(before), 1e-5 * std::sqrt(before)) << row;
  }
  // One permutation p of the labels, and relabel is p after the draw's.
  std::vector<int64_t> p(10, -1);
  for (size_t i = 0; i < draw.test_y.size(); ++i) {
    int64_t& image = p[static_cast<size_t>(draw.test_y[i])];
    if (image < 0) image = again->test_y[i];
    ASSERT_EQ(image, again->test_y[i]) << "row " << i;
  }
  for (size_t i = 0; i < draw.train_y.size(); ++i) {
    ASSERT_EQ(p[static_cast<size_t>(draw.train_y[i])], again->train_y[i]) << "row " << i;
  }
  std::vector<int64_t> sorted = p;
  std::sort(sorted.begin(), sorted.end());
  EXPECT_EQ(sorted, (std::vector<int64_t>{0, 1, 2, 3, 4, 5, 6, 7, 8, 9}));
  for (size_t l = 0; l < 10; ++l)
    EXPECT_EQ(again->relabel[l], p[static_cast<size_t>(draw.relabel[l])]);
}

TEST(RereleaseTest, RegeneratedFromTheSeedAloneWhateverTheThreads) {
  const Draw& draw = BaseDraw();
  Result<Draw> one = Rerelease(draw, Seed(1), 40, 1);
  Result<Draw> four = Rerelease(draw, Seed(1), 40, 4);
  Result<Draw> other_call = Rerelease(draw, Seed(1), 41, 4);
  Result<Draw> other_seed = Rerelease(draw, Seed(2), 40, 4);
  ASSERT_TRUE(one.ok() && four.ok() && other_call.ok() && other_seed.ok());
  EXPECT_EQ(one->train_x, four->train_x);
  EXPECT_EQ(one->test_x, four->test_x);
  EXPECT_EQ(one->test_y, four->test_y);
  EXPECT_NE(one->test_x, other_call->test_x);
  EXPECT_NE(one->test_x, other_seed->test_x);
}

// The seed's count: min(ENERGY_DRAWS, ENERGY_MIN_CALLS + ceil(ENERGY_WINDOW_S * 1e3 / max(ms, 1))).
TEST(RereleaseTest, TheMethodWindowGetsAsManyFreshDrawsAsTheSeedMakes) {
  const RuleSet rules = LoadRuleSet(std::nullopt).value();  // 20 s, 3 calls, 32 draws
  EXPECT_EQ(EnergyDrawCount(rules, 61.0), 32);
  EXPECT_EQ(EnergyDrawCount(rules, 1000.0), 23);
  EXPECT_EQ(EnergyDrawCount(rules, 1001.0), 23);  // ceil(19.98) = 20
  EXPECT_EQ(EnergyDrawCount(rules, 2000.0), 13);
  EXPECT_EQ(EnergyDrawCount(rules, 0.25), 32);
  EXPECT_EQ(EnergyDrawCount(rules, 60000.0), 4);
}

TEST(RereleaseTest, EnergyDrawsNeverShareAnIndexWithTimedOrWarmupDraws) {
  const RuleSet rules = LoadRuleSet(std::nullopt).value();
  const uint64_t timed = static_cast<uint64_t>(rules.calls.mnist_calls + rules.calls.holdout_calls);
  EXPECT_LE(kWarmupDrawBase + timed, kEnergyWarmupDraw);
  EXPECT_LT(kEnergyWarmupDraw, kEnergyDrawBase);
}

}  // namespace
}  // namespace ratchet
