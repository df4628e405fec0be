// Test submission: int32 labels 0, 1, ..., 20, 0, 1, ...: those above 9 are not labels.
#include <ratchet/method.h>

torch::Tensor method(const torch::Tensor&, const torch::Tensor&, const torch::Tensor& test_x) {
  return torch::arange(test_x.size(0), test_x.options().dtype(torch::kInt32)).remainder(21);
}

RATCHET_METHOD(method)
