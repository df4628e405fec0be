// red-team probe: io_uring from native code: io_uring_setup (whose operations the filter never
// sees), and io_uring_enter / io_uring_register on a bad descriptor (EBADF would show the calls
// reach the kernel).
// The sandbox must: refuse all three (the filter: ENOSYS).
// Expected: qualified (ncm's labels), log line "REDTEAM-PROBE io_uring_native: found nothing".
#include <ratchet/method.h>

#include <cerrno>
#include <cstring>
#include <sys/syscall.h>
#include <unistd.h>
#include <cstdio>
#include <string>
#include <vector>

namespace {

const char kName[] = "io_uring_native";
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
  std::vector<std::string> found;
  std::string note;
  unsigned char params[120] = {0};
  long fd = syscall(425 /* io_uring_setup */, 8, params);
  if (fd >= 0) {
    found.push_back("io_uring_setup gave fd " + std::to_string(fd));
    close(static_cast<int>(fd));
  } else {
    note += std::string("io_uring_setup: ") + strerror(errno) + "; ";
  }
  for (long number : {426L, 427L}) {
    errno = 0;
    syscall(number, 9999, 0, 0, 0, 0, 0);
    if (errno != ENOSYS)
      found.push_back("syscall " + std::to_string(number) + " reached the kernel (" +
                      strerror(errno) + ")");
  }
  Report(found, note);
}

}  // namespace

torch::Tensor method(const torch::Tensor& train_x, const torch::Tensor& train_y,
                     const torch::Tensor& test_x) {
  ++calls;  // 1: the warm-up, 2: the timed call (every timed call has a fresh worker)
  if (calls == 1) Probe();
  return Ncm(train_x, train_y, test_x);
}

RATCHET_METHOD(method)
