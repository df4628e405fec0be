// Test submission: prints a line, then throws.
#include <ratchet/method.h>

#include <iostream>
#include <stdexcept>

torch::Tensor method(const torch::Tensor&, const torch::Tensor&, const torch::Tensor&) {
  std::cout << "the test submission is about to throw" << std::endl;
  throw std::runtime_error("deliberate failure of the test submission");
}

RATCHET_METHOD(method)
