// The sandbox's worker uids are split into slots (sandbox/policy.h): after each call every process
// of a worker uid is killed and its files removed, so two ratchet processes using one slot at
// once would reap each other's workers. Each slot has a lock, and whoever spawns sandboxed
// processes as root holds one: a scorer takes the first free slot (AcquireSlot), so that scorers
// side by side (one per GPU) each have uids of their own.
#ifndef RATCHET_SANDBOX_LOCK_H_
#define RATCHET_SANDBOX_LOCK_H_

#include <atomic>
#include <iosfwd>
#include <string>

#include "core/status.h"
#include "sandbox/policy.h"

namespace ratchet {

// In /run, which only root may write (not /run/lock, where a worker could plant the file): slot
// 0's lock, which is also the one lock of a ratchet from before slots.
constexpr char kSandboxLockPath[] = "/run/ratchet-sandbox.lock";
// The lock of slot `slot` in `folder`: ratchet-sandbox.lock for slot 0, ratchet-sandbox-<n>.lock
// for slot n.
std::string SandboxSlotLockPath(int slot, const std::string& folder = "/run");

class SandboxLock {
 public:
  // Takes the lock at `path` (flock on a root-owned file), waiting for it when `wait`; without
  // `wait` a held lock is an Unavailable error naming the pid that holds it.
  static Result<SandboxLock> Acquire(bool wait, const std::string& path = kSandboxLockPath);

  // Takes the lock for `ratchet COMMAND`, waiting while another process holds it: the person
  // is told once, on `err`, who holds it and that COMMAND waits. The wait looks at `interrupted`
  // (may be null) every 100 ms and gives up, with an Unavailable error, once it is set: a
  // scorer whose SIGINT handler only sets that flag still stops waiting at Ctrl-C.
  static Result<SandboxLock> AcquireWaiting(const std::string& command, std::ostream& err,
                                            const std::atomic<bool>* interrupted,
                                            const std::string& path = kSandboxLockPath);

  // Takes the first free slot's lock of `slots` (in `folder`), waiting while every one is held:
  // the person is told once, on `err`, that `ratchet COMMAND` waits, and the wait gives up as
  // AcquireWaiting's does. The slot becomes this process's (SetSandboxSlot).
  static Result<SandboxLock> AcquireSlot(const std::string& command, std::ostream& err,
                                         const std::atomic<bool>* interrupted,
                                         int slots = kSandboxSlotCount,
                                         const std::string& folder = "/run");

  // The slot whose lock this is (AcquireSlot), 0 otherwise.
  int slot() const { return slot_; }

  SandboxLock(SandboxLock&& other) noexcept : fd_(other.fd_), slot_(other.slot_) {
    other.fd_ = -1;
  }
  SandboxLock& operator=(SandboxLock&& other) noexcept;
  SandboxLock(const SandboxLock&) = delete;
  SandboxLock& operator=(const SandboxLock&) = delete;
  ~SandboxLock();  // releases it

 private:
  explicit SandboxLock(int fd) : fd_(fd) {}
  // Opens the file at `path`, refusing one that is not a regular file of this uid.
  static Result<SandboxLock> Open(const std::string& path);
  // flock(2) with `operation`, again after EINTR: true once held, false when another process
  // holds it (LOCK_NB).
  Result<bool> Lock(int operation, const std::string& path);
  // Writes this process's pid into the file, for the message of the next process refused.
  void RecordHolder();
  int fd_ = -1;
  int slot_ = 0;
};

}  // namespace ratchet

#endif  // RATCHET_SANDBOX_LOCK_H_
