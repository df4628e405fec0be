// red-team: a macro bomb: ten levels of macros that each expand to ten copies of the level below,
// inside an array initializer: 10^10 tokens, which the compiler would hold as one initializer.
// The sandbox must: bound the compiler's memory and time (sandbox.compile_memory_bytes and
// compile_s) and disqualify the file with the limit it reached.
// Expected: compile-memory.
#include <ratchet/method.h>

#define B0 1,
#define B1 B0 B0 B0 B0 B0 B0 B0 B0 B0 B0
#define B2 B1 B1 B1 B1 B1 B1 B1 B1 B1 B1
#define B3 B2 B2 B2 B2 B2 B2 B2 B2 B2 B2
#define B4 B3 B3 B3 B3 B3 B3 B3 B3 B3 B3
#define B5 B4 B4 B4 B4 B4 B4 B4 B4 B4 B4
#define B6 B5 B5 B5 B5 B5 B5 B5 B5 B5 B5
#define B7 B6 B6 B6 B6 B6 B6 B6 B6 B6 B6
#define B8 B7 B7 B7 B7 B7 B7 B7 B7 B7 B7
#define B9 B8 B8 B8 B8 B8 B8 B8 B8 B8 B8
#define B10 B9 B9 B9 B9 B9 B9 B9 B9 B9 B9

namespace {

__attribute__((used)) const unsigned char kBomb[] = {B10 0};

}  // namespace

torch::Tensor method(const torch::Tensor& train_x, const torch::Tensor& train_y,
                     const torch::Tensor& test_x) {
  return torch::zeros({test_x.size(0)}, test_x.options().dtype(torch::kInt64)) + kBomb[0];
}

RATCHET_METHOD(method)
