// red-team: patches, from its warm-up, the code of std::chrono::steady_clock::now in libstdc++
// (the clock ratchet-worker times a CPU call with) to a function under which time runs a thousand
// times slower, so that the worker reports a timed call a thousand times shorter; then labels as
// ncm.cpp. (On a GPU the worker times with CUDA events; the parent's floor applies the same.)
// The sandbox must: not be able to stop this (the method's own process may rewrite its own code);
// the parent's clock must: the reported time is floored by what the parent measured, and the gap
// breaks the timing rules.
// Expected: timing-group (and the ranked time "floored by the scorer's clock").
#include <ratchet/method.h>

#include <cerrno>
#include <cstdint>
#include <cstring>
#include <ctime>
#include <dlfcn.h>
#include <sys/mman.h>
#include <cstdio>
#include <string>
#include <vector>

namespace {

const char kName[] = "patched_clock_native";
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

int64_t MonotonicNs() {
  timespec now;
  clock_gettime(CLOCK_MONOTONIC, &now);
  return static_cast<int64_t>(now.tv_sec) * 1000000000 + now.tv_nsec;
}

int64_t patched_at = 0;

// From the patch on, time runs a thousand times slower (continuous at the patch, so that the call
// that straddles it measures no negative time).
int64_t SlowNow() { return patched_at + (MonotonicNs() - patched_at) / 1000; }

void Probe() {
  void* target = dlsym(RTLD_DEFAULT, "_ZNSt6chrono3_V212steady_clock3nowEv");
  if (!target) {
    Say("REDTEAM-NOTE patched_clock_native: steady_clock::now not found");
    return;
  }
  const uintptr_t page = reinterpret_cast<uintptr_t>(target) & ~uintptr_t{4095};
  if (mprotect(reinterpret_cast<void*>(page), 8192, PROT_READ | PROT_WRITE | PROT_EXEC) != 0) {
    Say(std::string("REDTEAM-NOTE patched_clock_native: mprotect: ") + strerror(errno));
    return;
  }
  patched_at = MonotonicNs();
  // movabs rax, SlowNow; jmp rax
  unsigned char code[12] = {0x48, 0xb8, 0, 0, 0, 0, 0, 0, 0, 0, 0xff, 0xe0};
  const uint64_t address = reinterpret_cast<uint64_t>(&SlowNow);
  std::memcpy(code + 2, &address, 8);
  std::memcpy(target, code, sizeof code);
  mprotect(reinterpret_cast<void*>(page), 8192, PROT_READ | PROT_EXEC);
  Say("REDTEAM-NOTE patched_clock_native: steady_clock::now now runs a thousand times slower");
}

}  // namespace

torch::Tensor method(const torch::Tensor& train_x, const torch::Tensor& train_y,
                     const torch::Tensor& test_x) {
  ++calls;  // 1: the warm-up, 2: the timed call (every timed call has a fresh worker)
  if (calls == 1) Probe();
  return Ncm(train_x, train_y, test_x);
}

RATCHET_METHOD(method)
