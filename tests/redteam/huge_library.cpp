// red-team: a 1.3 KB source that compiles to a library of about 960 MiB: one initialized array
// (its first byte nonzero, so it lands in .rodata and on disk, not in .bss), each file under
// RLIMIT_FSIZE (1 GiB), so only a bound on what the compile writes stops it. Loaded, it would be
// copied into every worker's folder.
// The sandbox must: stop the compile at its output bound (sandbox.compile_output_bytes, the
// compile's RLIMIT_FSIZE) and disqualify the file with the rule that names it.
// Expected: compile-output.
#include <ratchet/method.h>

namespace {

__attribute__((used)) const unsigned char kBallast[960u << 20] = {1};

}  // namespace

torch::Tensor method(const torch::Tensor& train_x, const torch::Tensor& train_y,
                     const torch::Tensor& test_x) {
  torch::Tensor sums = torch::zeros({10, train_x.size(1)}, train_x.options());
  sums.index_add_(0, train_y, train_x);
  torch::Tensor counts =
      torch::bincount(train_y, {}, 10).clamp_min(1).to(train_x.scalar_type()) + kBallast[1];
  torch::Tensor means = sums / counts.unsqueeze(1);
  return ((means * means).sum(1).unsqueeze(0) - 2.0 * test_x.mm(means.t())).argmin(1);
}

RATCHET_METHOD(method)
