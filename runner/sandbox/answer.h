// The syscalls the parent answers for a sandboxed process (the rules with kAnswered, policy.h):
// sysinfo(2), statfs(2) and fstatfs(2), whose real values hold the machine's load, memory and
// free disk blocks, which could carry state from one call to the next. The filter hands each such
// call to a listener descriptor (seccomp user notification); a thread of the parent reads it and
// writes the answer into the caller's memory.
#ifndef RATCHET_SANDBOX_ANSWER_H_
#define RATCHET_SANDBOX_ANSWER_H_

#include <sys/statfs.h>
#include <sys/sysinfo.h>

#include <string>

#include "core/status.h"

namespace ratchet {

// What sysinfo(2) returns in the sandbox: the machine's total memory, all of it free, no swap,
// load 0, one process, uptime 0: the values the covered /proc/meminfo, /proc/loadavg and
// /proc/uptime show (view.h).
struct sysinfo FixedSysinfo();
// A file system's statistics as statfs(2) returns them in the sandbox: the real ones but for the
// counts of free blocks and inodes, which any write on the machine moves: every block and inode
// free.
struct statfs FixedStatfs(struct statfs real);
// How the parent answers `syscall`, in words, for the policy's description.
std::string AnswerDescription(const std::string& syscall);

// Starts a thread, with every signal blocked, that answers every call the filter of one
// sandboxed process (and of the processes it starts) hands to `listener`, and closes `listener`
// when the last of those processes is gone. A call it cannot answer fails as the kernel's would
// (EFAULT for a bad pointer, ENOENT for a missing path, EBADF for a closed descriptor); a call of
// another syscall fails with ENOSYS. An error when the thread cannot start; `listener` is closed
// then too.
Status AnswerInBackground(int listener);

}  // namespace ratchet

#endif  // RATCHET_SANDBOX_ANSWER_H_
