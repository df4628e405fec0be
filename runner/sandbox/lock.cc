#include "sandbox/lock.h"

#include <fcntl.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <string>
#include <utility>

#include "core/file.h"

namespace ratchet {

Result<SandboxLock> SandboxLock::Acquire(bool wait, const std::string& path) {
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
  while (flock(fd, LOCK_EX | (wait ? 0 : LOCK_NB)) != 0) {
    if (errno == EINTR) continue;
    if (errno == EWOULDBLOCK) {
      Result<std::string> holder = ReadFile(path, 32);
      return Status::Unavailable("another ratchet process (pid " +
                                 (holder.ok() ? *holder : std::string("?")) +
                                 ") is using the sandbox; its lock is " + path);
    }
    return Status::IOError("flock the sandbox lock " + path, errno);
  }
  // Who holds it, for the message above; a failure here costs only that message.
  std::string pid = std::to_string(getpid());
  if (ftruncate(fd, 0) == 0) (void)!pwrite(fd, pid.data(), pid.size(), 0);
  return Result<SandboxLock>(std::move(lock));
}

SandboxLock& SandboxLock::operator=(SandboxLock&& other) noexcept {
  if (this != &other) {
    if (fd_ >= 0) close(fd_);
    fd_ = other.fd_;
    other.fd_ = -1;
  }
  return *this;
}

SandboxLock::~SandboxLock() {
  if (fd_ >= 0) close(fd_);
}

}  // namespace ratchet
