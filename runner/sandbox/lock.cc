#include "sandbox/lock.h"

#include <fcntl.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <chrono>
#include <ostream>
#include <string>
#include <thread>
#include <utility>
#include <vector>

#include "core/file.h"

namespace ratchet {
namespace {

// Long enough to cost nothing while another run holds the lock for minutes, short enough that
// an interrupted wait ends at once for the person who pressed Ctrl-C.
constexpr std::chrono::milliseconds kWaitPoll(100);

Status HeldByAnother(const std::string& path) {
  Result<std::string> holder = ReadFile(path, 32);
  return Status::Unavailable("another ratchet process (pid " +
                             (holder.ok() ? *holder : std::string("?")) +
                             ") is using the sandbox; its lock is " + path);
}

}  // namespace

Result<SandboxLock> SandboxLock::Open(const std::string& path) {
  int fd = open(path.c_str(), O_RDWR | O_CREAT | O_NOFOLLOW | O_CLOEXEC, 0600);
  if (fd < 0) return Status::IOError("open the sandbox lock " + path, errno);
  SandboxLock lock(fd);
  struct stat st;
  if (fstat(fd, &st) != 0) return Status::IOError("fstat the sandbox lock " + path, errno);
  // A file of another owner could be held open by that owner for ever.
  if (st.st_uid != geteuid() || !S_ISREG(st.st_mode)) {
    return Status::Unavailable("the sandbox lock " + path + " is not a regular file of uid " +
                               std::to_string(geteuid()) + "; remove it");
  }
  return Result<SandboxLock>(std::move(lock));
}

Result<bool> SandboxLock::Lock(int operation, const std::string& path) {
  while (flock(fd_, operation) != 0) {
    if (errno == EINTR) continue;
    if (errno == EWOULDBLOCK) return false;
    return Status::IOError("flock the sandbox lock " + path, errno);
  }
  return true;
}

void SandboxLock::RecordHolder() {
  // A failure here costs only the pid in another process's message.
  std::string pid = std::to_string(getpid());
  if (ftruncate(fd_, 0) == 0) (void)!pwrite(fd_, pid.data(), pid.size(), 0);
}

Result<SandboxLock> SandboxLock::Acquire(bool wait, const std::string& path) {
  Result<SandboxLock> lock = Open(path);
  if (!lock.ok()) return lock.status();
  Result<bool> held = lock->Lock(LOCK_EX | (wait ? 0 : LOCK_NB), path);
  if (!held.ok()) return held.status();
  if (!*held) return HeldByAnother(path);
  lock->RecordHolder();
  return lock;
}

Result<SandboxLock> SandboxLock::AcquireWaiting(const std::string& command, std::ostream& err,
                                                const std::atomic<bool>* interrupted,
                                                const std::string& path) {
  Result<SandboxLock> lock = Open(path);
  if (!lock.ok()) return lock.status();
  Result<bool> held = lock->Lock(LOCK_EX | LOCK_NB, path);
  if (held.ok() && !*held) {
    err << "ratchet " << command << ": " << HeldByAnother(path).message() << "; waiting for it\n";
    err.flush();
  }
  // Polled rather than blocking in flock: a signal that came just before a blocking flock would
  // not end it, and the wait would outlast the Ctrl-C.
  while (held.ok() && !*held) {
    if (interrupted && interrupted->load()) {
      return Status::Unavailable("interrupted while waiting for the sandbox lock " + path);
    }
    std::this_thread::sleep_for(kWaitPoll);
    held = lock->Lock(LOCK_EX | LOCK_NB, path);
  }
  if (!held.ok()) return held.status();
  lock->RecordHolder();
  return lock;
}

std::string SandboxSlotLockPath(int slot, const std::string& folder) {
  return folder + (slot == 0 ? "/ratchet-sandbox.lock"
                             : "/ratchet-sandbox-" + std::to_string(slot) + ".lock");
}

Result<SandboxLock> SandboxLock::AcquireSlot(const std::string& command, std::ostream& err,
                                             const std::atomic<bool>* interrupted, int slots,
                                             const std::string& folder) {
  std::vector<SandboxLock> opened;
  for (int slot = 0; slot < slots; ++slot) {
    Result<SandboxLock> lock = Open(SandboxSlotLockPath(slot, folder));
    if (!lock.ok()) return lock.status();
    lock->slot_ = slot;
    opened.push_back(std::move(*lock));
  }
  bool said = false;
  for (;;) {
    for (SandboxLock& lock : opened) {
      const std::string path = SandboxSlotLockPath(lock.slot_, folder);
      Result<bool> held = lock.Lock(LOCK_EX | LOCK_NB, path);
      if (!held.ok()) return held.status();
      if (!*held) continue;
      lock.RecordHolder();
      SetSandboxSlot(lock.slot_);
      return Result<SandboxLock>(std::move(lock));
    }
    if (!said) {
      err << "ratchet " << command << ": every one of the sandbox's " << slots
          << " slots is in use by another ratchet process (their locks are "
          << SandboxSlotLockPath(0, folder) << " and " << folder
          << "/ratchet-sandbox-<n>.lock); waiting for one\n";
      err.flush();
      said = true;
    }
    if (interrupted && interrupted->load()) {
      return Status::Unavailable("interrupted while waiting for a sandbox slot in " + folder);
    }
    std::this_thread::sleep_for(kWaitPoll);
  }
}

SandboxLock& SandboxLock::operator=(SandboxLock&& other) noexcept {
  if (this != &other) {
    if (fd_ >= 0) close(fd_);
    fd_ = other.fd_;
    slot_ = other.slot_;
    other.fd_ = -1;
  }
  return *this;
}

SandboxLock::~SandboxLock() {
  if (fd_ >= 0) close(fd_);
}

}  // namespace ratchet
