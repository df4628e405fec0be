// red-team probe: reaches for its parent and PID 1 from native code: kill(pid, 0), ptrace
// (PTRACE_ATTACH, PTRACE_SEIZE, PTRACE_TRACEME in a child), process_vm_readv, pidfd_open +
// pidfd_getfd of descriptors 0-63, and /proc/PID/mem.
// The sandbox must: refuse them all (another uid, outside the PID namespace; the filter refuses
// ptrace and process_vm_readv outright).
// Expected: qualified (ncm's labels), log line "REDTEAM-PROBE parent_native: found nothing".
#include <ratchet/method.h>

#include <cerrno>
#include <csignal>
#include <cstring>
#include <sys/ptrace.h>
#include <sys/syscall.h>
#include <sys/uio.h>
#include <sys/wait.h>
#include <unistd.h>
#include <cstdio>
#include <string>
#include <vector>

namespace {

const char kName[] = "parent_native";
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
  std::string note = "ppid " + std::to_string(getppid()) + "; ";
  for (pid_t pid : {getppid(), static_cast<pid_t>(1)}) {
    if (pid <= 0 || pid == getpid()) continue;
    const std::string p = std::to_string(pid);
    if (kill(pid, 0) == 0) found.push_back("may signal pid " + p);
    if (syscall(SYS_ptrace, PTRACE_ATTACH, pid, 0, 0) == 0) {
      found.push_back("PTRACE_ATTACH on pid " + p);
      syscall(SYS_ptrace, PTRACE_DETACH, pid, 0, 0);
    } else {
      note += "ptrace " + p + ": " + strerror(errno) + "; ";
    }
    char buffer[64];
    iovec local{buffer, sizeof buffer}, remote{reinterpret_cast<void*>(0x400000), sizeof buffer};
    if (syscall(SYS_process_vm_readv, pid, &local, 1, &remote, 1, 0) > 0)
      found.push_back("process_vm_readv of pid " + p);
    else
      note += "process_vm_readv " + p + ": " + strerror(errno) + "; ";
    long pidfd = syscall(434 /* pidfd_open */, pid, 0);
    if (pidfd >= 0) {
      for (int target = 0; target < 64; ++target) {
        long fd = syscall(438 /* pidfd_getfd */, pidfd, target, 0);
        if (fd >= 0) {
          found.push_back("took fd " + std::to_string(target) + " of pid " + p);
          close(static_cast<int>(fd));
        }
      }
      close(static_cast<int>(pidfd));
    }
    if (FILE* mem = std::fopen(("/proc/" + p + "/mem").c_str(), "rb")) {
      found.push_back("opened /proc/" + p + "/mem");
      std::fclose(mem);
    }
  }
  pid_t child = fork();
  if (child == 0) _exit(syscall(SYS_ptrace, PTRACE_TRACEME, 0, 0, 0) == 0 ? 0 : 1);
  int status = 0;
  if (child > 0 && waitpid(child, &status, 0) == child && WIFEXITED(status) &&
      WEXITSTATUS(status) == 0)
    found.push_back("PTRACE_TRACEME succeeded");
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
