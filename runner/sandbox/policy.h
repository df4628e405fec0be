// The sandbox policy as data: the identity a worker runs as, its resource limits, and every rule
// of the seccomp filter. One table serves both the filter (seccomp_filter.cc builds it) and the
// canonical description whose hash the contract locks (locked.sandbox), so the two cannot drift.
#ifndef RATCHET_SANDBOX_POLICY_H_
#define RATCHET_SANDBOX_POLICY_H_

#include <sys/types.h>

#include <cstdint>
#include <string>
#include <vector>

#include "core/canonical_json.h"

namespace ratchet {

// "nobody"/"nogroup" on Debian and Ubuntu: owns no file a worker could use.
constexpr uid_t kSandboxUid = 65534;
constexpr gid_t kSandboxGid = 65534;
// The worker uids are split into slots, one per scorer on the machine at once (one for each GPU
// it scores on): a scorer holds its slot's lock (SandboxLock::AcquireSlot) for as long as it
// runs, and signals, freezes and reaps only its own slot's uids, so that two scorers side by side
// never touch each other's workers. Within a slot, a run's workers take its uids in turn: a worker
// started ahead of its call (while the one before is still running) has a uid of its own, so no
// process of one call can signal, trace or read a process of another. Slot s holds
// kSandboxUid - kWorkerUidCount * s - i for i < kWorkerUidCount: slot 0 is 65534-65527, slot 7
// 65478-65471. None but 65534 belongs to an account on Debian or Ubuntu; a machine where one of
// a slot's does is refused when the slot is taken (CheckWorkerUids).
constexpr size_t kWorkerUidCount = 8;
constexpr int kSandboxSlotCount = 8;

// The worker uids of slot `slot`, kSandboxUid - kWorkerUidCount * slot first.
std::vector<uid_t> SlotWorkerUids(int slot);
// Whether `uid` is a worker uid of some slot.
bool IsSandboxWorkerUid(uid_t uid);
// The slot this process's workers take their uids from: 0 until SetSandboxSlot (which the holder
// of the slot's lock calls).
int SandboxSlot();
void SetSandboxSlot(int slot);
// The uids of SandboxSlot(), and the first of them: a compile's, the source checker's and the
// energy worker's uid.
std::vector<uid_t> WorkerUids();
uid_t FirstWorkerUid();

// The limits Spawn applies unless its caller gives others; a run's workers and compiles take
// theirs from the rule set's sandbox block (RuleSet::Sandbox). The address space is never
// limited: CUDA reserves address ranges far larger than the memory it uses.
constexpr uint64_t kDefaultFileSizeBytes = uint64_t{1} << 30;
constexpr uint64_t kDefaultOpenFiles = 4096;
// Each untrusted process's own folder: a fresh tmpfs at a path with this prefix.
inline constexpr char kWorkerFolderPrefix[] = "/tmp/ratchet-worker-";
// Processes and threads at once: room for torch's thread pools and a compiler's jobs, not for a
// fork bomb.
constexpr uint64_t kDefaultProcesses = 1024;
// RLIMIT_NPROC of a process in a control group is this many times the group's pids.max: the
// group refuses a fork first, and counts it (the rule `processes`); the rlimit, which counts every
// process of the uid on the machine (a previous worker's still exiting among them), is a backstop.
constexpr uint64_t kProcessesBeyondGroupFactor = 4;

// How a rule tests a syscall's arguments before it refuses the call.
struct ArgumentTest {
  enum class Op {
    kAlways,      // no test: every call is refused
    kNotEqual,    // the argument (all 64 bits) differs from `value`
    kMaskedEqual  // (argument & mask) == value
  };
  Op op = Op::kAlways;
  unsigned arg = 0;
  uint64_t mask = 0;
  uint64_t value = 0;
  const char* value_name = nullptr;  // "AF_UNIX", "TIOCSTI", "CLONE_NEWUSER": for the description
};

// One rule of the filter: a call of syscall `nr` (x86-64 numbering) that passes `test` fails with
// `error` instead of running, or, where `error` is kAnswered, is answered by the parent with fixed
// values (answer.h) and never reaches the kernel. Calls that no rule matches run.
constexpr int kAnswered = 0;
struct SyscallRule {
  const char* name;
  int nr;
  int error;  // EPERM, EACCES, ENOSYS or EOPNOTSUPP; kAnswered
  ArgumentTest test;
};

// Every rule, in the order the policy lists them.
const std::vector<SyscallRule>& SeccompRules();

// The steps Spawn applies between fork and execve, in order (docs/sandbox.md explains each).
const std::vector<std::string>& SandboxSteps();

// The canonical description of the policy: identity, steps, limits, covered-folder rule, the
// filter's architecture handling and every rule. The contract locks its hash.
Json SandboxPolicyJson();
// CanonicalSha256(SandboxPolicyJson()), hex.
std::string SandboxPolicySha256();

}  // namespace ratchet

#endif  // RATCHET_SANDBOX_POLICY_H_
