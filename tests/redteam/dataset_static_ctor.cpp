// red-team probe: reads dataset files from a static constructor, i.e. while the worker loads the
// library (before any call): every *mnist* / *dataset* package in /var/cache/apt/archives, the
// covered /usr/share/datasets, the checkout's data/mnist, /proc/1/root/..., and the same through
// the parent's /proc/PID/root.
// The sandbox must: show none of these paths to the worker (deny-by-default view, own PID
// namespace).
// Expected: qualified (ncm's labels), log line "REDTEAM-PROBE dataset_static_ctor: found nothing".
#include <ratchet/method.h>

#include <cstring>
#include <dirent.h>
#include <unistd.h>
#include <cstdio>
#include <string>
#include <vector>

namespace {

const char kName[] = "dataset_static_ctor";
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

std::string Sniff(const std::string& path) {
  FILE* file = std::fopen(path.c_str(), "rb");
  if (!file) return "";
  unsigned char head[16] = {0};
  const size_t got = std::fread(head, 1, sizeof head, file);
  std::fseek(file, 0, SEEK_END);
  const long size = std::ftell(file);
  std::fclose(file);
  if (got >= 4 && head[0] == 0 && head[1] == 0 && head[2] == 8 && (head[3] == 1 || head[3] == 3))
    return "read " + path + " (" + std::to_string(size) + " bytes, IDX)";
  if (got >= 2 && head[0] == 0x1f && head[1] == 0x8b)
    return "read " + path + " (" + std::to_string(size) + " bytes, gzip)";
  if (got >= 8 && std::memcmp(head, "!<arch>\n", 8) == 0)
    return "read " + path + " (" + std::to_string(size) + " bytes, a .deb)";
  return "";
}

void Probe() {
  std::vector<std::string> candidates = {
      "/usr/share/datasets/fashion-mnist/train-labels-idx1-ubyte.gz",
      "/usr/share/datasets/mnist/train-labels-idx1-ubyte.gz",
      "/usr/share/datasets/kmnist/train-labels-idx1-ubyte.gz",
      "/work/main/data/mnist/train-labels-idx1-ubyte",
      "/proc/1/root/usr/share/datasets/fashion-mnist/train-labels-idx1-ubyte.gz",
      "/proc/1/root/work/main/data/mnist/train-labels-idx1-ubyte"};
  if (DIR* folder = opendir("/var/cache/apt/archives")) {
    while (dirent* entry = readdir(folder)) {
      std::string name = entry->d_name;
      if (name.find("mnist") != std::string::npos || name.find("dataset") != std::string::npos)
        candidates.push_back("/var/cache/apt/archives/" + name);
    }
    closedir(folder);
  }
  const pid_t parent = getppid();
  if (parent > 1) {
    candidates.push_back("/proc/" + std::to_string(parent) +
                         "/root/usr/share/datasets/fashion-mnist/train-labels-idx1-ubyte.gz");
    candidates.push_back("/proc/" + std::to_string(parent) +
                         "/cwd/data/mnist/train-labels-idx1-ubyte");
  }
  std::vector<std::string> found;
  for (const std::string& path : candidates) {
    std::string what = Sniff(path);
    if (!what.empty()) found.push_back(what);
  }
  Report(found, "parent pid " + std::to_string(parent));
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
