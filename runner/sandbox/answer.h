// The syscalls the parent answers for a sandboxed process (the rules with kAnswered, policy.h):
// sysinfo(2), whose real values are the machine's and could carry state from one call to the
// next. The filter hands each such call to a listener descriptor (seccomp user notification);
// a thread of the parent reads it and writes fixed values into the caller's memory.
#ifndef RATCHET_SANDBOX_ANSWER_H_
#define RATCHET_SANDBOX_ANSWER_H_

#include <sys/sysinfo.h>

#include <string>

namespace ratchet {

// What sysinfo(2) returns in the sandbox: the machine's total memory, all of it free, no swap,
// load 0, one process, uptime 0: the values the covered /proc/meminfo, /proc/loadavg and
// /proc/uptime show (view.h).
struct sysinfo FixedSysinfo();
// The same, in words, for the policy's description.
std::string FixedSysinfoDescription();

// Starts a detached thread that answers every call the filter of one sandboxed process (and of
// the processes it starts) hands to `listener`, and closes `listener` when the last of those
// processes is gone. A call it cannot answer (a bad pointer) fails with EFAULT, as the kernel's
// would; a call of another syscall fails with ENOSYS.
void AnswerInBackground(int listener);

}  // namespace ratchet

#endif  // RATCHET_SANDBOX_ANSWER_H_
