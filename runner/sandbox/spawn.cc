#include "sandbox/spawn.h"

#include <fcntl.h>
#include <pthread.h>
#include <sched.h>
#include <signal.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <set>
#include <string>

#include "sandbox/answer.h"
#include "sandbox/contain.h"
#include "sandbox/descriptor_message.h"
#include "sandbox/reap.h"
#include "sandbox/seccomp_filter.h"
#include "sandbox/view.h"

namespace ratchet {
namespace {

using internal::ChildError;
using internal::ChildOp;
using internal::ChildPlan;

bool HasNul(const std::string& s) { return s.find('\0') != std::string::npos; }

// A SpawnSpec comes from ratchet's own code, so a wrong one is a bug (Internal), named exactly.
Status CheckSpec(const SpawnSpec& spec) {
  if (spec.argv.empty()) return Status::Internal("spawn: argv is empty");
  const std::string& program = spec.argv[0];
  if (program.empty() || program[0] != '/') {
    return Status::Internal("spawn: the program must be an absolute path, not '" + program + "'");
  }
  for (const std::string& arg : spec.argv) {
    if (HasNul(arg)) return Status::Internal("spawn " + program + ": an argument holds a NUL byte");
  }
  for (const std::string& entry : spec.env) {
    if (HasNul(entry) || entry.find('=') == std::string::npos || entry[0] == '=') {
      return Status::Internal("spawn " + program + ": environment entry '" + entry +
                              "' is not NAME=value");
    }
  }
  if (spec.cwd.empty() || spec.cwd[0] != '/' || HasNul(spec.cwd)) {
    return Status::Internal("spawn " + program +
                            ": the working folder must be an absolute path, "
                            "not '" +
                            spec.cwd + "'");
  }
  if (spec.open_files == 0) return Status::Internal("spawn " + program + ": open_files is 0");
  const std::vector<uid_t> slot_uids = WorkerUids();
  if (std::find(slot_uids.begin(), slot_uids.end(), spec.uid) == slot_uids.end()) {
    return Status::Internal("spawn " + program + ": uid " + std::to_string(spec.uid) +
                            " is not a worker uid of this process's sandbox slot (" +
                            std::to_string(SandboxSlot()) + ")");
  }
  std::set<int> child_fds;
  for (const FdMapping& mapping : spec.fds) {
    std::string which = "fd mapping " + std::to_string(mapping.parent_fd) + " -> " +
                        std::to_string(mapping.child_fd);
    if (mapping.child_fd < 0 || static_cast<uint64_t>(mapping.child_fd) >= spec.open_files) {
      return Status::Internal("spawn " + program + ": " + which + ": the child fd must be below " +
                              "the open-files limit " + std::to_string(spec.open_files));
    }
    if (!child_fds.insert(mapping.child_fd).second) {
      return Status::Internal("spawn " + program + ": " + which + ": child fd given twice");
    }
    if (fcntl(mapping.parent_fd, F_GETFD) < 0) {
      return Status::IOError("spawn " + program + ": " + which + ": the parent fd", errno);
    }
  }
  for (const std::string& folder : spec.covered) {
    if (folder.empty() || folder[0] != '/' || HasNul(folder)) {
      return Status::Internal("spawn " + program +
                              ": a covered folder must be an absolute path, "
                              "not '" +
                              folder + "'");
    }
  }
  return Status::Ok();
}

// The covered folders that exist: a missing folder has nothing to hide. One that is not a folder
// cannot be covered by a mount of a folder.
Result<std::vector<std::string>> ExistingFolders(const SpawnSpec& spec) {
  std::vector<std::string> existing;
  for (const std::string& folder : spec.covered) {
    struct stat st;
    if (stat(folder.c_str(), &st) != 0) {
      if (errno == ENOENT) continue;
      return Status::IOError("spawn " + spec.argv[0] + ": stat covered folder " + folder, errno);
    }
    if (!S_ISDIR(st.st_mode)) {
      return Status::Internal("spawn " + spec.argv[0] + ": covered path " + folder +
                              " is not a folder");
    }
    existing.push_back(folder);
  }
  return existing;
}

std::vector<char*> NullTerminated(const std::vector<std::string>& strings) {
  std::vector<char*> pointers;
  for (const std::string& s : strings) pointers.push_back(const_cast<char*>(s.c_str()));
  pointers.push_back(nullptr);
  return pointers;
}

// What the child was doing when it failed, in the words of the syscall.
std::string DescribeFailure(const ChildError& error, const SpawnSpec& spec,
                            const std::vector<std::string>& covered,
                            const std::vector<ViewStep>& view) {
  auto step = [&](int32_t item) {
    if (item < 0 || static_cast<size_t>(item) >= view.size()) return std::string("?");
    const ViewStep& at = view[item];
    switch (at.kind) {
      case ViewStep::Kind::kDir:
        return "mkdir " + at.target + " in the new root";
      case ViewStep::Kind::kFile:
        return "create the mount point " + at.target + " in the new root";
      case ViewStep::Kind::kSymlink:
        return "symlink " + at.target + " -> " + at.source + " in the new root";
      case ViewStep::Kind::kBindRo:
        return "bind " + at.source + " read-only at " + at.target + " in the new root";
      case ViewStep::Kind::kBindRoTop:
        return "bind " + at.source + " read-only (without its submounts) at " + at.target +
               " in the new root";
      case ViewStep::Kind::kBindDevice:
        return "bind the device " + at.source + " in the new root";
      case ViewStep::Kind::kBindWork:
        return "bind the working folder " + at.source + " in the new root";
      case ViewStep::Kind::kTmpfs:
        return "mount a tmpfs (" + at.source + ") at " + at.target + " in the new root";
      case ViewStep::Kind::kProc:
        return "mount proc at " + at.target + " in the new root";
      case ViewStep::Kind::kCover:
        return "cover " + at.target + " with a read-only file of fixed text in the new root";
    }
    return std::string("?");
  };
  auto mapping = [&](int32_t item) {
    if (item < 0 || static_cast<size_t>(item) >= spec.fds.size()) return std::string("?");
    return "parent fd " + std::to_string(spec.fds[item].parent_fd) + " for child fd " +
           std::to_string(spec.fds[item].child_fd);
  };
  switch (error.op) {
    case ChildOp::kNone:
      break;
    case ChildOp::kSigaction:
      return "sigaction(" + std::to_string(error.item) + ", SIG_DFL)";
    case ChildOp::kSetsid:
      return "setsid";
    case ChildOp::kPdeathsig:
      return "prctl(PR_SET_PDEATHSIG, SIGKILL)";
    case ChildOp::kParentGone:
      return "getppid: the parent exited during the spawn";
    case ChildOp::kJoinGroup:
      return "write 0 to the cgroup.procs of its control group (hierarchy " +
             std::to_string(error.item) + ")";
    case ChildOp::kDupAbove:
      if (error.item == -1) return "fcntl(F_DUPFD_CLOEXEC) of the error pipe";
      if (error.item == -2) return "fcntl(F_DUPFD_CLOEXEC) of /dev/null";
      return "fcntl(F_DUPFD_CLOEXEC) of " + mapping(error.item);
    case ChildOp::kOpenDevNull:
      return "open /dev/null";
    case ChildOp::kDup2:
      return "dup2 of " + mapping(error.item);
    case ChildOp::kDup2DevNull:
      return "dup2 of /dev/null to fd " + std::to_string(error.item);
    case ChildOp::kCloseRange:
      return "close_range (closing the parent's other descriptors)";
    case ChildOp::kGetrlimit:
      return "getrlimit(" + std::to_string(error.item) + ")";
    case ChildOp::kSetrlimitCore:
      return "setrlimit(RLIMIT_CORE, 0)";
    case ChildOp::kSetrlimitFsize:
      return "setrlimit(RLIMIT_FSIZE, " + std::to_string(spec.file_size_bytes) + ")";
    case ChildOp::kSetrlimitNofile:
      return "setrlimit(RLIMIT_NOFILE, " + std::to_string(spec.open_files) + ")";
    case ChildOp::kUnshareMount:
      return "unshare(CLONE_NEWNS | CLONE_NEWIPC | CLONE_NEWNET | CLONE_NEWCGROUP)";
    case ChildOp::kMakePrivate:
      return "mount(/, MS_REC | MS_PRIVATE)";
    case ChildOp::kCover:
      if (error.item < 0 || static_cast<size_t>(error.item) >= covered.size()) break;
      return "mount an empty tmpfs over " + covered[error.item];
    case ChildOp::kViewOpen:
      if (error.item < 0 || static_cast<size_t>(error.item) >= view.size()) break;
      return "open " + view[error.item].source + " (O_PATH) for the new root";
    case ChildOp::kViewStageMount:
      return std::string("mount the new root's tmpfs at ") + kViewStage;
    case ChildOp::kViewStep:
      return step(error.item);
    case ChildOp::kCoverScratch:
      return std::string("remove the covers' file ") + kViewStage + "/.cover";
    case ChildOp::kPivotRoot:
      return std::string("pivot_root into the new root at ") + kViewStage;
    case ChildOp::kRootReadOnly:
      return "remount the new root read-only";
    case ChildOp::kSetrlimitNproc:
      return "setrlimit(RLIMIT_NPROC, " +
             std::to_string(spec.processes *
                            (spec.group_fds.empty() ? 1 : kProcessesBeyondGroupFactor)) +
             ")";
    case ChildOp::kSetgroups:
      return "setgroups(0, NULL)";
    case ChildOp::kSetresgid:
      return "setresgid(" + std::to_string(kSandboxGid) + ")";
    case ChildOp::kSetresuid:
      return "setresuid(" + std::to_string(spec.uid) + ")";
    case ChildOp::kChdir:
      return "chdir " + spec.cwd;
    case ChildOp::kNoNewPrivs:
      return "prctl(PR_SET_NO_NEW_PRIVS, 1)";
    case ChildOp::kSeccomp:
      return "seccomp(SECCOMP_SET_MODE_FILTER, SECCOMP_FILTER_FLAG_NEW_LISTENER)";
    case ChildOp::kSendListener:
      return "send the filter's listener to the parent";
    case ChildOp::kSigprocmask:
      return "sigprocmask(SIG_SETMASK, {})";
    case ChildOp::kExecve:
      return "execve";
  }
  return "step " + std::to_string(static_cast<int>(error.op)) + " (unknown)";
}

// The listener descriptor the child sent with SCM_RIGHTS, or -1.
int ReceiveListener(int socket) {
  DescriptorMessage message;
  return message.Receive(socket);
}

// Reads the child's report: 0 bytes when execve closed the pipe (success).
ssize_t ReadReport(int fd, ChildError* error) {
  char* bytes = reinterpret_cast<char*>(error);
  size_t got = 0;
  while (got < sizeof *error) {
    ssize_t n = read(fd, bytes + got, sizeof *error - got);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) break;
    got += n;
  }
  return static_cast<ssize_t>(got);
}

}  // namespace

SandboxInfo DescribeSandbox() {
  SandboxInfo info;
  uid_t euid = geteuid();
  if (euid == 0) {
    info.full = true;
    info.uid = FirstWorkerUid();
    info.slot = SandboxSlot();
    return info;
  }
  info.uid = euid;
  info.partial_reason =
      "ratchet runs as uid " + std::to_string(euid) +
      ", not root: workers keep that uid and reach whatever it can, get no private mount "
      "namespace (covered folders stay visible), and only the seccomp filter, no_new_privs and "
      "the resource limits apply";
  return info;
}

Result<pid_t> Spawn(const SpawnSpec& spec) {
  RATCHET_RETURN_IF_ERROR(CheckSpec(spec));
  const std::string& program = spec.argv[0];
  const Result<std::vector<sock_filter>>& filter = SeccompProgram();
  if (!filter.ok()) return filter.status().Annotate("spawn " + program + ": the seccomp filter");
  Result<std::vector<std::string>> covered = ExistingFolders(spec);
  if (!covered.ok()) return covered.status();

  // Everything the child touches is built here, before fork.
  std::vector<char*> argv = NullTerminated(spec.argv);
  std::vector<char*> envp = NullTerminated(spec.env);
  std::vector<const char*> covered_paths;
  for (const std::string& folder : *covered) covered_paths.push_back(folder.c_str());
  const bool as_root = geteuid() == 0;
  std::vector<ViewStep> view;
  if (as_root) {
    ViewRequest request;
    request.extra_folders = spec.view_folders;
    request.work_folder = spec.cwd;
    request.temp_bytes = spec.file_size_bytes;
    Result<std::vector<ViewStep>> planned = PlanView(request);
    if (!planned.ok()) return planned.status().Annotate("spawn " + program);
    view = std::move(*planned);
  }
  // Each target under the stage, where the child builds the new root before entering it.
  std::vector<std::string> staged;
  staged.reserve(view.size());
  for (const ViewStep& at : view) staged.push_back(kViewStage + at.target);
  const std::string cover_scratch = std::string(kViewStage) + "/.cover";
  std::vector<internal::ViewOp> view_ops;
  for (size_t i = 0; i < view.size(); ++i) {
    view_ops.push_back(
        {static_cast<int32_t>(view[i].kind), staged[i].c_str(), view[i].source.c_str()});
  }
  std::vector<int> view_fds(view.size());
  std::vector<int> scratch_fds(spec.fds.size());
  sock_fprog program_bpf = {static_cast<unsigned short>(filter->size()),
                            const_cast<sock_filter*>(filter->data())};

  int error_pipe[2];
  if (pipe2(error_pipe, O_CLOEXEC) != 0)
    return Status::IOError("spawn " + program + ": pipe2", errno);
  int listener_sockets[2];
  if (socketpair(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0, listener_sockets) != 0) {
    int error = errno;
    close(error_pipe[0]);
    close(error_pipe[1]);
    return Status::IOError("spawn " + program + ": socketpair", error);
  }

  ChildPlan plan;
  plan.parent_pid = getpid();
  plan.error_fd = error_pipe[1];
  plan.listener_socket = listener_sockets[1];
  plan.path = argv[0];
  plan.argv = argv.data();
  plan.envp = envp.data();
  plan.cwd = spec.cwd.c_str();
  plan.fds = spec.fds.data();
  plan.fd_count = spec.fds.size();
  plan.scratch_fds = scratch_fds.data();
  int highest =
      std::max({2, error_pipe[0], error_pipe[1], listener_sockets[0], listener_sockets[1]});
  for (const FdMapping& mapping : spec.fds) {
    plan.max_child_fd = std::max(plan.max_child_fd, mapping.child_fd);
    highest = std::max({highest, mapping.parent_fd, mapping.child_fd});
  }
  plan.dup_floor = highest + 1;
  plan.file_size_bytes = spec.file_size_bytes;
  plan.open_files = spec.open_files;
  plan.group_fds = spec.group_fds.data();
  plan.group_fd_count = spec.group_fds.size();
  plan.as_root = as_root;
  plan.own_pid_namespace = as_root;
  plan.stage = kViewStage;
  plan.cover_scratch = cover_scratch.c_str();
  plan.view = view_ops.data();
  plan.view_count = view_ops.size();
  plan.view_fds = view_fds.data();
  plan.covered = covered_paths.data();
  plan.covered_count = plan.as_root ? covered_paths.size() : 0;
  plan.processes = spec.processes * (spec.group_fds.empty() ? 1 : kProcessesBeyondGroupFactor);
  plan.uid = spec.uid;
  plan.gid = kSandboxGid;
  plan.filter = &program_bpf;
  sigemptyset(&plan.empty_mask);

  // No handler of the parent may run in the child before the child resets them all.
  sigset_t all, previous;
  sigfillset(&all);
  pthread_sigmask(SIG_SETMASK, &all, &previous);
  // As root the child is the first process of a PID namespace of its own: it sees no process
  // of the machine, the process ids it and its children use tell nothing of any other call, and
  // when it exits the kernel kills whatever it left in there. clone without a stack is fork.
  pid_t pid =
      as_root ? static_cast<pid_t>(syscall(SYS_clone, CLONE_NEWPID | SIGCHLD, 0, 0, 0, 0)) : fork();
  if (pid == 0) internal::RunChild(plan);
  int fork_error = errno;
  pthread_sigmask(SIG_SETMASK, &previous, nullptr);
  close(error_pipe[1]);
  close(listener_sockets[1]);
  if (pid < 0) {
    close(error_pipe[0]);
    close(listener_sockets[0]);
    return Status::IOError("spawn " + program + ": fork", fork_error);
  }

  ChildError error = {};
  ssize_t got = ReadReport(error_pipe[0], &error);
  close(error_pipe[0]);
  // The child sent the listener before execve, so it waits in the socket by now.
  int listener = got == 0 ? ReceiveListener(listener_sockets[0]) : -1;
  close(listener_sockets[0]);
  if (got == 0 && listener < 0) {
    // The child died before it sent the listener (a signal, the group's OOM kill): the caller's
    // waitpid sees how. The kill makes sure no process runs whose calls nobody answers.
    kill(pid, SIGKILL);
    return pid;
  }
  if (got == 0) {
    Status answering = AnswerInBackground(listener);
    if (answering.ok()) return pid;  // execve succeeded and closed the pipe
    kill(pid, SIGKILL);
    int status = 0;
    while (waitpid(pid, &status, 0) < 0 && errno == EINTR) {
    }
    return answering.Annotate("spawn " + program);
  }
  int status = 0;
  while (waitpid(pid, &status, 0) < 0 && errno == EINTR) {
  }
  if (got != sizeof error) {
    return Status::Internal("spawn " + program + ": the child sent a partial error report");
  }
  return Status::IOError("spawn " + program + ": " + DescribeFailure(error, spec, *covered, view),
                         error.error);
}

Status MakeParentNonDumpable() {
  if (prctl(PR_SET_DUMPABLE, 0, 0, 0, 0) != 0) {
    return Status::IOError("prctl(PR_SET_DUMPABLE, 0)", errno);
  }
  return Status::Ok();
}

}  // namespace ratchet
