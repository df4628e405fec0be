// Nearest class means returned as uint8 in one piece, with every 50th row set to 200, which is
// not a label. The labels step copies the output in its own dtype; scripts/gpu-test expects byte
// 255 at every 50th row of each call's labels and the nearest class mean's labels (0 to 9, most
// of them correct) everywhere else.
#include <ratchet/method.h>

torch::Tensor method(const torch::Tensor& train_x, const torch::Tensor& train_y,
                     const torch::Tensor& test_x) {
  constexpr int64_t kClasses = 10;
  torch::Tensor sums = torch::zeros({kClasses, train_x.size(1)}, train_x.options());
  sums.index_add_(0, train_y, train_x);
  torch::Tensor counts =
      torch::bincount(train_y, {}, kClasses).clamp_min(1).to(train_x.scalar_type());
  torch::Tensor means = sums / counts.unsqueeze(1);
  torch::Tensor distances = (means * means).sum(1).unsqueeze(0) - 2.0 * test_x.mm(means.t());
  torch::Tensor labels = distances.argmin(1).to(torch::kUInt8);
  labels.slice(0, 0, labels.size(0), 50).fill_(200);
  return labels;
}

RATCHET_METHOD(method)
