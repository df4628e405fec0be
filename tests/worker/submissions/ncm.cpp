// Test submission: nearest class mean, the smallest method that learns a draw.
#include <ratchet/method.h>

torch::Tensor method(const torch::Tensor& train_x, const torch::Tensor& train_y,
                     const torch::Tensor& test_x) {
  auto options = train_x.options();
  torch::Tensor sums = torch::zeros({10, train_x.size(1)}, options).index_add_(0, train_y, train_x);
  torch::Tensor counts =
      torch::zeros({10}, options).index_add_(0, train_y, torch::ones({train_x.size(0)}, options));
  torch::Tensor means = sums / counts.clamp_min(1).unsqueeze(1);
  // argmin over classes of |x - m|^2 = |x|^2 - 2 x.m + |m|^2; |x|^2 is the same for every class.
  return (means.pow(2).sum(1) - 2 * test_x.mm(means.t())).argmin(1);
}

RATCHET_METHOD(method)
