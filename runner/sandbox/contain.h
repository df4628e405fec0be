// The child's side of Spawn: the steps between fork and execve, applied in order by RunChild.
// Everything the child needs is prepared by the parent in a ChildPlan, because the parent may
// have threads: after fork the child only makes syscalls, never allocates or locks.
#ifndef RATCHET_SANDBOX_CONTAIN_H_
#define RATCHET_SANDBOX_CONTAIN_H_

#include <linux/filter.h>
#include <signal.h>
#include <sys/resource.h>
#include <sys/types.h>

#include <cstddef>
#include <cstdint>

#include "sandbox/spawn.h"
#include "sandbox/view.h"

namespace ratchet {
namespace internal {

// The syscall that failed in the child; the parent turns it into a message.
enum class ChildOp : int32_t {
  kNone = 0,
  kSigaction,
  kSetsid,
  kPdeathsig,
  kParentGone,
  kJoinGroup,  // item: the index in ChildPlan::group_fds
  kDupAbove,  // item: the index of the mapping, or -1 for the error pipe, -2 for /dev/null
  kOpenDevNull,
  kDup2,         // item: the index of the mapping
  kDup2DevNull,  // item: the standard descriptor given /dev/null
  kCloseRange,
  kGetrlimit,
  kSetrlimitCore,
  kSetrlimitFsize,
  kSetrlimitNofile,
  kUnshareMount,
  kMakePrivate,
  kViewOpen,   // item: the index in ChildPlan::view of the source opened
  kViewStageMount,  // the tmpfs the new root is built in
  kViewStep,   // item: the index in ChildPlan::view
  kCoverScratch,  // removing the covers' file once every cover is bound
  kPivotRoot,
  kRootReadOnly,
  kCover,  // item: the index in ChildPlan::covered
  kSetrlimitNproc,
  kSetgroups,
  kSetresgid,
  kSetresuid,
  kChdir,
  kNoNewPrivs,
  kSeccomp,
  kSendListener,
  kSigprocmask,
  kExecve,
};

// What a failed child writes to the error pipe before it exits.
struct ChildError {
  ChildOp op;
  int32_t item;
  int32_t error;  // errno
};

// One step of building the new root (ViewStep, with its target under ChildPlan::stage).
struct ViewOp {
  int32_t kind;  // ViewStep::Kind
  const char* target;
  const char* source;
};

struct ChildPlan {
  pid_t parent_pid = 0;
  int error_fd = -1;  // the write end of the CLOEXEC error pipe; moved during map-fds
  // The child's end of a Unix socket over which it sends the filter's listener (answer.h) to the
  // parent; moved during map-fds like error_fd.
  int listener_socket = -1;
  const char* path = nullptr;
  char* const* argv = nullptr;
  char* const* envp = nullptr;
  const char* cwd = nullptr;

  const FdMapping* fds = nullptr;
  size_t fd_count = 0;
  int* scratch_fds = nullptr;  // fd_count slots for the child to use
  int max_child_fd = 2;        // 0-2 always exist in the child
  int dup_floor = 0;           // above every descriptor the mapping names

  rlim_t file_size_bytes = 0;
  rlim_t open_files = 0;
  const int* group_fds = nullptr;  // cgroup.procs of the child's group in each hierarchy
  size_t group_fd_count = 0;

  bool as_root = false;  // the namespace, view and identity steps apply
  // The child is the first process of a PID namespace of its own (its parent is outside it).
  bool own_pid_namespace = false;
  // The new root: built in a tmpfs mounted at `stage`, then entered with pivot_root.
  const char* stage = nullptr;
  // A path in the stage where each covering file is written before it is bound (kCover).
  const char* cover_scratch = nullptr;
  const ViewOp* view = nullptr;
  size_t view_count = 0;
  int* view_fds = nullptr;  // view_count slots: the sources, opened before the stage hides them
  const char* const* covered = nullptr;
  size_t covered_count = 0;
  rlim_t processes = 0;  // RLIMIT_NPROC of the sandbox uid (as root)
  uid_t uid = 0;
  gid_t gid = 0;

  const sock_fprog* filter = nullptr;
  sigset_t empty_mask;
};

// Applies every step to the calling (forked) process and execs plan.path; never returns. On a
// failure it writes a ChildError to plan.error_fd and exits 127.
[[noreturn]] void RunChild(ChildPlan& plan);

}  // namespace internal
}  // namespace ratchet

#endif  // RATCHET_SANDBOX_CONTAIN_H_
