// red-team: a source that compiles to 3 GiB of initialized data (three arrays of 1 GiB): the
// assembler's object file passes RLIMIT_FSIZE (1 GiB) and the disk fills with whatever the compile
// may write.
// The sandbox must: stop the compile (its RLIMIT_FSIZE, sandbox.compile_output_bytes, kills the
// assembler with SIGXFSZ) and disqualify the file with the rule that names the limit.
// Expected: compile-output.
#include <ratchet/method.h>

namespace {

__attribute__((used)) const unsigned char kBallastA[1u << 30] = {1};
__attribute__((used)) const unsigned char kBallastB[1u << 30] = {2};
__attribute__((used)) const unsigned char kBallastC[1u << 30] = {3};

}  // namespace

torch::Tensor method(const torch::Tensor& train_x, const torch::Tensor& train_y,
                     const torch::Tensor& test_x) {
  torch::Tensor sums = torch::zeros({10, train_x.size(1)}, train_x.options());
  sums.index_add_(0, train_y, train_x);
  torch::Tensor counts = torch::bincount(train_y, {}, 10).clamp_min(1).to(train_x.scalar_type()) +
                         (kBallastA[1] + kBallastB[1] + kBallastC[1]);
  torch::Tensor means = sums / counts.unsqueeze(1);
  return ((means * means).sum(1).unsqueeze(0) - 2.0 * test_x.mm(means.t())).argmin(1);
}

RATCHET_METHOD(method)
