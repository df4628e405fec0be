// red-team probe: leaves a process behind from native code: from its timed call, a double-forked
// child in a session of its own, named "rt-linger-n", with the parent-death signal cleared and
// SIGTERM, SIGHUP and SIGINT ignored, that keeps running; every worker's warm-up looks for a running
// "rt-linger-n" of an earlier call.
// The sandbox must: stop every process of the worker after its timed call and kill them before the
// next call's method is loaded (its own PID namespace also hides them and kills them with it).
// Expected: qualified (ncm's labels), log line "REDTEAM-PROBE lingering_native: found nothing".
#include <ratchet/method.h>

#include <csignal>
#include <cstring>
#include <dirent.h>
#include <sys/prctl.h>
#include <unistd.h>
#include <cstdio>
#include <string>
#include <vector>

namespace {

const char kName[] = "lingering_native";
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

void Linger() {
  if (fork() != 0) return;
  setsid();
  if (fork() != 0) _exit(0);
  prctl(PR_SET_PDEATHSIG, 0);
  prctl(PR_SET_NAME, "rt-linger-n");
  signal(SIGTERM, SIG_IGN);
  signal(SIGHUP, SIG_IGN);
  signal(SIGINT, SIG_IGN);
  for (int fd = 3; fd < 64; ++fd) close(fd);
  for (;;) usleep(10000);
}

void Probe() {
  std::vector<std::string> found;
  if (DIR* proc = opendir("/proc")) {
    while (dirent* entry = readdir(proc)) {
      const std::string pid = entry->d_name;
      if (pid.find_first_not_of("0123456789") != std::string::npos) continue;
      char comm[64] = {0}, stat[512] = {0};
      FILE* file = std::fopen(("/proc/" + pid + "/comm").c_str(), "r");
      if (!file) continue;
      std::fgets(comm, sizeof comm, file);
      std::fclose(file);
      if (std::strncmp(comm, "rt-linger-n", 11) != 0) continue;
      file = std::fopen(("/proc/" + pid + "/stat").c_str(), "r");
      if (!file) continue;
      std::fgets(stat, sizeof stat, file);
      std::fclose(file);
      const char* close_paren = std::strrchr(stat, ')');
      const char state = close_paren ? close_paren[2] : '?';
      if (!std::strchr("TtZX", state))
        found.push_back("rt-linger-n pid " + pid + " runs (state " + state + ")");
    }
    closedir(proc);
  }
  Report(found, "uid " + std::to_string(getuid()));
}

}  // namespace

torch::Tensor method(const torch::Tensor& train_x, const torch::Tensor& train_y,
                     const torch::Tensor& test_x) {
  ++calls;  // 1: the warm-up, 2: the timed call (every timed call has a fresh worker)
  if (calls == 1) Probe();
  if (calls == 2) Linger();
  return Ncm(train_x, train_y, test_x);
}

RATCHET_METHOD(method)
