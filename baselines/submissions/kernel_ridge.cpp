// Kernel ridge regression with a Gaussian kernel, measured in a metric fitted to the labels: the
// native twin of kernel_ridge.py, operation for operation.
//
// The release whitens the draw onto its top 60 principal directions, so every direction, noise
// included, arrives with unit variance, and a plain Gaussian kernel weighs them all alike. This
// method first whitens the within-class scatter instead: directions along which the classes
// differ are stretched, the rest are left near unit scale. The fit is then one Cholesky solve of
// the kernel matrix of the training rows against one-hot labels: closed form, no random numbers,
// the same labels on every run. About 3.7% error on MNIST draws (difficulty 1 allows 5.40%).
#include <ratchet/method.h>

namespace {

constexpr int64_t kClasses = 10;
// The kernel's width, as a fraction of the root of the rows' total variance.
constexpr double kBandwidth = 0.85;
// Added to the kernel matrix's diagonal, whose entries are 1.
constexpr double kRidge = 0.01;
// The smallest within-class variance a direction is divided by.
constexpr double kEigenFloor = 1e-3;

// exp(-gamma |u - v|^2) for every row u of `u` and v of `v`, given their squared norms.
torch::Tensor Gaussian(const torch::Tensor& u, const torch::Tensor& u2, const torch::Tensor& v,
                       const torch::Tensor& v2, const torch::Tensor& gamma) {
  torch::Tensor squared = u2.unsqueeze(1) + v2.unsqueeze(0) - 2.0 * u.mm(v.t());
  return torch::exp(-gamma * squared.clamp_min(0.0));
}

}  // namespace

torch::Tensor method(const torch::Tensor& train_x, const torch::Tensor& train_y,
                     const torch::Tensor& test_x) {
  // The within-class scatter, and the map that whitens it.
  torch::Tensor means = torch::zeros({kClasses, train_x.size(1)}, train_x.options());
  means.index_add_(0, train_y, train_x);
  torch::Tensor counts =
      torch::bincount(train_y, {}, kClasses).clamp_min(1).to(train_x.scalar_type());
  means = means / counts.unsqueeze(1);
  torch::Tensor within = train_x - means.index_select(0, train_y);
  auto [values, vectors] = torch::linalg_eigh(within.t().mm(within) / train_x.size(0), "L");
  torch::Tensor metric = vectors / values.clamp_min(kEigenFloor).sqrt();
  torch::Tensor a = train_x.mm(metric);
  torch::Tensor b = test_x.mm(metric);

  // Gaussian kernel exp(-gamma |u - v|^2), its width set by the total variance of the rows.
  torch::Tensor centered = a - a.mean(0);
  torch::Tensor gamma =
      0.5 / (kBandwidth * kBandwidth * (centered * centered).sum() / (a.size(0) - 1));
  torch::Tensor a2 = (a * a).sum(1);
  torch::Tensor b2 = (b * b).sum(1);
  torch::Tensor factor;
  {
    torch::Tensor kernel = Gaussian(a, a2, a, a2, gamma);
    kernel.diagonal().add_(kRidge);
    factor = torch::linalg_cholesky(kernel);
  }
  torch::Tensor targets = torch::one_hot(train_y, kClasses).to(train_x.scalar_type());
  torch::Tensor weights = torch::cholesky_solve(targets, factor);
  factor.reset();
  return Gaussian(b, b2, a, a2, gamma).mm(weights).argmax(1);
}

RATCHET_METHOD(method)
