// Test submission: int64 labels 0 to 9, but for two values whose lowest byte is a label and whose
// other bytes are not all zero (2^40 + 3 at row 4999, -254 at the last row): only 0 to 9 are
// labels, and a value must be read whole even when every other value is a label.
#include <ratchet/method.h>

torch::Tensor method(const torch::Tensor&, const torch::Tensor&, const torch::Tensor& test_x) {
  const int64_t rows = test_x.size(0);
  torch::Tensor out = torch::arange(rows, test_x.options().dtype(torch::kLong)).remainder(10);
  out.index_put_({4999}, (int64_t{1} << 40) + 3);
  out.index_put_({rows - 1}, int64_t{-254});
  return out;
}

RATCHET_METHOD(method)
