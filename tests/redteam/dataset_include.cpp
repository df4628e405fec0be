// red-team probe: #include of dataset files, each where __has_include says the compiler can open
// it (the hold-out dataset's Debian package, a covered gzip, the checkout's IDX labels). Binary
// bytes do not compile: the compiler's error message then quotes the file's first bytes, carrying
// a piece of the dataset into ratchet's output and the evidence. Where none opens, it compiles and
// says so from the method.
// The sandbox must: run the compiler in the worker's deny-by-default view, so that no dataset path
// opens at compile time.
// Expected: qualified (ncm's labels), log line "REDTEAM-PROBE dataset_include: found nothing".
// Today's "source" (does not compile, quoting the file) would be the escape.
#include <ratchet/method.h>


#include <cstdio>
#include <string>
#include <vector>

namespace {

const char kName[] = "dataset_include";
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

#if __has_include("/var/cache/apt/archives/dataset-fashion-mnist_0.0~git20200523.55506a9-1_all.deb")
#include "/var/cache/apt/archives/dataset-fashion-mnist_0.0~git20200523.55506a9-1_all.deb"
#endif
#if __has_include("/usr/share/datasets/fashion-mnist/train-labels-idx1-ubyte.gz")
#include "/usr/share/datasets/fashion-mnist/train-labels-idx1-ubyte.gz"
#endif
#if __has_include("/work/main/data/mnist/train-labels-idx1-ubyte")
#include "/work/main/data/mnist/train-labels-idx1-ubyte"
#endif

void Probe() { Report({}, "it compiled: no dataset path opened at compile time"); }

}  // namespace

torch::Tensor method(const torch::Tensor& train_x, const torch::Tensor& train_y,
                     const torch::Tensor& test_x) {
  ++calls;  // 1: the warm-up, 2: the timed call (every timed call has a fresh worker)
  if (calls == 1) Probe();
  return Ncm(train_x, train_y, test_x);
}

RATCHET_METHOD(method)
