// One sandbox uid per machine: after each call every process of uid 65534 is killed and its
// files removed, so two ratchet processes using the sandbox at once would reap each other's
// workers. SandboxLock serializes them: whoever spawns sandboxed processes as root holds it.
#ifndef RATCHET_SANDBOX_LOCK_H_
#define RATCHET_SANDBOX_LOCK_H_

#include <atomic>
#include <iosfwd>
#include <string>

#include "core/status.h"

namespace ratchet {

// In /run, which only root may write (not /run/lock, where a worker could plant the file).
constexpr char kSandboxLockPath[] = "/run/ratchet-sandbox.lock";

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

  SandboxLock(SandboxLock&& other) noexcept : fd_(other.fd_) { other.fd_ = -1; }
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
};

}  // namespace ratchet

#endif  // RATCHET_SANDBOX_LOCK_H_
