// Starting an untrusted process (a worker, the source checker, the compiler on a submission)
// under the sandbox: a fresh exec'd program as uid 65534 in its own session and mount namespace,
// with only the descriptors it is given, bounded resources and the seccomp filter. The steps and
// their order are in docs/sandbox.md.
#ifndef RATCHET_SANDBOX_SPAWN_H_
#define RATCHET_SANDBOX_SPAWN_H_

#include <sys/types.h>

#include <cstdint>
#include <string>
#include <vector>

#include "core/status.h"
#include "sandbox/policy.h"

namespace ratchet {

// A descriptor of the parent that the child finds at `child_fd`.
struct FdMapping {
  int parent_fd;
  int child_fd;
};

struct SpawnSpec {
  // argv[0] is an absolute path, exec'd directly (no PATH search).
  std::vector<std::string> argv;
  // The complete environment, "NAME=value": nothing of the parent's is added.
  std::vector<std::string> env;
  // The child's working folder: its own, created 0700 by the caller (owned by the sandbox uid
  // when running as root). As root it is bound read-write at its own path in the child's view
  // (view.h), and the child enters it after giving up root.
  std::string cwd;
  // Folders the child needs, read-only, beyond the view's base (view.h): the interpreter's
  // prefix, the toolchain's folders. Root only: without root the child sees the whole machine.
  std::vector<std::string> view_folders;
  // Moved to these numbers in the child; 0, 1 and 2 are /dev/null unless mapped, every other
  // descriptor is closed.
  std::vector<FdMapping> fds;
  // Folders hidden by an empty read-only mount in the child's view (root only): known dataset
  // folders, should the view hold one. A folder that does not exist has nothing to hide.
  std::vector<std::string> covered;
  // The largest file the child may write, and how many descriptors it may hold. Either is
  // lowered to the inherited hard limit when that is lower. Core files are always off.
  uint64_t file_size_bytes = kDefaultFileSizeBytes;
  uint64_t open_files = kDefaultOpenFiles;
  // The processes and threads the sandbox uid may have at once (RLIMIT_NPROC, as root).
  uint64_t processes = kDefaultProcesses;
  // The cgroup.procs files of the child's control group (ProcessGroup::join_fds), which it joins
  // before anything else of it runs; none under a partial sandbox.
  std::vector<int> group_fds;
  // The uid the child takes as root: one of WorkerUids() (its group is always kSandboxGid).
  uid_t uid = FirstWorkerUid();
};

// What Spawn does on this machine.
struct SandboxInfo {
  bool full = false;           // running as root: uid/gid 65534, mount namespace and filter
  std::string partial_reason;  // why not, when not full
  uid_t uid = 0;               // the uid the child runs as
  int slot = 0;                // the sandbox slot whose uids the workers take (full only)
};
SandboxInfo DescribeSandbox();

// Starts spec.argv[0] under the sandbox and returns its pid once execve has succeeded. The child
// leads a new session (its pgid is its pid); the caller waits for it. A step that fails in the
// child is an error naming the syscall, its object and errno, and the child is reaped.
Result<pid_t> Spawn(const SpawnSpec& spec);

// prctl(PR_SET_DUMPABLE, 0): no process of the same uid may read this one's memory through
// /proc/PID/mem or attach to it. Matters when not root, where workers share the parent's uid.
Status MakeParentNonDumpable();

}  // namespace ratchet

#endif  // RATCHET_SANDBOX_SPAWN_H_
