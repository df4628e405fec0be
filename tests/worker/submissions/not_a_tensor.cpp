// Test submission: returns no tensor at all (a default-constructed, undefined one).
#include <ratchet/method.h>

torch::Tensor method(const torch::Tensor&, const torch::Tensor&, const torch::Tensor&) {
  return torch::Tensor();
}

RATCHET_METHOD(method)
