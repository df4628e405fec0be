#include "scorer/plan.h"

#include <gtest/gtest.h>

#include <map>

namespace ratchet {
namespace {

RunSeed SeedOf(uint8_t fill) {
  RunSeed seed;
  seed.bytes.fill(fill);
  return seed;
}

const RuleSet& Rules() {
  static const RuleSet rules = *LoadRuleSet(std::nullopt);
  return rules;
}

TEST(RunPlanTest, ElevenMnistAndFourHoldoutCallsWithTheirOwnDraws) {
  Result<RunPlan> plan = MakeRunPlan(SeedOf(1), Rules(), {"fashion", "kmnist"});
  ASSERT_TRUE(plan.ok()) << plan.status().message();
  ASSERT_EQ(plan->calls.size(), 15u);
  EXPECT_NE(plan->holdout, plan->warmup);
  EXPECT_FALSE(plan->single_foreign);
  std::map<std::string, std::vector<uint64_t>> draws;
  for (const PlannedCall& call : plan->calls) {
    draws[call.dataset].push_back(call.draw_index);
    EXPECT_EQ(call.warmup_dataset, plan->warmup);
    EXPECT_GE(call.warmup_draw_index, kWarmupDrawBase);
  }
  EXPECT_EQ(draws["mnist"], (std::vector<uint64_t>{0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10}));
  EXPECT_EQ(draws[plan->holdout], (std::vector<uint64_t>{0, 1, 2, 3}));
}

TEST(RunPlanTest, TheSeedAloneDecidesThePlan) {
  Result<RunPlan> a = MakeRunPlan(SeedOf(7), Rules(), {"fashion", "kmnist"});
  Result<RunPlan> b = MakeRunPlan(SeedOf(7), Rules(), {"fashion", "kmnist"});
  ASSERT_TRUE(a.ok() && b.ok());
  for (size_t i = 0; i < a->calls.size(); ++i) EXPECT_EQ(a->calls[i].dataset, b->calls[i].dataset);
  // Over many seeds the order and the hold-out change.
  std::set<std::string> orders, holdouts;
  for (uint8_t fill = 0; fill < 40; ++fill) {
    Result<RunPlan> plan = MakeRunPlan(SeedOf(fill), Rules(), {"fashion", "kmnist"});
    ASSERT_TRUE(plan.ok());
    std::string order;
    for (const PlannedCall& call : plan->calls) order += call.dataset == "mnist" ? 'm' : 'h';
    orders.insert(order);
    holdouts.insert(plan->holdout);
  }
  EXPECT_GT(orders.size(), 30u);
  EXPECT_EQ(holdouts.size(), 2u);
}

TEST(RunPlanTest, OneForeignDatasetServesBothRolesAndSaysSo) {
  Result<RunPlan> plan = MakeRunPlan(SeedOf(3), Rules(), {"fashion"});
  ASSERT_TRUE(plan.ok());
  EXPECT_TRUE(plan->single_foreign);
  EXPECT_EQ(plan->holdout, "fashion");
  EXPECT_EQ(plan->warmup, "fashion");
  for (const PlannedCall& call : plan->calls) {
    if (call.dataset == "fashion") {
      EXPECT_LT(call.draw_index, kWarmupDrawBase);
    }
  }
}

TEST(RunPlanTest, NoForeignDatasetIsUnavailable) {
  Result<RunPlan> plan = MakeRunPlan(SeedOf(3), Rules(), {});
  ASSERT_FALSE(plan.ok());
  EXPECT_EQ(plan.status().code(), Status::Code::kUnavailable);
}

}  // namespace
}  // namespace ratchet
