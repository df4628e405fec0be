#include "sandbox/spawn.h"

#include <fcntl.h>
#include <pthread.h>
#include <signal.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <set>
#include <string>

#include "sandbox/contain.h"
#include "sandbox/reap.h"
#include "sandbox/seccomp_filter.h"

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
  if (std::find(std::begin(kWorkerUids), std::end(kWorkerUids), spec.uid) ==
      std::end(kWorkerUids)) {
    return Status::Internal("spawn " + program + ": uid " + std::to_string(spec.uid) +
                            " is not one of the sandbox's worker uids");
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

// The temporary folders of this machine that the child gets empty ones of its own for (those that
// exist), and, when the working folder lies inside one, the folders to make in the new tmpfs
// from there down to the working folder, which is then bind-mounted onto the last.
struct TempPlan {
  std::vector<std::string> folders;
  std::vector<std::string> keep_dirs;
  std::string options;
};

TempPlan PlanTemp(const SpawnSpec& spec) {
  TempPlan plan;
  for (const std::string& folder : WorldWritableFolders()) {
    struct stat st;
    if (stat(folder.c_str(), &st) == 0 && S_ISDIR(st.st_mode)) plan.folders.push_back(folder);
  }
  for (const std::string& folder : plan.folders) {
    if (spec.cwd.size() <= folder.size() + 1 || spec.cwd.compare(0, folder.size(), folder) != 0 ||
        spec.cwd[folder.size()] != '/') {
      continue;
    }
    for (size_t slash = spec.cwd.find('/', folder.size() + 1);;
         slash = spec.cwd.find('/', slash + 1)) {
      std::string dir = spec.cwd.substr(0, slash);
      if (!dir.empty() && dir.back() != '/' && dir.size() > folder.size() + 1)
        plan.keep_dirs.push_back(dir);
      if (slash == std::string::npos) break;
    }
    break;
  }
  // As large as the largest file the child may write; inodes enough for any honest use.
  plan.options = "size=" + std::to_string(spec.file_size_bytes) + ",nr_inodes=65536,mode=1777";
  return plan;
}

std::vector<char*> NullTerminated(const std::vector<std::string>& strings) {
  std::vector<char*> pointers;
  for (const std::string& s : strings) pointers.push_back(const_cast<char*>(s.c_str()));
  pointers.push_back(nullptr);
  return pointers;
}

// What the child was doing when it failed, in the words of the syscall.
std::string DescribeFailure(const ChildError& error, const SpawnSpec& spec,
                            const std::vector<std::string>& covered) {
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
      return "unshare(CLONE_NEWNS | CLONE_NEWIPC | CLONE_NEWNET)";
    case ChildOp::kMakePrivate:
      return "mount(/, MS_REC | MS_PRIVATE)";
    case ChildOp::kCover:
      if (error.item < 0 || static_cast<size_t>(error.item) >= covered.size()) break;
      return "mount an empty tmpfs over " + covered[error.item];
    case ChildOp::kPrivateTemp: {
      std::vector<std::string> folders = PlanTemp(spec).folders;
      if (error.item < 0 || static_cast<size_t>(error.item) >= folders.size()) break;
      return "mount an empty tmpfs of the child's own over " + folders[error.item];
    }
    case ChildOp::kKeepFolder: {
      std::vector<std::string> dirs = PlanTemp(spec).keep_dirs;
      if (error.item == -1)
        return "bind-mount " + spec.cwd + " into the child's own temporary folder";
      if (error.item < 0 || static_cast<size_t>(error.item) >= dirs.size()) break;
      return "mkdir " + dirs[error.item] + " in the child's own temporary folder";
    }
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
      return "prctl(PR_SET_SECCOMP, SECCOMP_MODE_FILTER)";
    case ChildOp::kSigprocmask:
      return "sigprocmask(SIG_SETMASK, {})";
    case ChildOp::kExecve:
      return "execve";
  }
  return "step " + std::to_string(static_cast<int>(error.op)) + " (unknown)";
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
    info.uid = kSandboxUid;
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
  const TempPlan temp = PlanTemp(spec);
  std::vector<const char*> temp_paths, keep_paths;
  for (const std::string& folder : temp.folders) temp_paths.push_back(folder.c_str());
  for (const std::string& dir : temp.keep_dirs) keep_paths.push_back(dir.c_str());
  std::vector<int> scratch_fds(spec.fds.size());
  sock_fprog program_bpf = {static_cast<unsigned short>(filter->size()),
                            const_cast<sock_filter*>(filter->data())};

  int error_pipe[2];
  if (pipe2(error_pipe, O_CLOEXEC) != 0)
    return Status::IOError("spawn " + program + ": pipe2", errno);

  ChildPlan plan;
  plan.parent_pid = getpid();
  plan.error_fd = error_pipe[1];
  plan.path = argv[0];
  plan.argv = argv.data();
  plan.envp = envp.data();
  plan.cwd = spec.cwd.c_str();
  plan.fds = spec.fds.data();
  plan.fd_count = spec.fds.size();
  plan.scratch_fds = scratch_fds.data();
  int highest = std::max({2, error_pipe[0], error_pipe[1]});
  for (const FdMapping& mapping : spec.fds) {
    plan.max_child_fd = std::max(plan.max_child_fd, mapping.child_fd);
    highest = std::max({highest, mapping.parent_fd, mapping.child_fd});
  }
  plan.dup_floor = highest + 1;
  plan.file_size_bytes = spec.file_size_bytes;
  plan.open_files = spec.open_files;
  plan.as_root = geteuid() == 0;
  plan.covered = covered_paths.data();
  plan.covered_count = plan.as_root ? covered_paths.size() : 0;
  plan.temp = temp_paths.data();
  plan.temp_count = plan.as_root ? temp_paths.size() : 0;
  plan.temp_options = temp.options.c_str();
  plan.keep_dirs = keep_paths.data();
  plan.keep_count = plan.as_root ? keep_paths.size() : 0;
  plan.uid = spec.uid;
  plan.gid = kSandboxGid;
  plan.filter = &program_bpf;
  sigemptyset(&plan.empty_mask);

  // No handler of the parent may run in the child before the child resets them all.
  sigset_t all, previous;
  sigfillset(&all);
  pthread_sigmask(SIG_SETMASK, &all, &previous);
  pid_t pid = fork();
  if (pid == 0) internal::RunChild(plan);
  int fork_error = errno;
  pthread_sigmask(SIG_SETMASK, &previous, nullptr);
  close(error_pipe[1]);
  if (pid < 0) {
    close(error_pipe[0]);
    return Status::IOError("spawn " + program + ": fork", fork_error);
  }

  ChildError error = {};
  ssize_t got = ReadReport(error_pipe[0], &error);
  close(error_pipe[0]);
  if (got == 0) return pid;  // execve succeeded and closed the pipe
  int status = 0;
  while (waitpid(pid, &status, 0) < 0 && errno == EINTR) {
  }
  if (got != sizeof error) {
    return Status::Internal("spawn " + program + ": the child sent a partial error report");
  }
  return Status::IOError("spawn " + program + ": " + DescribeFailure(error, spec, *covered),
                         error.error);
}

Status MakeParentNonDumpable() {
  if (prctl(PR_SET_DUMPABLE, 0, 0, 0, 0) != 0) {
    return Status::IOError("prctl(PR_SET_DUMPABLE, 0)", errno);
  }
  return Status::Ok();
}

}  // namespace ratchet
