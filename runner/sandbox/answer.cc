#include "sandbox/answer.h"

#include <fcntl.h>
#include <limits.h>
#include <linux/openat2.h>
#include <linux/seccomp.h>
#include <poll.h>
#include <pthread.h>
#include <signal.h>
#include <sys/ioctl.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstdint>
#include <cstring>
#include <string>
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

// A descriptor closed when it goes out of scope.
struct Fd {
  int fd = -1;
  explicit Fd(int opened) : fd(opened) {}
  Fd(const Fd&) = delete;
  Fd& operator=(const Fd&) = delete;
  ~Fd() {
    if (fd >= 0) close(fd);
  }
};

std::string ProcPath(pid_t pid, const std::string& what) {
  return "/proc/" + std::to_string(pid) + "/" + what;
}

// A NUL-terminated path at `address` of the caller's memory, or the errno reading it fails with.
int ReadPath(int mem, uint64_t address, std::string* path) {
  if (address == 0) return EFAULT;
  char buffer[PATH_MAX];
  size_t got = 0;
  while (got < sizeof buffer) {
    // Page by page: a path that ends just before an unmapped page is still read.
    const uint64_t at = address + got;
    const size_t chunk = std::min<size_t>(sizeof buffer - got, 4096 - at % 4096);
    const ssize_t n = pread(mem, buffer + got, chunk, static_cast<off_t>(at));
    if (n <= 0) return EFAULT;
    const void* end = std::memchr(buffer + got, '\0', static_cast<size_t>(n));
    if (end != nullptr) {
      path->assign(buffer, static_cast<const char*>(end) - buffer);
      return path->empty() ? ENOENT : 0;
    }
    got += static_cast<size_t>(n);
  }
  return ENAMETOOLONG;
}

// The file statfs(path) names in the caller's view, resolved with RESOLVE_IN_ROOT so that
// neither "..", nor a link, nor a /proc magic link leads out of it: an absolute path inside the
// caller's root, a relative one inside its working folder (taken as the root: "../x", or a link
// to an absolute path, names what it would from there, never a file of the machine outside the
// view). Only the file system's statistics are read through it.
int OpenInView(int root, int cwd, const std::string& path, int* opened) {
  open_how how = {};
  how.flags = O_PATH | O_CLOEXEC;
  how.resolve = RESOLVE_IN_ROOT | RESOLVE_NO_MAGICLINKS;
  const int base = path[0] == '/' ? root : cwd;
  const int fd = static_cast<int>(syscall(SYS_openat2, base, path.c_str(), &how, sizeof how));
  if (fd < 0) return errno;
  *opened = fd;
  return 0;
}

// One call answered: what is written into the caller's memory, and the errno (0: success). Every
// descriptor of the caller's process is opened before the notification is checked to be still
// pending, so that a pid the kernel gave to another process meanwhile is never read or written
// (seccomp_unotify(2)).
int AnswerCall(int listener, const seccomp_notif& request) {
  const int nr = request.data.nr;
  if (nr != SYS_sysinfo && nr != SYS_statfs && nr != SYS_fstatfs) return ENOSYS;
  const pid_t pid = static_cast<pid_t>(request.pid);
  Fd mem(open(ProcPath(pid, "mem").c_str(), O_RDWR | O_CLOEXEC));
  if (mem.fd < 0) return ESRCH;
  Fd root(nr == SYS_statfs ? open(ProcPath(pid, "root").c_str(), O_PATH | O_CLOEXEC) : -1);
  Fd cwd(nr == SYS_statfs ? open(ProcPath(pid, "cwd").c_str(), O_PATH | O_CLOEXEC) : -1);
  // The descriptor fstatfs names; a number too large for one is no open descriptor.
  const uint64_t fd_number = request.data.args[0];
  Fd file(nr == SYS_fstatfs && fd_number <= INT_MAX
              ? open(ProcPath(pid, "fd/" + std::to_string(fd_number)).c_str(),
                     O_PATH | O_CLOEXEC)
              : -1);
  uint64_t id = request.id;
  if (ioctl(listener, SECCOMP_IOCTL_NOTIF_ID_VALID, &id) != 0) return ESRCH;

  const uint64_t out = nr == SYS_sysinfo ? request.data.args[0] : request.data.args[1];
  struct statfs stats = {};
  if (nr == SYS_statfs) {
    if (root.fd < 0 || cwd.fd < 0) return ESRCH;
    std::string path;
    if (int error = ReadPath(mem.fd, request.data.args[0], &path); error != 0) return error;
    int opened = -1;
    if (int error = OpenInView(root.fd, cwd.fd, path, &opened); error != 0) return error;
    Fd named(opened);
    if (fstatfs(named.fd, &stats) != 0) return errno;
  } else if (nr == SYS_fstatfs) {
    if (file.fd < 0) return EBADF;
    if (fstatfs(file.fd, &stats) != 0) return errno;
  }
  if (out == 0) return EFAULT;
  if (nr == SYS_sysinfo) {
    const struct sysinfo info = FixedSysinfo();
    if (pwrite(mem.fd, &info, sizeof info, static_cast<off_t>(out)) != sizeof info) return EFAULT;
  } else {
    const struct statfs fixed = FixedStatfs(stats);
    if (pwrite(mem.fd, &fixed, sizeof fixed, static_cast<off_t>(out)) != sizeof fixed) {
      return EFAULT;
    }
  }
  return 0;
}

void* Answer(void* argument) {
  const int listener = static_cast<int>(reinterpret_cast<intptr_t>(argument));
  const NotifySizes sizes = KernelSizes();
  std::vector<char> request_bytes(sizes.request), response_bytes(sizes.response);
  auto* request = reinterpret_cast<seccomp_notif*>(request_bytes.data());
  auto* response = reinterpret_cast<seccomp_notif_resp*>(response_bytes.data());
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
    const int error = AnswerCall(listener, *request);
    response->error = -error;
    response->val = 0;
    // ENOENT: the caller died, or a signal interrupted its call; either way nobody waits.
    while (ioctl(listener, SECCOMP_IOCTL_NOTIF_SEND, response) != 0 && errno == EINTR) {
    }
  }
  close(listener);
  return nullptr;
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

struct statfs FixedStatfs(struct statfs real) {
  real.f_bfree = real.f_blocks;
  real.f_bavail = real.f_blocks;
  real.f_ffree = real.f_files;
  return real;
}

std::string AnswerDescription(const std::string& syscall) {
  if (syscall == "sysinfo") {
    return "by the parent: totalram the machine's, freeram the same, no shared, buffer, swap or "
           "high memory, loads 0, procs 1, uptime 0";
  }
  return "by the parent: the file system's statistics with every block and inode free";
}

Status AnswerInBackground(int listener) {
  // Every signal blocked in the thread: a signal to ratchet is for the threads that wait for it.
  sigset_t all, previous;
  sigfillset(&all);
  pthread_attr_t attributes;
  pthread_attr_init(&attributes);
  pthread_attr_setdetachstate(&attributes, PTHREAD_CREATE_DETACHED);
  pthread_sigmask(SIG_SETMASK, &all, &previous);
  pthread_t thread;
  const int error = pthread_create(&thread, &attributes, Answer,
                                   reinterpret_cast<void*>(static_cast<intptr_t>(listener)));
  pthread_sigmask(SIG_SETMASK, &previous, nullptr);
  pthread_attr_destroy(&attributes);
  if (error != 0) {
    close(listener);
    return Status::IOError("starting the thread that answers a sandboxed process's sysinfo and "
                           "statfs",
                           error);
  }
  return Status::Ok();
}

}  // namespace ratchet
