// Where a window's time went (scorer/window.h): the phases of one window from the parent's and the
// worker's instants, and the calibration's medians of them.
#include <gtest/gtest.h>

#include <vector>

#include "scorer/window.h"

namespace ratchet {
namespace {

Json Clock(int64_t received, int64_t started, int64_t ended, int64_t replying) {
  return Json{
      {"received", received}, {"started", started}, {"ended", ended}, {"replying", replying}};
}

TEST(WindowPhases, EachStepIsTheTimeBetweenTwoInstants) {
  // opened 0, written 1 ms, received 1.5, started 2, ended 12, replying 12.25, returned 13.
  Json phases = WindowPhases(0, 1000000, 13000000, Clock(1500000, 2000000, 12000000, 12250000));
  ASSERT_TRUE(phases.is_object());
  EXPECT_DOUBLE_EQ(phases["write"].get<double>(), 1.0);
  EXPECT_DOUBLE_EQ(phases["to_worker"].get<double>(), 0.5);
  EXPECT_DOUBLE_EQ(phases["inputs"].get<double>(), 0.5);
  EXPECT_DOUBLE_EQ(phases["method"].get<double>(), 10.0);
  EXPECT_DOUBLE_EQ(phases["labels"].get<double>(), 0.25);
  EXPECT_DOUBLE_EQ(phases["to_parent"].get<double>(), 0.75);
}

TEST(WindowPhases, InstantsOutOfOrderOrMissingGiveNone) {
  EXPECT_TRUE(WindowPhases(0, 10, 100, Clock(20, 30, 25, 40)).is_null());
  EXPECT_TRUE(WindowPhases(0, 10, 100, Clock(20, 30, 40, 120)).is_null())
      << "a worker's instant after the parent's last";
  EXPECT_TRUE(WindowPhases(0, 10, 100, Json{{"received", 20}}).is_null());
  EXPECT_TRUE(WindowPhases(0, 10, 100, Json()).is_null());
}

Json Window(double scale, bool with_reply_read) {
  Json window = {{"write", 1 * scale},   {"to_worker", 2 * scale}, {"inputs", 3 * scale},
                 {"method", 4 * scale},  {"labels", 5 * scale},    {"to_parent", 6 * scale},
                 {"collect", 7 * scale}, {"stage", 8 * scale}};
  if (with_reply_read) window["reply_read"] = 0.5 * scale;
  return window;
}

TEST(MedianPhases, EveryStepAndEveryOtherFigureTheWindowsAllHave) {
  Json medians = MedianPhases({Window(1, true), Window(3, true), Window(2, true)});
  ASSERT_TRUE(medians.is_object());
  EXPECT_DOUBLE_EQ(medians["method"].get<double>(), 8.0);
  EXPECT_DOUBLE_EQ(medians["to_parent"].get<double>(), 12.0);
  EXPECT_DOUBLE_EQ(medians["collect"].get<double>(), 14.0);
  EXPECT_DOUBLE_EQ(medians["stage"].get<double>(), 16.0);
  ASSERT_TRUE(medians.contains("reply_read")) << medians.dump();
  EXPECT_DOUBLE_EQ(medians["reply_read"].get<double>(), 1.0);
  EXPECT_FALSE(medians.contains("arm")) << "no window had copy threads";
}

TEST(MedianPhases, AFigureSomeWindowLacksIsLeftOut) {
  Json medians = MedianPhases({Window(1, true), Window(3, false), Window(2, true)});
  ASSERT_TRUE(medians.is_object());
  EXPECT_FALSE(medians.contains("reply_read")) << medians.dump();
  EXPECT_DOUBLE_EQ(medians["labels"].get<double>(), 10.0);
}

TEST(MedianPhases, AWindowWithoutStepsLeavesNoMedians) {
  EXPECT_TRUE(MedianPhases({Window(1, true), Json()}).is_null());
  EXPECT_TRUE(MedianPhases({}).is_null());
}

}  // namespace
}  // namespace ratchet
