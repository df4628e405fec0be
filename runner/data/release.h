// The release of a draw: z = Q W (x - mu). W whitens onto the top 60 principal directions of
// the draw's training rows (float64, eigenvector signs pinned), Q is a Haar-random rotation.
// A worker sees only z; mu, W and Q stay in the parent.
#ifndef RATCHET_DATA_RELEASE_H_
#define RATCHET_DATA_RELEASE_H_

#include <Eigen/Dense>
#include <cstddef>
#include <string>
#include <vector>

#include "core/status.h"
#include "data/keyed_stream.h"

namespace ratchet {

inline constexpr int kReleaseDims = 60;
// The rank check: the smallest kept variance must exceed this.
inline constexpr double kMinKeptVariance = 1e-10;

// Rows of 81 values to fit or release. They are fetched a block at a time, converted to
// float64, so that a release never holds all its rows in float64 at once (the blocks stay in
// cache; the figures are in docs/performance.md).
class RowSource {
 public:
  virtual ~RowSource() = default;
  virtual size_t size() const = 0;
  // Rows [first, first + count) as the columns of `out`, an 81 x count column-major matrix.
  virtual void Gather(size_t first, size_t count, double* out) const = 0;
};

// The columns of an 81 x n matrix as rows (tests and the differential probe).
class MatrixRows : public RowSource {
 public:
  explicit MatrixRows(const Eigen::MatrixXd& columns) : columns_(columns) {}
  size_t size() const override { return static_cast<size_t>(columns_.cols()); }
  void Gather(size_t first, size_t count, double* out) const override;

 private:
  const Eigen::MatrixXd& columns_;
};

struct Whitener {
  Eigen::VectorXd mu;  // 81, the mean of the training rows
  Eigen::MatrixXd w;   // 60 x 81, rows in ascending order of variance
};

// Fits the whitener to the first `n_train` rows of `rows` (n_train >= 2): mean, covariance with
// n - 1, eigen-decomposition, eigenvalues clipped at 0, each eigenvector's sign chosen so that
// its entry of largest magnitude (the first on ties) is positive, the top 60 kept and
// W = (V / sqrt(lambda))^T. A smallest kept variance <= 1e-10 is an error that names `what`.
Result<Whitener> FitWhitener(const RowSource& rows, size_t n_train, const std::string& what);

// The Haar rotation of a 60x60 Gaussian matrix: the Q of its QR decomposition with each column
// multiplied by the sign of R's diagonal entry (a zero counts as +1).
Eigen::MatrixXd RotationFromGaussian(const Eigen::MatrixXd& gaussian);
// 3600 normals from `stream`, filled row by row, through RotationFromGaussian.
Eigen::MatrixXd HaarRotation(KeyedStream& stream);

// float32((x - mu) transform^T) for every row x of `rows`: n x 60, row-major.
std::vector<float> ApplyRelease(const RowSource& rows, const Eigen::VectorXd& mu,
                                const Eigen::MatrixXd& transform);

// A release of rows: the whitener fitted to the first `n_train` rows, transform = rotation W,
// and z = float32((x - mu) transform^T) of every row, train rows first, n x 60 row-major.
// The one function behind every draw and the differential probe.
struct Released {
  Eigen::VectorXd mu;         // 81
  Eigen::MatrixXd transform;  // 60 x 81
  std::vector<float> z;       // n x 60, row-major
};
Result<Released> ReleaseRows(const RowSource& rows, size_t n_train, const Eigen::MatrixXd& rotation,
                             const std::string& what);

}  // namespace ratchet

#endif  // RATCHET_DATA_RELEASE_H_
