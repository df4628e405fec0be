// InterruptHold: the signals it holds stay pending instead of ending the process, and each that
// comes counts, so that a second Ctrl-C can mean "stop now".
#include "cli/interrupt.h"

#include <gtest/gtest.h>
#include <signal.h>

namespace ratchet {
namespace {

TEST(InterruptHoldTest, EachHeldSignalCountsAndNoneEndsTheProcess) {
  InterruptHold hold;
  EXPECT_FALSE(hold.Interrupted());
  EXPECT_EQ(hold.Count(), 0);
  ASSERT_EQ(raise(SIGINT), 0);
  EXPECT_TRUE(hold.Interrupted());
  EXPECT_EQ(hold.Count(), 1);
  EXPECT_EQ(hold.Count(), 1);  // looking again does not count it twice
  ASSERT_EQ(raise(SIGINT), 0);
  EXPECT_EQ(hold.Count(), 2);
  ASSERT_EQ(raise(SIGHUP), 0);
  ASSERT_EQ(raise(SIGTERM), 0);
  EXPECT_EQ(hold.Count(), 4);
}

TEST(InterruptHoldTest, WhatCameDuringTheHoldIsDiscardedAtItsEnd) {
  {
    InterruptHold hold;
    ASSERT_EQ(raise(SIGTERM), 0);
  }
  // Still here: the pending SIGTERM was taken off before the mask was restored.
  InterruptHold next;
  EXPECT_EQ(next.Count(), 0);
}

}  // namespace
}  // namespace ratchet
