#include "worker/output_check.h"

#include <gtest/gtest.h>

#include <cstdint>
#include <vector>

#include "worker/proc_status.h"

namespace ratchet {
namespace {

OutputFacts Labels() {
  OutputFacts facts;
  facts.shape = {10000};
  facts.scalar_type = "Long";
  facts.device = "cpu";
  return facts;
}

TEST(OutputCheckTest, AcceptsEveryIntegerDtypeOfTheRightShapeAndDevice) {
  for (const char* type : {"Byte", "Char", "Short", "Int", "Long"}) {
    OutputFacts facts = Labels();
    facts.scalar_type = type;
    EXPECT_EQ(CheckOutput(facts, 10000, "cpu"), std::nullopt) << type;
  }
}

TEST(OutputCheckTest, MessagesAreTheSeedScorersWords) {
  OutputFacts undefined;
  undefined.defined = false;
  EXPECT_EQ(CheckOutput(undefined, 10000, "cpu"),
            "the method returned an undefined tensor, not a plain torch.Tensor");
  OutputFacts column = Labels();
  column.shape = {10000, 1};
  EXPECT_EQ(CheckOutput(column, 10000, "cpu"),
            "the method returned shape (10000, 1), expected (10000,)");
  OutputFacts scalar = Labels();
  scalar.shape = {};
  EXPECT_EQ(CheckOutput(scalar, 10000, "cpu"), "the method returned shape (), expected (10000,)");
  OutputFacts floats = Labels();
  floats.scalar_type = "Float";
  EXPECT_EQ(CheckOutput(floats, 10000, "cpu"),
            "the method returned dtype torch.float32, expected an integer dtype");
  OutputFacts booleans = Labels();
  booleans.scalar_type = "Bool";
  EXPECT_EQ(CheckOutput(booleans, 10000, "cpu"),
            "the method returned dtype torch.bool, expected an integer dtype");
  OutputFacts elsewhere = Labels();
  elsewhere.device = "cpu";
  EXPECT_EQ(CheckOutput(elsewhere, 10000, "cuda:0"),
            "the method returned a tensor on cpu, expected cuda:0");
}

TEST(OutputCheckTest, ShapeIsCheckedBeforeDtypeAndDtypeBeforeDevice) {
  OutputFacts everything_wrong = Labels();
  everything_wrong.shape = {5};
  everything_wrong.scalar_type = "Half";
  everything_wrong.device = "cpu";
  EXPECT_EQ(CheckOutput(everything_wrong, 10000, "cuda:0"),
            "the method returned shape (5,), expected (10000,)");
  everything_wrong.shape = {10000};
  EXPECT_EQ(CheckOutput(everything_wrong, 10000, "cuda:0"),
            "the method returned dtype torch.float16, expected an integer dtype");
}

TEST(OutputCheckTest, PythonNamesOfDtypes) {
  EXPECT_EQ(PythonDtypeName("BFloat16"), "torch.bfloat16");
  EXPECT_EQ(PythonDtypeName("Double"), "torch.float64");
  EXPECT_EQ(PythonDtypeName("ComplexFloat"), "torch.complex64");
  EXPECT_EQ(PythonDtypeName("Float8_e4m3fn"), "torch.float8_e4m3fn");
}

TEST(OutputCheckTest, LabelBytesKeepZeroToNineAndMarkEverythingElse255) {
  const int64_t values[] = {0, 9, 5, -1, 10, 255, 256, 265, INT64_MIN, INT64_MAX, -256 + 3};
  char out[sizeof values / sizeof values[0]] = {};
  LabelBytes(values, sizeof values / sizeof values[0], out);
  const unsigned char expected[] = {0, 9, 5, 255, 255, 255, 255, 255, 255, 255, 255};
  for (size_t i = 0; i < sizeof expected; ++i) {
    EXPECT_EQ(static_cast<unsigned char>(out[i]), expected[i]) << values[i];
  }
}

TEST(OutputCheckTest, LabelBytesOfEveryLabelDtypeCompareTheWholeValue) {
  const int8_t i8[] = {INT8_MIN, -1, 0, 9, 10, INT8_MAX, 3};
  const uint8_t u8[] = {0, 9, 10, 255, 7};
  const int16_t i16[] = {INT16_MIN, -1, 0, 9, 10, 259, -251, INT16_MAX, 4};
  const int32_t i32[] = {INT32_MIN, -1, 0, 9, 10, 256 + 2, -256 + 2, INT32_MAX, 8};
  char out[16] = {};
  auto bytes = [&](size_t count) {
    return std::vector<int>(reinterpret_cast<unsigned char*>(out),
                            reinterpret_cast<unsigned char*>(out) + count);
  };
  LabelBytes(i8, 7, out);
  EXPECT_EQ(bytes(7), (std::vector<int>{255, 255, 0, 9, 255, 255, 3}));
  LabelBytes(u8, 5, out);
  EXPECT_EQ(bytes(5), (std::vector<int>{0, 9, 255, 255, 7}));
  LabelBytes(i16, 9, out);
  EXPECT_EQ(bytes(9), (std::vector<int>{255, 255, 0, 9, 255, 255, 255, 255, 4}));
  LabelBytes(i32, 9, out);
  EXPECT_EQ(bytes(9), (std::vector<int>{255, 255, 0, 9, 255, 255, 255, 255, 8}));
}

TEST(ProcStatusTest, ReadsIntegerFieldsByExactName) {
  const std::string text =
      "Name:\tratchet-worker\nUid:\t1000\t1000\t1000\t1000\nNoNewPrivs:\t1\nSeccomp:\t2\n"
      "Seccomp_filters:\t1\n";
  EXPECT_EQ(ProcStatusField(text, "NoNewPrivs"), 1);
  EXPECT_EQ(ProcStatusField(text, "Seccomp"), 2);
  EXPECT_EQ(ProcStatusField(text, "Seccomp_filters"), 1);
  EXPECT_EQ(ProcStatusField(text, "Uid"), std::nullopt);  // not one integer
  EXPECT_EQ(ProcStatusField(text, "Name"), std::nullopt);
  EXPECT_EQ(ProcStatusField(text, "Missing"), std::nullopt);
  EXPECT_EQ(ProcStatusField("NoNewPrivs:\t0", "NoNewPrivs"), 0);  // no final newline
}

}  // namespace
}  // namespace ratchet
