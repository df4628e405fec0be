#include "sandbox/answer.h"

#include <fcntl.h>
#include <linux/seccomp.h>
#include <poll.h>
#include <sys/ioctl.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <string>
#include <thread>
#include <vector>

namespace ratchet {
namespace {

// The kernel's sizes of the notification structs, which may be larger than this build's headers.
struct NotifySizes {
  size_t request = sizeof(seccomp_notif);
  size_t response = sizeof(seccomp_notif_resp);
};

NotifySizes KernelSizes() {
  NotifySizes sizes;
  seccomp_notif_sizes kernel = {};
  if (syscall(SYS_seccomp, SECCOMP_GET_NOTIF_SIZES, 0, &kernel) == 0) {
    sizes.request = std::max<size_t>(sizes.request, kernel.seccomp_notif);
    sizes.response = std::max<size_t>(sizes.response, kernel.seccomp_notif_resp);
  }
  return sizes;
}

// Writes `info` at `address` in the caller's memory. /proc/PID/mem is opened before the
// notification is checked to be still pending: a pid that names another process by the time of
// the check is never written to (seccomp_unotify(2)).
int WriteAnswer(int listener, const seccomp_notif& request, const struct sysinfo& info) {
  const std::string mem = "/proc/" + std::to_string(request.pid) + "/mem";
  int fd = open(mem.c_str(), O_WRONLY | O_CLOEXEC);
  if (fd < 0) return ESRCH;
  uint64_t id = request.id;
  int error = 0;
  if (ioctl(listener, SECCOMP_IOCTL_NOTIF_ID_VALID, &id) != 0) {
    error = ESRCH;
  } else if (request.data.args[0] == 0 ||
             pwrite(fd, &info, sizeof info, static_cast<off_t>(request.data.args[0])) !=
                 static_cast<ssize_t>(sizeof info)) {
    error = EFAULT;
  }
  close(fd);
  return error;
}

void Answer(int listener) {
  const NotifySizes sizes = KernelSizes();
  std::vector<char> request_bytes(sizes.request), response_bytes(sizes.response);
  auto* request = reinterpret_cast<seccomp_notif*>(request_bytes.data());
  auto* response = reinterpret_cast<seccomp_notif_resp*>(response_bytes.data());
  const struct sysinfo info = FixedSysinfo();
  for (;;) {
    pollfd ready = {listener, POLLIN, 0};
    if (poll(&ready, 1, -1) < 0) {
      if (errno == EINTR) continue;
      break;
    }
    if (!(ready.revents & POLLIN)) break;  // POLLHUP: every process of the filter is gone
    std::fill(request_bytes.begin(), request_bytes.end(), 0);
    if (ioctl(listener, SECCOMP_IOCTL_NOTIF_RECV, request) != 0) {
      if (errno == EINTR || errno == ENOENT) continue;  // ENOENT: the caller died meanwhile
      break;
    }
    std::fill(response_bytes.begin(), response_bytes.end(), 0);
    response->id = request->id;
    int error = request->data.nr == SYS_sysinfo ? WriteAnswer(listener, *request, info) : ENOSYS;
    response->error = error == 0 ? 0 : -error;
    response->val = 0;
    // ENOENT: the caller died, or a signal interrupted its call; either way nobody waits.
    ioctl(listener, SECCOMP_IOCTL_NOTIF_SEND, response);
  }
  close(listener);
}

}  // namespace

struct sysinfo FixedSysinfo() {
  struct sysinfo machine = {};
  struct sysinfo fixed = {};
  if (sysinfo(&machine) == 0) {
    fixed.totalram = machine.totalram;
    fixed.freeram = machine.totalram;
    fixed.mem_unit = machine.mem_unit;
  }
  fixed.procs = 1;
  return fixed;
}

std::string FixedSysinfoDescription() {
  return "by the parent: totalram the machine's, freeram the same, no shared, buffer, swap or "
         "high memory, loads 0, procs 1, uptime 0";
}

void AnswerInBackground(int listener) { std::thread(Answer, listener).detach(); }

}  // namespace ratchet
