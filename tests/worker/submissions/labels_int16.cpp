// Test submission: int16 labels cycling through the type's extremes, -1, 10 and numbers whose low
// byte is a label (259, -251, 512): only 0 to 9 are labels.
#include <ratchet/method.h>

torch::Tensor method(const torch::Tensor&, const torch::Tensor&, const torch::Tensor& test_x) {
  const torch::Tensor pattern = torch::tensor({-32768, -1, 0, 9, 10, 259, 32767, 5, -251, 512},
                                              test_x.options().dtype(torch::kInt16));
  const torch::Tensor rows = torch::arange(test_x.size(0), test_x.options().dtype(torch::kLong));
  return pattern.index({rows.remainder(10)});
}

RATCHET_METHOD(method)
