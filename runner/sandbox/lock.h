// One sandbox uid per machine: after each call every process of uid 65534 is killed and its
// files removed, so two ratchet processes using the sandbox at once would reap each other's
// workers. SandboxLock serializes them: whoever spawns sandboxed processes as root holds it.
#ifndef RATCHET_SANDBOX_LOCK_H_
#define RATCHET_SANDBOX_LOCK_H_

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

  SandboxLock(SandboxLock&& other) noexcept : fd_(other.fd_) { other.fd_ = -1; }
  SandboxLock& operator=(SandboxLock&& other) noexcept;
  SandboxLock(const SandboxLock&) = delete;
  SandboxLock& operator=(const SandboxLock&) = delete;
  ~SandboxLock();  // releases it

 private:
  explicit SandboxLock(int fd) : fd_(fd) {}
  int fd_ = -1;
};

}  // namespace ratchet

#endif  // RATCHET_SANDBOX_LOCK_H_
