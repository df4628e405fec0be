// red-team: #include "/dev/zero": the preprocessor reads a file that never ends, growing its
// buffer until the compiler runs out of memory (or time).
// The sandbox must: bound the compiler's memory and time (sandbox.compile_memory_bytes and
// compile_s) and disqualify the file with the limit it reached.
// Expected: compile-memory.
#include <ratchet/method.h>

#include "/dev/zero"

torch::Tensor method(const torch::Tensor& train_x, const torch::Tensor& train_y,
                     const torch::Tensor& test_x) {
  return torch::zeros({test_x.size(0)}, test_x.options().dtype(torch::kInt64));
}

RATCHET_METHOD(method)
