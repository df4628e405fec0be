#include "sandbox/contain.h"

#include <dirent.h>
#include <fcntl.h>
#include <linux/seccomp.h>
#include <poll.h>
#include <sched.h>
#include <sys/mount.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

#include "sandbox/descriptor_message.h"

// Between fork and execve only async-signal-safe calls: no allocation, no locks, no exceptions.
// Each step returns kOk, or which syscall failed on what, with its errno.

namespace ratchet {
namespace internal {
namespace {

using Failed = ChildError;  // op kNone: the step succeeded

constexpr Failed kOk = {ChildOp::kNone, 0, 0};

Failed Fail(ChildOp op, int32_t item = 0) { return Failed{op, item, errno}; }

[[noreturn]] void Report(const ChildPlan& plan, const Failed& failed) {
  while (write(plan.error_fd, &failed, sizeof failed) < 0 && errno == EINTR) {
  }
  _exit(127);
}

void Check(const ChildPlan& plan, const Failed& failed) {
  if (failed.op != ChildOp::kNone) Report(plan, failed);
}

// Ignored signals stay ignored across execve; a worker starts with every default.
Failed ResetSignalHandlers() {
  struct sigaction action = {};
  action.sa_handler = SIG_DFL;
  for (int sig = 1; sig < NSIG; ++sig) {
    if (sig == SIGKILL || sig == SIGSTOP) continue;
    // The C library reserves a few real-time signals for itself and refuses them (EINVAL).
    if (sigaction(sig, &action, nullptr) != 0 && errno != EINVAL) {
      return Fail(ChildOp::kSigaction, sig);
    }
  }
  return kOk;
}

// Its own session and process group: the parent can signal the whole group, and a terminal's
// signals (Ctrl-C to ratchet) do not reach the worker.
Failed NewSession() {
  if (setsid() < 0) return Fail(ChildOp::kSetsid);
  return kOk;
}

Failed DieWithParent(const ChildPlan& plan) {
  if (prctl(PR_SET_PDEATHSIG, SIGKILL, 0, 0, 0) != 0) return Fail(ChildOp::kPdeathsig);
  // The parent may have died before the signal was armed. In a PID namespace of its own the
  // child's getppid() is 0 whoever its parent is; the error pipe tells in either case: the
  // parent holds its read end until the child has exec'd, and a pipe without readers polls
  // POLLERR.
  pollfd pipe_end = {plan.error_fd, POLLOUT, 0};
  const bool readers_gone = poll(&pipe_end, 1, 0) > 0 && (pipe_end.revents & POLLERR);
  if (readers_gone || (!plan.own_pid_namespace && getppid() != plan.parent_pid)) {
    errno = ESRCH;
    return Fail(ChildOp::kParentGone);
  }
  return kOk;
}

bool IsMappedTo(const ChildPlan& plan, int fd) {
  for (size_t i = 0; i < plan.fd_count; ++i) {
    if (plan.fds[i].child_fd == fd) return true;
  }
  return false;
}

// Closes every descriptor above `low` except `keep` and `keep + 1`, without close_range (kernels
// before 5.9): reads /proc/self/fd with getdents64 into a stack buffer.
Failed CloseAboveByListing(int low, int keep) {
  int dir = open("/proc/self/fd", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  if (dir < 0) return Fail(ChildOp::kCloseRange);
  alignas(8) char buffer[4096];
  for (;;) {
    long n = syscall(SYS_getdents64, dir, buffer, sizeof buffer);
    if (n < 0) {
      Failed failed = Fail(ChildOp::kCloseRange);
      close(dir);
      return failed;
    }
    if (n == 0) break;
    for (long offset = 0; offset < n;) {
      const auto* entry = reinterpret_cast<const struct dirent64*>(buffer + offset);
      offset += entry->d_reclen;
      int fd = 0;
      const char* c = entry->d_name;
      if (*c < '0' || *c > '9') continue;
      for (; *c >= '0' && *c <= '9'; ++c) fd = fd * 10 + (*c - '0');
      if (fd > low && fd != keep && fd != keep + 1 && fd != dir) close(fd);
    }
  }
  close(dir);
  return kOk;
}

// Closes every descriptor above `low` except `keep` and `keep + 1`.
Failed CloseAbove(int low, int keep) {
  bool ok = true;
  if (keep - 1 > low) ok = syscall(SYS_close_range, low + 1, keep - 1, 0) == 0;
  if (ok) ok = syscall(SYS_close_range, keep + 2, ~0U, 0) == 0;
  if (ok) return kOk;
  if (errno == ENOSYS) return CloseAboveByListing(low, keep);
  return Fail(ChildOp::kCloseRange);
}

// Each mapped descriptor moves to its number in two hops, first above every number involved and
// then down, so that no mapping overwrites a descriptor another mapping still has to move. The
// error pipe moves above too and keeps close-on-exec; everything else is closed.
Failed MapFds(ChildPlan& plan) {
  int error_fd = fcntl(plan.error_fd, F_DUPFD_CLOEXEC, plan.dup_floor);
  if (error_fd < 0) return Fail(ChildOp::kDupAbove, -1);
  // The listener's socket right above it: every number above the floor is the child's to use
  // (the parent's descriptors that mappings name are all below it), and the two are kept.
  if (dup3(plan.listener_socket, error_fd + 1, O_CLOEXEC) < 0) {
    return Fail(ChildOp::kDupAbove, -3);
  }
  plan.error_fd = error_fd;  // the old numbers are closed with the rest below
  plan.listener_socket = error_fd + 1;

  int null_fd = -1;
  if (!IsMappedTo(plan, 0) || !IsMappedTo(plan, 1) || !IsMappedTo(plan, 2)) {
    int opened = open("/dev/null", O_RDWR | O_CLOEXEC);
    if (opened < 0) return Fail(ChildOp::kOpenDevNull);
    null_fd = fcntl(opened, F_DUPFD_CLOEXEC, plan.dup_floor);
    if (null_fd < 0) return Fail(ChildOp::kDupAbove, -2);
    close(opened);
  }
  for (size_t i = 0; i < plan.fd_count; ++i) {
    plan.scratch_fds[i] = fcntl(plan.fds[i].parent_fd, F_DUPFD_CLOEXEC, plan.dup_floor);
    if (plan.scratch_fds[i] < 0) return Fail(ChildOp::kDupAbove, static_cast<int32_t>(i));
  }
  // dup2 leaves the new descriptor without close-on-exec: these are the ones execve keeps.
  for (size_t i = 0; i < plan.fd_count; ++i) {
    if (dup2(plan.scratch_fds[i], plan.fds[i].child_fd) < 0) {
      return Fail(ChildOp::kDup2, static_cast<int32_t>(i));
    }
  }
  for (int fd = 0; fd <= 2; ++fd) {
    if (!IsMappedTo(plan, fd) && dup2(null_fd, fd) < 0) return Fail(ChildOp::kDup2DevNull, fd);
  }
  for (int fd = 3; fd <= plan.max_child_fd; ++fd) {
    if (!IsMappedTo(plan, fd)) close(fd);
  }
  return CloseAbove(plan.max_child_fd, plan.error_fd);
}

// The child's control group (cgroup.h), joined by writing "0" (the writer) to its cgroup.procs in
// each hierarchy: whatever it starts is in the group too, and counted, from here on.
Failed JoinGroup(const ChildPlan& plan) {
  for (size_t i = 0; i < plan.group_fd_count; ++i) {
    if (write(plan.group_fds[i], "0", 1) != 1) return Fail(ChildOp::kJoinGroup, static_cast<int32_t>(i));
  }
  return kOk;
}

// Lowering a limit needs no privilege; one above the inherited hard limit is lowered to it.
Failed LimitTo(int resource, rlim_t value, ChildOp op) {
  struct rlimit limit;
  if (getrlimit(resource, &limit) != 0) return Fail(ChildOp::kGetrlimit, resource);
  if (limit.rlim_max != RLIM_INFINITY && value > limit.rlim_max) value = limit.rlim_max;
  limit.rlim_cur = limit.rlim_max = value;
  if (setrlimit(resource, &limit) != 0) return Fail(op);
  return kOk;
}

Failed LimitResources(const ChildPlan& plan) {
  Failed failed = LimitTo(RLIMIT_CORE, 0, ChildOp::kSetrlimitCore);
  if (failed.op == ChildOp::kNone) {
    failed = LimitTo(RLIMIT_FSIZE, plan.file_size_bytes, ChildOp::kSetrlimitFsize);
  }
  if (failed.op == ChildOp::kNone) {
    failed = LimitTo(RLIMIT_NOFILE, plan.open_files, ChildOp::kSetrlimitNofile);
  }
  return failed;
}

// A mount namespace of the child's own, detached from the parent's: what it mounts (the covers,
// its temporary folders) is seen by it alone, and nothing mounted later outside reaches it. An
// IPC namespace too: SysV objects and POSIX message queues (which the filter refuses anyway)
// would die with it. And a network namespace: abstract Unix sockets, which the filter allows,
// are per network namespace, so no worker can reach a socket of another (the CUDA driver
// listens on one in every process with a device context) or of the machine. And a cgroup
// namespace, entered after join-group: /proc/self/cgroup reads "/", not the group's name (which
// holds ratchet's process id).
Failed PrivateMountNamespace() {
  if (unshare(CLONE_NEWNS | CLONE_NEWIPC | CLONE_NEWNET | CLONE_NEWCGROUP) != 0) {
    return Fail(ChildOp::kUnshareMount);
  }
  if (mount("none", "/", nullptr, MS_REC | MS_PRIVATE, nullptr) != 0) {
    return Fail(ChildOp::kMakePrivate);
  }
  return kOk;
}

// Inside the view: a known dataset folder that a bound folder holds is covered where it is; one
// the view does not hold is out of sight already (ENOENT).
Failed CoverFolders(const ChildPlan& plan) {
  for (size_t i = 0; i < plan.covered_count; ++i) {
    if (mount("ratchet-cover", plan.covered[i], "tmpfs",
              MS_RDONLY | MS_NOSUID | MS_NODEV | MS_NOEXEC, "size=4k,nr_inodes=8,mode=0555") != 0 &&
        errno != ENOENT) {
      return Fail(ChildOp::kCover, static_cast<int32_t>(i));
    }
  }
  return kOk;
}

// "/proc/self/fd/N" without snprintf.
void FdPath(int fd, char (&out)[32]) {
  const char prefix[] = "/proc/self/fd/";
  size_t at = 0;
  for (; prefix[at] != '\0'; ++at) out[at] = prefix[at];
  char digits[12];
  size_t n = 0;
  do {
    digits[n++] = static_cast<char>('0' + fd % 10);
    fd /= 10;
  } while (fd > 0 && n < sizeof digits);
  while (n > 0) out[at++] = digits[--n];
  out[at] = '\0';
}

using Kind = ViewStep::Kind;

bool IsBind(int32_t kind) {
  return kind == static_cast<int32_t>(Kind::kBindRo) ||
         kind == static_cast<int32_t>(Kind::kBindRoTop) ||
         kind == static_cast<int32_t>(Kind::kBindDevice) ||
         kind == static_cast<int32_t>(Kind::kBindWork);
}

// mount_setattr(2) (Linux 5.12), spelled here: <linux/mount.h> and <sys/mount.h> clash.
struct MountAttr {
  uint64_t attr_set;
  uint64_t attr_clr;
  uint64_t propagation;
  uint64_t userns_fd;
};
constexpr long kSysMountSetattr = 442;
constexpr uint64_t kMountAttrReadOnly = 0x1, kMountAttrNoSuid = 0x2, kMountAttrNoDev = 0x4;
constexpr unsigned kAtRecursive = 0x8000;

// Binds the source opened as `fd` at `target` (through /proc/self/fd, so that it is found even
// though the stage now hides the machine's path), with the mounts beneath it: a GPU machine's
// container runtime binds each driver library file into /usr/lib, and without them the
// folder holds only their empty stand-ins. Then sets the flags on the whole tree at once; on a
// kernel without mount_setattr, on the top mount alone.
bool BindAt(int fd, const char* target, unsigned long flags, bool recursive) {
  char source[32];
  FdPath(fd, source);
  if (mount(source, target, nullptr, MS_BIND | (recursive ? MS_REC : 0), nullptr) != 0) {
    return false;
  }
  if (recursive) {
    MountAttr attr = {};
    if (flags & MS_RDONLY) attr.attr_set |= kMountAttrReadOnly;
    if (flags & MS_NOSUID) attr.attr_set |= kMountAttrNoSuid;
    if (flags & MS_NODEV) attr.attr_set |= kMountAttrNoDev;
    if (syscall(kSysMountSetattr, AT_FDCWD, target, kAtRecursive, &attr, sizeof attr) == 0) {
      return true;
    }
    if (errno != ENOSYS) return false;
  }
  return mount(nullptr, target, nullptr, MS_REMOUNT | MS_BIND | flags, nullptr) == 0;
}

// Binds a file holding `text` over `target`. The file is written at `scratch` (root's, 0444: no
// sandboxed process may write it) when `*written` holds another text, the previous one removed;
// covers with the same text, which PlanView puts next to each other, share one file. Its name is
// removed once the view is built (BuildView): the binds keep it, the root shows nothing. Its mode
// is set after it is made: the parent's umask must not take the others' read bit away.
bool CoverWithText(const char* scratch, const char* target, const char* text,
                   const char** written) {
  if (*written == nullptr || strcmp(*written, text) != 0) {
    if (*written != nullptr && unlink(scratch) != 0) return false;
    *written = nullptr;
    const int fd = open(scratch, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0444);
    if (fd < 0) return false;
    if (fchmod(fd, 0444) != 0) {
      close(fd);
      return false;
    }
    for (size_t done = 0, size = strlen(text); done < size;) {
      const ssize_t n = write(fd, text + done, size - done);
      if (n < 0 && errno == EINTR) continue;
      if (n <= 0) {
        if (n == 0) errno = EIO;
        close(fd);
        return false;
      }
      done += static_cast<size_t>(n);
    }
    close(fd);
    *written = text;
  }
  return mount(scratch, target, nullptr, MS_BIND, nullptr) == 0;
}

bool ApplyViewOp(const ViewOp& op, int fd, const char* scratch, const char** written) {
  switch (static_cast<Kind>(op.kind)) {
    case Kind::kDir:
      return mkdir(op.target, 0755) == 0 || errno == EEXIST;
    case Kind::kFile: {
      int made = open(op.target, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0444);
      if (made < 0) return false;
      close(made);
      return true;
    }
    case Kind::kSymlink:
      return symlink(op.source, op.target) == 0;
    case Kind::kBindRo:
      return BindAt(fd, op.target, MS_RDONLY | MS_NOSUID | MS_NODEV, /*recursive=*/true);
    case Kind::kBindRoTop:
      return BindAt(fd, op.target, MS_RDONLY | MS_NOSUID | MS_NODEV, /*recursive=*/false);
    case Kind::kBindDevice:
      return BindAt(fd, op.target, MS_NOSUID | MS_NOEXEC, /*recursive=*/false);
    case Kind::kBindWork:
      return BindAt(fd, op.target, MS_NOSUID | MS_NODEV, /*recursive=*/false);
    case Kind::kTmpfs:
      return mount("ratchet-temp", op.target, "tmpfs", MS_NOSUID | MS_NODEV, op.source) == 0;
    case Kind::kProc:
      return mount("proc", op.target, "proc", MS_NOSUID | MS_NODEV | MS_NOEXEC, nullptr) == 0;
    case Kind::kCover:
      return CoverWithText(scratch, op.target, op.source, written);
  }
  errno = EINVAL;
  return false;
}

// The child's root: a tmpfs at the stage holding read-only binds of what the view names, its own
// /dev, /proc, temporary folders and working folder, then entered with pivot_root and the old
// root detached, so that no path leads out of it. Every source is opened first: the stage may
// hide it (the working folder lies in /tmp).
Failed BuildView(ChildPlan& plan) {
  for (size_t i = 0; i < plan.view_count; ++i) {
    plan.view_fds[i] = -1;
    if (!IsBind(plan.view[i].kind)) continue;
    // A read-write bind (the process's folder and the temporary folders in it, which the
    // sandbox uid owns) must be that folder, never a link it was swapped for.
    const int follow = plan.view[i].kind == static_cast<int32_t>(Kind::kBindWork)
                           ? O_NOFOLLOW | O_DIRECTORY
                           : 0;
    plan.view_fds[i] = open(plan.view[i].source, O_PATH | O_CLOEXEC | follow);
    if (plan.view_fds[i] < 0) return Fail(ChildOp::kViewOpen, static_cast<int32_t>(i));
  }
  if (mount("ratchet-root", plan.stage, "tmpfs", MS_NOSUID | MS_NODEV,
            "size=1048576,nr_inodes=4096,mode=0755") != 0) {
    return Fail(ChildOp::kViewStageMount);
  }
  const char* written = nullptr;  // the text of the covering file at plan.cover_scratch
  for (size_t i = 0; i < plan.view_count; ++i) {
    if (!ApplyViewOp(plan.view[i], plan.view_fds[i], plan.cover_scratch, &written)) {
      return Fail(ChildOp::kViewStep, static_cast<int32_t>(i));
    }
    if (plan.view_fds[i] >= 0) close(plan.view_fds[i]);
  }
  if (written != nullptr && unlink(plan.cover_scratch) != 0) return Fail(ChildOp::kCoverScratch);
  // pivot_root(".", "."): the old root is stacked under the new one and detached at once.
  if (chdir(plan.stage) != 0 || syscall(SYS_pivot_root, ".", ".") != 0 ||
      umount2(".", MNT_DETACH) != 0 || chdir("/") != 0) {
    return Fail(ChildOp::kPivotRoot);
  }
  if (mount(nullptr, "/", nullptr, MS_REMOUNT | MS_BIND | MS_RDONLY | MS_NOSUID | MS_NODEV,
            nullptr) != 0) {
    return Fail(ChildOp::kRootReadOnly);
  }
  return kOk;
}

// At most this many processes and threads of the sandbox uid; counted by the kernel at each
// fork and clone. Set before the uid changes, so it applies from the first process on.
Failed LimitProcesses(const ChildPlan& plan) {
  struct rlimit limit = {plan.processes, plan.processes};
  if (setrlimit(RLIMIT_NPROC, &limit) != 0) return Fail(ChildOp::kSetrlimitNproc);
  return kOk;
}

// Raw syscalls: the C library's wrappers would try to change every thread of the parent, and
// the child has only the one.
Failed DropIdentity(const ChildPlan& plan) {
  if (syscall(SYS_setgroups, 0, nullptr) != 0) return Fail(ChildOp::kSetgroups);
  if (syscall(SYS_setresgid, plan.gid, plan.gid, plan.gid) != 0) {
    return Fail(ChildOp::kSetresgid);
  }
  if (syscall(SYS_setresuid, plan.uid, plan.uid, plan.uid) != 0) {
    return Fail(ChildOp::kSetresuid);
  }
  return kOk;
}

// After the identity change, so that the folder must be reachable by the sandbox uid.
Failed EnterFolder(const ChildPlan& plan) {
  if (chdir(plan.cwd) != 0) return Fail(ChildOp::kChdir);
  return kOk;
}

// No execve can grant privileges again (set-uid bits and file capabilities are ignored), and the
// kernel lets an unprivileged process install a filter.
Failed NoNewPrivs() {
  if (prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) != 0) return Fail(ChildOp::kNoNewPrivs);
  return kOk;
}

// The filter hands the calls the parent answers (sysinfo) to a listener descriptor, which the
// child sends to the parent before it closes its own copy: the program it execs never holds it.
Failed InstallFilter(const ChildPlan& plan) {
  int listener = static_cast<int>(syscall(SYS_seccomp, SECCOMP_SET_MODE_FILTER,
                                          SECCOMP_FILTER_FLAG_NEW_LISTENER, plan.filter));
  if (listener < 0) return Fail(ChildOp::kSeccomp);
  DescriptorMessage message;
  const bool sent = message.Send(plan.listener_socket, listener);
  Failed failed = sent ? kOk : Fail(ChildOp::kSendListener);
  close(listener);
  close(plan.listener_socket);
  return failed;
}

// The parent blocked every signal across fork so that none ran a parent's handler in the child;
// the mask is kept until here so that no signal interrupts a half-applied sandbox, and the
// worker starts with none blocked.
Failed UnblockSignals(const ChildPlan& plan) {
  if (sigprocmask(SIG_SETMASK, &plan.empty_mask, nullptr) != 0) return Fail(ChildOp::kSigprocmask);
  return kOk;
}

}  // namespace

void RunChild(ChildPlan& plan) {
  Check(plan, ResetSignalHandlers());
  Check(plan, NewSession());
  Check(plan, DieWithParent(plan));
  Check(plan, JoinGroup(plan));
  Check(plan, MapFds(plan));
  Check(plan, LimitResources(plan));
  if (plan.as_root) {
    Check(plan, PrivateMountNamespace());
    Check(plan, BuildView(plan));
    Check(plan, CoverFolders(plan));
    Check(plan, LimitProcesses(plan));
    Check(plan, DropIdentity(plan));
    // The kernel clears the parent-death signal when the credentials change: arm it again.
    Check(plan, DieWithParent(plan));
  }
  Check(plan, EnterFolder(plan));
  Check(plan, NoNewPrivs());
  Check(plan, InstallFilter(plan));  // last: every step above needed syscalls it refuses
  Check(plan, UnblockSignals(plan));
  execve(plan.path, plan.argv, plan.envp);
  Report(plan, Fail(ChildOp::kExecve));
}

}  // namespace internal
}  // namespace ratchet
