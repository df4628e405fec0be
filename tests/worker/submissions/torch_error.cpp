// Test submission: a libtorch error (a product of mismatched shapes).
#include <ratchet/method.h>

torch::Tensor method(const torch::Tensor& train_x, const torch::Tensor&,
                     const torch::Tensor& test_x) {
  return torch::mm(train_x, test_x).argmax(1);
}

RATCHET_METHOD(method)
