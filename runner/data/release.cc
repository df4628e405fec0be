#include "data/release.h"

#include <algorithm>
#include <cmath>
#include <cstdio>

#include "data/pool.h"

namespace ratchet {
namespace {

// Rows per block: 81 x 256 float64 centered rows and 60 x 256 released ones fit in L2.
constexpr size_t kBlockRows = 256;
constexpr Eigen::Index kPixels = static_cast<Eigen::Index>(kPooledPixels);

// Calls visit(block, count) with rows [first, last) gathered and centered by `mu`, in blocks.
template <typename Visit>
void ForEachCenteredBlock(const RowSource& rows, size_t first, size_t last,
                          const Eigen::VectorXd& mu, Visit visit) {
  Eigen::MatrixXd block(kPixels, static_cast<Eigen::Index>(kBlockRows));
  for (size_t start = first; start < last; start += kBlockRows) {
    const size_t count = std::min(kBlockRows, last - start);
    rows.Gather(start, count, block.data());
    auto used = block.leftCols(static_cast<Eigen::Index>(count));
    used.colwise() -= mu;
    visit(used, start, count);
  }
}

}  // namespace

void MatrixRows::Gather(size_t first, size_t count, double* out) const {
  Eigen::Map<Eigen::MatrixXd>(out, columns_.rows(), static_cast<Eigen::Index>(count)) =
      columns_.middleCols(static_cast<Eigen::Index>(first), static_cast<Eigen::Index>(count));
}

Result<Whitener> FitWhitener(const RowSource& rows, size_t n_train, const std::string& what) {
  if (n_train < 2 || n_train > rows.size()) {
    return Status::Internal(what + ": cannot fit a whitener to " + std::to_string(n_train) +
                            " of " + std::to_string(rows.size()) + " rows");
  }
  Whitener whitener;
  whitener.mu = Eigen::VectorXd::Zero(kPixels);
  const Eigen::VectorXd zero = Eigen::VectorXd::Zero(kPixels);
  ForEachCenteredBlock(rows, 0, n_train, zero, [&](const auto& block, size_t, size_t) {
    whitener.mu += block.rowwise().sum();
  });
  whitener.mu /= static_cast<double>(n_train);
  Eigen::MatrixXd covariance = Eigen::MatrixXd::Zero(kPixels, kPixels);
  const double scale = 1.0 / static_cast<double>(n_train - 1);
  ForEachCenteredBlock(rows, 0, n_train, whitener.mu, [&](const auto& block, size_t, size_t) {
    covariance.selfadjointView<Eigen::Lower>().rankUpdate(block, scale);
  });
  // The solver reads the lower triangle only, which is all rankUpdate wrote. Eigenvalues ascend.
  Eigen::SelfAdjointEigenSolver<Eigen::MatrixXd> solver(covariance, Eigen::ComputeEigenvectors);
  if (solver.info() != Eigen::Success) {
    return Status::Internal(what + ": the eigen-decomposition of the covariance did not converge");
  }
  const Eigen::VectorXd eigenvalues = solver.eigenvalues().cwiseMax(0.0);
  Eigen::MatrixXd vectors = solver.eigenvectors();
  for (Eigen::Index column = 0; column < kPixels; ++column) {
    Eigen::Index largest = 0;
    for (Eigen::Index i = 1; i < kPixels; ++i) {
      if (std::abs(vectors(i, column)) > std::abs(vectors(largest, column))) largest = i;
    }
    if (vectors(largest, column) < 0) vectors.col(column) *= -1.0;
  }
  const double smallest = eigenvalues(kPixels - kReleaseDims);
  if (!(smallest > kMinKeptVariance)) {
    char variance[32];
    std::snprintf(variance, sizeof variance, "%.3e", smallest);
    return Status::BadInput(what + ": the training rows are rank deficient: direction " +
                            std::to_string(kReleaseDims) + " has variance " + variance +
                            ", not above 1e-10");
  }
  const Eigen::ArrayXd inverse_sd = eigenvalues.tail(kReleaseDims).array().sqrt().inverse();
  whitener.w = (vectors.rightCols(kReleaseDims).array().rowwise() * inverse_sd.transpose())
                   .matrix()
                   .transpose();
  return whitener;
}

Eigen::MatrixXd RotationFromGaussian(const Eigen::MatrixXd& gaussian) {
  Eigen::HouseholderQR<Eigen::MatrixXd> qr(gaussian);
  Eigen::MatrixXd q = qr.householderQ();
  const Eigen::MatrixXd& packed = qr.matrixQR();  // R is its upper triangle
  for (Eigen::Index column = 0; column < q.cols(); ++column) {
    if (packed(column, column) < 0) q.col(column) *= -1.0;
  }
  return q;
}

Eigen::MatrixXd HaarRotation(KeyedStream& stream) {
  Eigen::Matrix<double, Eigen::Dynamic, Eigen::Dynamic, Eigen::RowMajor> gaussian(kReleaseDims,
                                                                                  kReleaseDims);
  stream.FillNormals(gaussian.data(), static_cast<size_t>(gaussian.size()));
  return RotationFromGaussian(gaussian);
}

std::vector<float> ApplyRelease(const RowSource& rows, const Eigen::VectorXd& mu,
                                const Eigen::MatrixXd& transform) {
  const Eigen::Index dims = transform.rows();
  std::vector<float> out(rows.size() * static_cast<size_t>(dims));
  Eigen::MatrixXd released(dims, static_cast<Eigen::Index>(kBlockRows));
  // Row-major n x 60 is column-major 60 x n: each block is one product written in place.
  ForEachCenteredBlock(
      rows, 0, rows.size(), mu, [&](const auto& block, size_t start, size_t count) {
        const auto columns = static_cast<Eigen::Index>(count);
        released.leftCols(columns).noalias() = transform * block;
        Eigen::Map<Eigen::MatrixXf>(out.data() + start * static_cast<size_t>(dims), dims, columns) =
            released.leftCols(columns).cast<float>();
      });
  return out;
}

Result<Released> ReleaseRows(const RowSource& rows, size_t n_train, const Eigen::MatrixXd& rotation,
                             const std::string& what) {
  if (rotation.rows() != kReleaseDims || rotation.cols() != kReleaseDims) {
    return Status::Internal(what + ": a release needs a 60x60 rotation");
  }
  Result<Whitener> whitener = FitWhitener(rows, n_train, what);
  if (!whitener.ok()) return whitener.status();
  Released released;
  released.mu = std::move(whitener->mu);
  released.transform = rotation * whitener->w;
  released.z = ApplyRelease(rows, released.mu, released.transform);
  return released;
}

}  // namespace ratchet
