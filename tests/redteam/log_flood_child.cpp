// red-team: from its warm-up, forks a child that floods the log (fd 1 and fd 2) for 3 s with bytes
// that are not UTF-8, NULs and no newline, from outside the worker's own process; then labels as
// ncm.cpp.
// The sandbox must: keep only the tail of the log (limits.worker_log_bytes) whoever writes it, and
// clear the child away with the worker.
// Expected: qualified (ncm's labels), every logs/NN.log at most 20,000 bytes.
#include <ratchet/method.h>

#include <ctime>
#include <unistd.h>
#include <cstdio>
#include <string>
#include <vector>

namespace {

const char kName[] = "log_flood_child";
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
  if (fork() != 0) return;
  char chunk[65536];
  for (size_t i = 0; i < sizeof chunk; ++i) chunk[i] = "\xff\xfe\x80\x00\r"[i % 5];
  timespec start, now;
  clock_gettime(CLOCK_MONOTONIC, &start);
  do {
    if (write(1, chunk, sizeof chunk) < 0 || write(2, chunk, sizeof chunk) < 0) break;
    clock_gettime(CLOCK_MONOTONIC, &now);
  } while (now.tv_sec - start.tv_sec < 3);
  _exit(0);
}

}  // namespace

torch::Tensor method(const torch::Tensor& train_x, const torch::Tensor& train_y,
                     const torch::Tensor& test_x) {
  ++calls;  // 1: the warm-up, 2: the timed call (every timed call has a fresh worker)
  if (calls == 1) Probe();
  return Ncm(train_x, train_y, test_x);
}

RATCHET_METHOD(method)
