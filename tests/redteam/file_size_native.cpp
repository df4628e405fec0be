// red-team: writes one file past the largest file size from native code in the warm-up, with
// SIGXFSZ left at its default (the kernel kills the process at the limit).
// The sandbox must: stop the write at sandbox.file_bytes and disqualify the method with the rule
// that names the limit, not as a crash.
// Expected: disk.
#include <ratchet/method.h>

#include <fcntl.h>
#include <unistd.h>

#include <vector>

namespace {

int calls = 0;

void Fill() {
  int fd = open("big", O_WRONLY | O_CREAT | O_TRUNC, 0600);
  if (fd < 0) return;
  std::vector<char> chunk(1 << 20, 1);
  for (int i = 0; i < 4096; ++i) {
    if (write(fd, chunk.data(), chunk.size()) < 0) break;
  }
  close(fd);
}

}  // namespace

// baselines/submissions/ncm.cpp: nearest class mean, about 15% error.
torch::Tensor method(const torch::Tensor& train_x, const torch::Tensor& train_y,
                     const torch::Tensor& test_x) {
  ++calls;  // 1: the warm-up, 2: the timed call (every timed call has a fresh worker)
  if (calls == 1) Fill();
  torch::Tensor sums = torch::zeros({10, train_x.size(1)}, train_x.options());
  sums.index_add_(0, train_y, train_x);
  torch::Tensor counts = torch::bincount(train_y, {}, 10).clamp_min(1).to(train_x.scalar_type());
  torch::Tensor means = sums / counts.unsqueeze(1);
  return ((means * means).sum(1).unsqueeze(0) - 2.0 * test_x.mm(means.t())).argmin(1);
}

RATCHET_METHOD(method)
