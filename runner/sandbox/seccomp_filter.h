// The seccomp filter of the sandbox, compiled to classic BPF by libseccomp from SeccompRules().
// It is built in the parent, before any fork, so a child only hands the finished program to the
// kernel and never allocates between fork and execve.
#ifndef RATCHET_SANDBOX_SECCOMP_FILTER_H_
#define RATCHET_SANDBOX_SECCOMP_FILTER_H_

#include <linux/filter.h>

#include <vector>

#include "core/status.h"

namespace ratchet {

// Builds the program: x86-64 only (any other architecture, and the x32 ABI, kills the process),
// every rule of SeccompRules(), everything else allowed. An error names the libseccomp call, or
// a rule whose syscall number disagrees with libseccomp's table.
Result<std::vector<sock_filter>> BuildSeccompProgram();

// BuildSeccompProgram(), built once per process.
const Result<std::vector<sock_filter>>& SeccompProgram();

}  // namespace ratchet

#endif  // RATCHET_SANDBOX_SECCOMP_FILTER_H_
