// Test submission: int8 labels, row i holding (i mod 256) - 128: every value of the type, of
// which only 0 to 9 are labels.
#include <ratchet/method.h>

torch::Tensor method(const torch::Tensor&, const torch::Tensor&, const torch::Tensor& test_x) {
  const torch::Tensor rows = torch::arange(test_x.size(0), test_x.options().dtype(torch::kLong));
  return (rows.remainder(256) - 128).to(torch::kInt8);
}

RATCHET_METHOD(method)
