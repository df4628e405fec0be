// red-team: in its warm-up, writes the 12-byte header of a reply frame to the reply pipe (fd 4)
// announcing a JSON text of 0x7fffffff bytes, far above limits.max_header (65,536), then returns;
// the worker's real reply follows it.
// The sandbox must: have the parent refuse the frame on its header alone, before it allocates or
// reads anything more, as the worker's fault.
// Expected: crash ("the worker sent a malformed frame while ...").
#include <ratchet/method.h>

#include <unistd.h>
#include <cstdio>
#include <string>
#include <vector>

namespace {

const char kName[] = "forged_oversized_frame";
int calls = 0;

void Say(const std::string& line) {
  std::fprintf(stderr, "%s\n", line.substr(0, 4000).c_str());
  std::fflush(stderr);
}

// One "REDTEAM-PROBE <name>: found nothing" or "... ESCAPE <what>" line (and a NOTE line).
void Report(const std::vector<std::string>& found, const std::string& note) {
  if (!note.empty()) Say(std::string("REDTEAM-NOTE ") + kName + ": " + note);
  std::string line = std::string("REDTEAM-PROBE ") + kName + ": ";
  if (found.empty()) {
    line += "found nothing";
  } else {
    line += "ESCAPE";
    for (size_t i = 0; i < found.size(); ++i) line += (i ? "; " : " ") + found[i];
  }
  Say(line);
}

// baselines/submissions/ncm.cpp: nearest class mean, about 15% error.
torch::Tensor Ncm(const torch::Tensor& train_x, const torch::Tensor& train_y,
                  const torch::Tensor& test_x) {
  torch::Tensor sums = torch::zeros({10, train_x.size(1)}, train_x.options());
  sums.index_add_(0, train_y, train_x);
  torch::Tensor counts = torch::bincount(train_y, {}, 10).clamp_min(1).to(train_x.scalar_type());
  torch::Tensor means = sums / counts.unsqueeze(1);
  return ((means * means).sum(1).unsqueeze(0) - 2.0 * test_x.mm(means.t())).argmin(1);
}

void Probe() {
  const unsigned char header[12] = {'R', 'C', 'T', '1', 0xff, 0xff, 0xff, 0x7f, 0, 0, 0, 0};
  ssize_t wrote = write(4, header, sizeof header);
  Say("REDTEAM-NOTE forged_oversized_frame: wrote " + std::to_string(wrote) + " header bytes");
}

}  // namespace

torch::Tensor method(const torch::Tensor& train_x, const torch::Tensor& train_y,
                     const torch::Tensor& test_x) {
  ++calls;  // 1: the warm-up, 2: the timed call (every timed call has a fresh worker)
  if (calls == 1) Probe();
  return Ncm(train_x, train_y, test_x);
}

RATCHET_METHOD(method)
