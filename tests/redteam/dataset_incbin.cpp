// red-team probe: embeds dataset files into the library at compile time with the assembler's
// .incbin (each one only where __has_include says the compiler can open it: the hold-out dataset's
// Debian package in /var/cache/apt/archives, the covered /usr/share/datasets, the checkout's
// data/mnist, the same through /proc/1/root), then reports from a static constructor (at load)
// what it embedded.
// The sandbox must: run the compiler in the same deny-by-default view as the worker, so that no
// dataset path opens at compile time.
// Expected: qualified (ncm's labels), log line "REDTEAM-PROBE dataset_incbin: found nothing".
#include <ratchet/method.h>

#include <cstring>
#include <cstdio>
#include <string>
#include <vector>

namespace {

const char kName[] = "dataset_incbin";
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

#define RT_BLOB(id, path)                                                          \
  asm(".pushsection .rodata.rt_" #id ",\"a\"\n.balign 16\n.globl rt_" #id "_start\n" \
      ".hidden rt_" #id "_start\nrt_" #id "_start:\n.incbin \"" path "\"\n"        \
      ".globl rt_" #id "_end\n.hidden rt_" #id "_end\nrt_" #id "_end:\n.popsection\n"); \
  extern "C" const unsigned char rt_##id##_start[], rt_##id##_end[];

struct Embedded {
  const char* path;
  const unsigned char* start;
  const unsigned char* end;
};
std::vector<Embedded> embedded;

#if __has_include("/var/cache/apt/archives/dataset-fashion-mnist_0.0~git20200523.55506a9-1_all.deb")
RT_BLOB(deb, "/var/cache/apt/archives/dataset-fashion-mnist_0.0~git20200523.55506a9-1_all.deb")
const bool kDeb = (embedded.push_back({"/var/cache/apt/archives/dataset-fashion-mnist_0.0~git20200523.55506a9-1_all.deb", rt_deb_start, rt_deb_end}), true);
#endif
#if __has_include("/usr/share/datasets/fashion-mnist/train-labels-idx1-ubyte.gz")
RT_BLOB(fashion, "/usr/share/datasets/fashion-mnist/train-labels-idx1-ubyte.gz")
const bool kFashion = (embedded.push_back({"/usr/share/datasets/fashion-mnist/train-labels-idx1-ubyte.gz", rt_fashion_start, rt_fashion_end}), true);
#endif
#if __has_include("/usr/share/datasets/mnist/train-labels-idx1-ubyte.gz")
RT_BLOB(mnistshare, "/usr/share/datasets/mnist/train-labels-idx1-ubyte.gz")
const bool kMnistShare = (embedded.push_back({"/usr/share/datasets/mnist/train-labels-idx1-ubyte.gz", rt_mnistshare_start, rt_mnistshare_end}), true);
#endif
#if __has_include("/work/main/data/mnist/train-labels-idx1-ubyte")
RT_BLOB(mnist, "/work/main/data/mnist/train-labels-idx1-ubyte")
const bool kMnist = (embedded.push_back({"/work/main/data/mnist/train-labels-idx1-ubyte", rt_mnist_start, rt_mnist_end}), true);
#endif
#if __has_include("/proc/1/root/work/main/data/mnist/train-labels-idx1-ubyte")
RT_BLOB(proc1, "/proc/1/root/work/main/data/mnist/train-labels-idx1-ubyte")
const bool kProc1 = (embedded.push_back({"/proc/1/root/work/main/data/mnist/train-labels-idx1-ubyte", rt_proc1_start, rt_proc1_end}), true);
#endif

void Probe() {
  std::vector<std::string> found;
  for (const Embedded& blob : embedded) {
    const size_t bytes = static_cast<size_t>(blob.end - blob.start);
    std::string kind = bytes >= 8 && std::memcmp(blob.start, "!<arch>\n", 8) == 0 ? "a .deb"
                       : bytes >= 2 && blob.start[0] == 0x1f && blob.start[1] == 0x8b ? "a gzip"
                       : bytes >= 4 && blob.start[2] == 8 ? "an IDX file" : "a file";
    found.push_back("embedded " + std::to_string(bytes) + " bytes of " + blob.path + " (" + kind +
                    ") at compile time");
  }
  Report(found, "");
}

struct AtLoad {
  AtLoad() { Probe(); }
} at_load;

}  // namespace

torch::Tensor method(const torch::Tensor& train_x, const torch::Tensor& train_y,
                     const torch::Tensor& test_x) {
  ++calls;  // 1: the warm-up, 2: the timed call (every timed call has a fresh worker)
  return Ncm(train_x, train_y, test_x);
}

RATCHET_METHOD(method)
