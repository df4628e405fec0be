#include "rules/pyformat.h"

#include <gtest/gtest.h>

#include <cmath>
#include <limits>

namespace ratchet {
namespace {

// Every expected string is what CPython 3.11 prints for the same spec and value.

TEST(PyFormatTest, FixedRoundsTheExactBinaryValue) {
  EXPECT_EQ(FormatFixed(10.0, 3), "10.000");
  EXPECT_EQ(FormatFixed(0.0005, 3), "0.001");  // the double is a little above 0.0005
  EXPECT_EQ(FormatFixed(1.0005, 3), "1.000");  // and this one a little below 1.0005
  EXPECT_EQ(FormatFixed(2.675, 2), "2.67");
  EXPECT_EQ(FormatFixed(0.125, 2), "0.12");  // an exact tie goes to the even digit
  EXPECT_EQ(FormatFixed(0.375, 2), "0.38");
  EXPECT_EQ(FormatFixed(14.895454545454545, 3), "14.895");
}

TEST(PyFormatTest, FixedKeepsTheSignOfZero) {
  EXPECT_EQ(FormatFixed(-0.0, 3), "-0.000");
  EXPECT_EQ(FormatFixed(-0.0001, 3), "-0.000");
  EXPECT_EQ(FormatFixed(-1.5, 3), "-1.500");
}

TEST(PyFormatTest, FixedGrouped) {
  EXPECT_EQ(FormatFixed(1234.5, 3, true), "1,234.500");
  EXPECT_EQ(FormatFixed(-1234.5, 0, true), "-1,234");
  EXPECT_EQ(FormatFixed(999.9996, 3, true), "1,000.000");
  EXPECT_EQ(FormatFixed(61234567.0, 0, true), "61,234,567");
}

TEST(PyFormatTest, Percent) {
  EXPECT_EQ(FormatPercent(0.12345, 2), "12.35%");
  EXPECT_EQ(FormatPercent(0.945, 2), "94.50%");
  EXPECT_EQ(FormatPercent(1.0, 3), "100.000%");
  EXPECT_EQ(FormatPercent(104059.0 / 110000.0, 3), "94.599%");
  EXPECT_EQ(FormatPercent(5999.0 / 40000.0, 2), "15.00%");
}

TEST(PyFormatTest, Grouped) {
  EXPECT_EQ(FormatGrouped(0), "0");
  EXPECT_EQ(FormatGrouped(999), "999");
  EXPECT_EQ(FormatGrouped(1000), "1,000");
  EXPECT_EQ(FormatGrouped(104060), "104,060");
  EXPECT_EQ(FormatGrouped(-1234567), "-1,234,567");
}

TEST(PyFormatTest, General) {
  EXPECT_EQ(FormatGeneral(2.0), "2");
  EXPECT_EQ(FormatGeneral(1.5), "1.5");
  EXPECT_EQ(FormatGeneral(1e6), "1e+06");
  EXPECT_EQ(FormatGeneral(0.0001), "0.0001");
  EXPECT_EQ(FormatGeneral(1e-5), "1e-05");
}

TEST(PyFormatTest, NonFinite) {
  EXPECT_EQ(FormatFixed(std::numeric_limits<double>::quiet_NaN(), 3), "nan");
  EXPECT_EQ(FormatFixed(-std::numeric_limits<double>::quiet_NaN(), 3), "nan");
  EXPECT_EQ(FormatPercent(-std::numeric_limits<double>::infinity(), 3), "-inf%");
  EXPECT_EQ(FormatGeneral(std::numeric_limits<double>::infinity()), "inf");
}

}  // namespace
}  // namespace ratchet
