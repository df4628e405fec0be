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

namespace ratchet {
namespace internal {

// The syscall that failed in the child; the parent turns it into a message.
enum class ChildOp : int32_t {
  kNone = 0,
  kSigaction,
  kSetsid,
  kPdeathsig,
  kParentGone,
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
  kCover,        // item: the index in ChildPlan::covered
  kPrivateTemp,  // item: the index in ChildPlan::temp
  kKeepFolder,   // item: the index in ChildPlan::keep_dirs, or -1 for the bind mount
  kSetgroups,
  kSetresgid,
  kSetresuid,
  kChdir,
  kNoNewPrivs,
  kSeccomp,
  kSigprocmask,
  kExecve,
};

// What a failed child writes to the error pipe before it exits.
struct ChildError {
  ChildOp op;
  int32_t item;
  int32_t error;  // errno
};

struct ChildPlan {
  pid_t parent_pid = 0;
  int error_fd = -1;  // the write end of the CLOEXEC error pipe; moved during map-fds
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

  bool as_root = false;  // the mount and identity steps apply
  const char* const* covered = nullptr;
  size_t covered_count = 0;
  // Each gets an empty tmpfs of its own (`temp_options`), so that what the child leaves there
  // dies with its mount namespace. When the working folder lies inside one, `keep_dirs` are the
  // folders from there down to it, made in the new tmpfs, and the working folder is bind-mounted
  // onto the last of them.
  const char* const* temp = nullptr;
  size_t temp_count = 0;
  const char* temp_options = nullptr;
  const char* const* keep_dirs = nullptr;
  size_t keep_count = 0;
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
