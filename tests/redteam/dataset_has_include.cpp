// red-team probe: asks the compiler, with __has_include, which dataset paths it can open (the
// hold-out dataset's Debian package, the covered /usr/share/datasets, the checkout's data/mnist,
// /proc/1/root/..., root's keras cache), plus two controls that must open (<cstdio>,
// /usr/include/stdio.h), and reports the answers from the method.
// The sandbox must: run the compiler in the worker's deny-by-default view: no dataset path opens.
// Expected: qualified (ncm's labels), log line "REDTEAM-PROBE dataset_has_include: found nothing".
#include <ratchet/method.h>


#include <cstdio>
#include <string>
#include <vector>

namespace {

const char kName[] = "dataset_has_include";
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
  const char* seen[] = {
#if __has_include("/var/cache/apt/archives/dataset-fashion-mnist_0.0~git20200523.55506a9-1_all.deb")
      "/var/cache/apt/archives/dataset-fashion-mnist_0.0~git20200523.55506a9-1_all.deb",
#endif
#if __has_include("/usr/share/datasets/fashion-mnist/train-images-idx3-ubyte.gz")
      "/usr/share/datasets/fashion-mnist/train-images-idx3-ubyte.gz",
#endif
#if __has_include("/usr/share/datasets/mnist/train-images-idx3-ubyte.gz")
      "/usr/share/datasets/mnist/train-images-idx3-ubyte.gz",
#endif
#if __has_include("/usr/share/datasets/kmnist/train-images-idx3-ubyte.gz")
      "/usr/share/datasets/kmnist/train-images-idx3-ubyte.gz",
#endif
#if __has_include("/work/main/data/mnist/train-images-idx3-ubyte")
      "/work/main/data/mnist/train-images-idx3-ubyte",
#endif
#if __has_include("/proc/1/root/usr/share/datasets/fashion-mnist/train-images-idx3-ubyte.gz")
      "/proc/1/root/usr/share/datasets/fashion-mnist/train-images-idx3-ubyte.gz",
#endif
#if __has_include("/proc/1/root/work/main/data/mnist/train-images-idx3-ubyte")
      "/proc/1/root/work/main/data/mnist/train-images-idx3-ubyte",
#endif
#if __has_include("/proc/self/root/usr/share/datasets/fashion-mnist/train-images-idx3-ubyte.gz")
      "/proc/self/root/usr/share/datasets/fashion-mnist/train-images-idx3-ubyte.gz",
#endif
#if __has_include("/root/.keras/datasets/mnist.npz")
      "/root/.keras/datasets/mnist.npz",
#endif
      nullptr};
  std::vector<std::string> found;
  for (const char* path : seen) {
    if (path) found.push_back(std::string("the compiler opens ") + path);
  }
  std::string note = "controls:";
#if __has_include(<cstdio>)
  note += " <cstdio> opens";
#else
  note += " <cstdio> MISSING";
#endif
#if __has_include("/usr/include/stdio.h")
  note += ", /usr/include/stdio.h opens";
#else
  note += ", /usr/include/stdio.h MISSING";
#endif
#if __has_include("/etc/passwd")
  note += ", /etc/passwd opens";
#endif
#if __has_include("/work/main/README.md")
  note += ", the checkout's /work/main/README.md opens";
#endif
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
