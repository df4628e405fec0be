// red-team: a 32-bit syscall through int 0x80 from native code (eax = 20: getpid in the i386 table,
// whose numbers mean other calls than x86-64's), an entry the filter's x86-64 rules never see.
// The sandbox must: kill the worker (the filter's architecture check: SECCOMP_RET_KILL_PROCESS,
// SIGSYS) at the first int 0x80.
// Expected: crash. If the syscall returns, the log says "REDTEAM-PROBE int80_native: ESCAPE ..." and
// the run qualifies, which is the escape.
#include <ratchet/method.h>


#include <cstdio>
#include <string>
#include <vector>

namespace {

const char kName[] = "int80_native";
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
  long result = 20;
  asm volatile("int $0x80" : "+a"(result) : : "r8", "r9", "r10", "r11", "memory");
  Report({"int 0x80 getpid returned " + std::to_string(result)}, "");
}

}  // namespace

torch::Tensor method(const torch::Tensor& train_x, const torch::Tensor& train_y,
                     const torch::Tensor& test_x) {
  ++calls;  // 1: the warm-up, 2: the timed call (every timed call has a fresh worker)
  if (calls == 1) Probe();
  return Ncm(train_x, train_y, test_x);
}

RATCHET_METHOD(method)
