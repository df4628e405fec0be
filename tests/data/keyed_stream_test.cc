// The keyed streams behind every random choice of a run: known answers an auditor can check
// (docs/draws.md), determinism, and the properties of the integers, samples and normals.
#include "data/keyed_stream.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <set>

#include "core/sha256.h"

namespace ratchet {
namespace {

RunSeed ZeroSeed() { return RunSeed{}; }

KeyedStream Stream(const std::string& label, const RunSeed& seed = ZeroSeed()) {
  Result<KeyedStream> stream = KeyedStream::ForLabel(seed, label);
  EXPECT_TRUE(stream.ok());
  return std::move(stream).value();
}

TEST(DataStream, ChaCha20MatchesRfc8439) {
  // RFC 8439 appendix A.1, test vector #1: zero key, zero nonce, block counter 0. Keystream
  // bytes 76 b8 e0 ad a0 f1 3d 90 | 40 5d 6a e5 53 86 bd 28, read as little-endian words.
  const uint8_t key[32] = {0};
  Result<KeyedStream> stream = KeyedStream::FromKey(key);
  ASSERT_TRUE(stream.ok());
  EXPECT_EQ(stream->NextWord(), 0x903df1a0ade0b876ULL);
  EXPECT_EQ(stream->NextWord(), 0x28bd8653e56a5d40ULL);
}

TEST(DataStream, KnownAnswersForTheZeroSeed) {
  // Computed independently (Python: hmac + a numpy ChaCha20, tests/differential/release_diff.py).
  EXPECT_EQ(HexEncode(HmacSha256(ZeroSeed().view(), "split/mnist")),
            "e0c99f9d847b4f4e3f8412e45eba7b198491ea14dd320da68a6cde0d3b383b44");
  KeyedStream split = Stream("split/mnist");
  EXPECT_EQ(split.NextWord(), 0x3c2d2d9c4c322f7eULL);
  EXPECT_EQ(split.NextWord(), 0xd8311c3ac3152edcULL);
  EXPECT_EQ(split.NextWord(), 0x1533af1b174f0057ULL);
  EXPECT_EQ(split.NextWord(), 0xb5880231adb15087ULL);

  KeyedStream below = Stream("split/mnist");
  const uint64_t expected_below[] = {41150, 2588, 1303, 57543, 22779};
  for (uint64_t value : expected_below) EXPECT_EQ(below.UniformBelow(60000), value);

  KeyedStream uniform = Stream("draw/mnist/0");
  EXPECT_EQ(uniform.UniformDouble(), 0.8954561271551805);
  EXPECT_EQ(uniform.UniformDouble(), 0.6680846875214518);
  EXPECT_EQ(uniform.UniformDouble(), 0.36098684676968185);

  KeyedStream normals = Stream("draw/mnist/0");
  double z[4];
  normals.FillNormals(z, 4);
  // Through libm's log, cos and sin: equal to the last bit or two on any libm.
  EXPECT_NEAR(z[0], -1.0461393347596726, 1e-15);
  EXPECT_NEAR(z[1], -1.849834968845804, 1e-15);
  EXPECT_NEAR(z[2], -0.34727596975165925, 1e-15);
  EXPECT_NEAR(z[3], 0.8803748532846324, 1e-15);

  KeyedStream permutation = Stream("draw/fashion/3");
  EXPECT_EQ(permutation.Permutation(10), (std::vector<int64_t>{5, 9, 0, 6, 7, 1, 8, 3, 2, 4}));

  KeyedStream order = Stream("split/mnist");
  const std::vector<int64_t> split_order = order.Permutation(60000);
  EXPECT_EQ(std::vector<int64_t>(split_order.begin(), split_order.begin() + 5),
            (std::vector<int64_t>{41150, 9461, 9215, 5958, 25803}));
  EXPECT_EQ(std::vector<int64_t>(split_order.begin() + 30000, split_order.begin() + 30005),
            (std::vector<int64_t>{15402, 7057, 380, 12736, 21596}));
}

TEST(DataStream, SameSeedAndLabelSameStreamOtherwiseDifferent) {
  RunSeed other = ZeroSeed();
  other.bytes[31] = 1;
  KeyedStream a = Stream("draw/mnist/1"), b = Stream("draw/mnist/1");
  KeyedStream c = Stream("draw/mnist/2"), d = Stream("draw/mnist/1", other);
  bool differs_by_label = false, differs_by_seed = false;
  for (int i = 0; i < 1000; ++i) {  // crosses several refills of the keystream buffer
    const uint64_t word = a.NextWord();
    EXPECT_EQ(word, b.NextWord());
    differs_by_label = differs_by_label || word != c.NextWord();
    differs_by_seed = differs_by_seed || word != d.NextWord();
  }
  EXPECT_TRUE(differs_by_label);
  EXPECT_TRUE(differs_by_seed);
}

TEST(DataStream, UniformBelowIsInRangeAndEven) {
  KeyedStream stream = Stream("test/uniform");
  EXPECT_EQ(stream.UniformBelow(1), 0u);
  int counts[10] = {0};
  constexpr int kDraws = 100000;
  for (int i = 0; i < kDraws; ++i) {
    const uint64_t value = stream.UniformBelow(10);
    ASSERT_LT(value, 10u);
    ++counts[value];
  }
  for (int count : counts) EXPECT_NEAR(count, kDraws / 10, 5 * std::sqrt(kDraws * 0.09)) << count;
  // A bound just above 2^63 rejects almost half the words; the results stay in range.
  const uint64_t large = (uint64_t{1} << 63) + 12345;
  for (int i = 0; i < 100; ++i) EXPECT_LT(stream.UniformBelow(large), large);
}

TEST(DataStream, UniformDoublesAndNormals) {
  KeyedStream stream = Stream("test/normals");
  std::vector<double> z(20000);
  stream.FillNormals(z.data(), z.size());
  double mean = 0, square = 0;
  for (double value : z) {
    mean += value;
    square += value * value;
  }
  mean /= z.size();
  square /= z.size();
  EXPECT_NEAR(mean, 0.0, 0.05);
  EXPECT_NEAR(square, 1.0, 0.05);
  for (int i = 0; i < 1000; ++i) {
    const double u = stream.UniformDouble();
    ASSERT_GE(u, 0.0);
    ASSERT_LT(u, 1.0);
  }
}

TEST(DataStream, SampleIsDistinctAndFromThePopulation) {
  KeyedStream stream = Stream("test/sample");
  std::vector<int64_t> population;
  for (int64_t i = 0; i < 30000; ++i) population.push_back(2 * i + 1);  // odd numbers only
  const std::vector<int64_t> sample = stream.Sample(population, 10000);
  ASSERT_EQ(sample.size(), 10000u);
  const std::set<int64_t> distinct(sample.begin(), sample.end());
  EXPECT_EQ(distinct.size(), sample.size());
  for (int64_t value : sample) {
    ASSERT_EQ(value % 2, 1);
    ASSERT_LT(value, 60000);
  }
  std::vector<int64_t> permutation = stream.Permutation(1000);
  std::sort(permutation.begin(), permutation.end());
  for (int64_t i = 0; i < 1000; ++i) ASSERT_EQ(permutation[static_cast<size_t>(i)], i);
}

TEST(DataStream, RunSeedParsing) {
  Result<RunSeed> seed = ParseRunSeed(std::string(64, '0'), "--seed");
  ASSERT_TRUE(seed.ok());
  EXPECT_EQ(RunSeedSha256(*seed),
            "66687aadf862bd776c8fc18b8e9f8e20089714856ee233b3902a591d0d5f2925");
  Result<RunSeed> mixed =
      ParseRunSeed("00112233445566778899AABBCCDDEEFF" + std::string(32, 'f'), "--seed");
  ASSERT_TRUE(mixed.ok());
  EXPECT_EQ(mixed->bytes[9], 0x99);

  Result<RunSeed> short_seed = ParseRunSeed("abcd", "--seed");
  ASSERT_FALSE(short_seed.ok());
  EXPECT_EQ(short_seed.status().code(), Status::Code::kBadInput);
  EXPECT_NE(short_seed.status().message().find("must be 64 hex digits"), std::string::npos);
  Result<RunSeed> not_hex = ParseRunSeed(std::string(63, '0') + "g", "--seed");
  ASSERT_FALSE(not_hex.ok());
  EXPECT_NE(not_hex.status().message().find("--seed is not hex"), std::string::npos)
      << not_hex.status().message();
}

}  // namespace
}  // namespace ratchet
