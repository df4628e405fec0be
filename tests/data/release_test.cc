// The release: Haar rotations, the whitener (order, signs, rank check) and released rows that
// have identity covariance.
#include "data/release.h"

#include <gtest/gtest.h>

#include <cmath>
#include <random>

#include "data/pool.h"

namespace ratchet {
namespace {

// n rows (as columns) of 81 values in [0, 1] with unequal spread and full rank.
Eigen::MatrixXd RandomRows(Eigen::Index n, uint64_t seed, int rank = 81) {
  std::mt19937_64 random(seed);
  std::normal_distribution<double> normal;
  Eigen::MatrixXd mix(81, rank);
  for (Eigen::Index i = 0; i < mix.size(); ++i) mix.data()[i] = normal(random);
  Eigen::MatrixXd latent(rank, n);
  for (Eigen::Index i = 0; i < latent.size(); ++i) latent.data()[i] = normal(random);
  Eigen::VectorXd scale = Eigen::VectorXd::LinSpaced(81, 0.001, 0.1);
  Eigen::MatrixXd rows = (scale.asDiagonal() * mix * latent).array() + 0.4;
  return rows;
}

TEST(DataRelease, HaarRotationIsOrthogonal) {
  Result<KeyedStream> stream = KeyedStream::ForLabel(RunSeed{}, "test/rotation");
  ASSERT_TRUE(stream.ok());
  for (int i = 0; i < 3; ++i) {
    const Eigen::MatrixXd q = HaarRotation(*stream);
    ASSERT_EQ(q.rows(), 60);
    ASSERT_EQ(q.cols(), 60);
    EXPECT_LT((q.transpose() * q - Eigen::MatrixXd::Identity(60, 60)).cwiseAbs().maxCoeff(), 1e-12);
    EXPECT_NEAR(std::abs(q.determinant()), 1.0, 1e-10);
  }
}

TEST(DataRelease, RotationSignsFollowR) {
  std::mt19937_64 random(5);
  std::normal_distribution<double> normal;
  Eigen::MatrixXd gaussian(60, 60);
  for (Eigen::Index i = 0; i < gaussian.size(); ++i) gaussian.data()[i] = normal(random);
  const Eigen::MatrixXd q = RotationFromGaussian(gaussian);
  // Q^T G is then the R with a positive diagonal: the unique QR, whatever the QR routine.
  const Eigen::MatrixXd r = q.transpose() * gaussian;
  for (Eigen::Index i = 0; i < 60; ++i) {
    EXPECT_GT(r(i, i), 0.0) << i;
    for (Eigen::Index j = 0; j < i; ++j) EXPECT_NEAR(r(i, j), 0.0, 1e-12);
  }
}

TEST(DataRelease, WhitenerKeepsTheTopSixtyInAscendingOrderWithPinnedSigns) {
  // Rows built from orthogonal +-1 columns of a Sylvester-Hadamard matrix: mean exactly 0.5 and
  // a diagonal covariance, so the principal directions are the pixels themselves.
  constexpr int kRows = 128;
  auto hadamard = [](int i, int j) { return __builtin_popcount(i & j) % 2 ? -1.0 : 1.0; };
  Eigen::VectorXd spread(81);
  for (int p = 0; p < 81; ++p) spread(p) = 0.001 * (1 + (p * 37) % 81);  // distinct, shuffled
  Eigen::MatrixXd rows(81, kRows);
  for (int i = 0; i < kRows; ++i) {
    for (int p = 0; p < 81; ++p) rows(p, i) = 0.5 + spread(p) * hadamard(i, p + 1);
  }
  Result<Whitener> whitener = FitWhitener(MatrixRows(rows), kRows, "hadamard rows");
  ASSERT_TRUE(whitener.ok()) << whitener.status().message();
  EXPECT_LT((whitener->mu.array() - 0.5).abs().maxCoeff(), 1e-15);
  ASSERT_EQ(whitener->w.rows(), 60);
  ASSERT_EQ(whitener->w.cols(), 81);
  for (int k = 0; k < 60; ++k) {
    // Row k belongs to the (21 + k)-th smallest spread, 0.001 * (22 + k).
    int pixel = -1;
    for (int p = 0; p < 81; ++p) {
      if (1 + (p * 37) % 81 == 22 + k) pixel = p;
    }
    const double sd = spread(pixel) * std::sqrt(kRows / (kRows - 1.0));
    EXPECT_NEAR(whitener->w(k, pixel), 1.0 / sd, 1e-9 / sd) << "row " << k;  // positive: pinned
    EXPECT_LT(whitener->w.row(k).cwiseAbs().sum() - std::abs(whitener->w(k, pixel)), 1e-9);
  }
}

TEST(DataRelease, SignsMakeTheLargestEntryPositive) {
  const Eigen::MatrixXd rows = RandomRows(2000, 3);
  Result<Whitener> whitener = FitWhitener(MatrixRows(rows), 2000, "random rows");
  ASSERT_TRUE(whitener.ok()) << whitener.status().message();
  for (Eigen::Index k = 0; k < 60; ++k) {
    Eigen::Index largest;
    whitener->w.row(k).cwiseAbs().maxCoeff(&largest);
    EXPECT_GT(whitener->w(k, largest), 0.0) << "row " << k;
  }
}

TEST(DataRelease, ReleasedTrainingRowsHaveIdentityCovariance) {
  const Eigen::MatrixXd rows = RandomRows(12000, 4);
  Result<KeyedStream> stream = KeyedStream::ForLabel(RunSeed{}, "test/release");
  ASSERT_TRUE(stream.ok());
  const Eigen::MatrixXd rotation = HaarRotation(*stream);
  Result<Released> released = ReleaseRows(MatrixRows(rows), 10000, rotation, "random rows");
  ASSERT_TRUE(released.ok()) << released.status().message();
  ASSERT_EQ(released->z.size(), 12000u * 60);
  Eigen::MatrixXd z =
      Eigen::Map<const Eigen::MatrixXf>(released->z.data(), 60, 12000).cast<double>();
  const Eigen::MatrixXd train = z.leftCols(10000);
  const Eigen::VectorXd mean = train.rowwise().mean();
  const Eigen::MatrixXd centered = train.colwise() - mean;
  const Eigen::MatrixXd covariance = centered * centered.transpose() / 9999.0;
  EXPECT_LT(mean.cwiseAbs().maxCoeff(), 1e-5);
  EXPECT_LT((covariance - Eigen::MatrixXd::Identity(60, 60)).cwiseAbs().maxCoeff(), 1e-5);
  // The test rows go through the same mu and transform.
  const Eigen::VectorXd x = rows.col(11000);
  const Eigen::VectorXd expected = released->transform * (x - released->mu);
  for (int d = 0; d < 60; ++d) {
    EXPECT_NEAR(released->z[11000 * 60 + d], expected(d), 1e-6 * (1 + std::abs(expected(d)))) << d;
  }
}

TEST(DataRelease, RankDeficientRowsAreRefused) {
  const Eigen::MatrixXd rows = RandomRows(3000, 6, /*rank=*/50);
  Result<Whitener> whitener = FitWhitener(MatrixRows(rows), 3000, "mnist draw 4");
  ASSERT_FALSE(whitener.ok());
  EXPECT_EQ(whitener.status().code(), Status::Code::kBadInput);
  const std::string& message = whitener.status().message();
  EXPECT_EQ(message.rfind("mnist draw 4: the training rows are rank deficient: direction 60 has "
                          "variance ",
                          0),
            0u)
      << message;
  EXPECT_NE(message.find("not above 1e-10"), std::string::npos) << message;
}

}  // namespace
}  // namespace ratchet
