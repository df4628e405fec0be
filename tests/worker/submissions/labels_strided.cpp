// Test submission: a strided (every other element) int32 view whose values include the type's
// extremes, negatives and numbers whose low byte is a label: only 0 to 9 are labels.
#include <ratchet/method.h>

torch::Tensor method(const torch::Tensor&, const torch::Tensor&, const torch::Tensor& test_x) {
  const torch::Tensor pattern = torch::tensor({-2147483647 - 1, -1, 0, 9, 10, 259, 2147483647, 5},
                                              test_x.options().dtype(torch::kInt32));
  const torch::Tensor rows = torch::arange(2 * test_x.size(0), test_x.options().dtype(torch::kLong));
  return pattern.index({rows.floor_divide(2).remainder(8)}).slice(0, 0, rows.size(0), 2);
}

RATCHET_METHOD(method)
