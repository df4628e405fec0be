// red-team: #include "/dev/zero": the preprocessor reads a file that never ends, growing its
// buffer until the compiler runs out of memory (or time).
// NOT RUN on the development machine: without a memory bound on the compiler it takes the machine's
// memory.
// The sandbox must: bound the compiler's memory and time (and, with a minimal /dev, it may not
// even open /dev/zero) and report "does not compile".
// Expected: source.
#include <ratchet/method.h>

#include "/dev/zero"

torch::Tensor method(const torch::Tensor& train_x, const torch::Tensor& train_y,
                     const torch::Tensor& test_x) {
  return torch::zeros({test_x.size(0)}, test_x.options().dtype(torch::kInt64));
}

RATCHET_METHOD(method)
