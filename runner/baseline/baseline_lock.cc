#include "baseline/baseline_lock.h"

#include <fcntl.h>
#include <sys/file.h>
#include <unistd.h>

#include <cerrno>

#include "core/file.h"

namespace ratchet {

Result<BaselineLock> BaselineLock::Acquire(const std::string& baseline_path,
                                           const std::string& command, std::ostream& err) {
  std::string folder = DirName(baseline_path);
  if (folder.empty()) folder = ".";
  const int fd = open(folder.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  if (fd < 0) return Status::IOError("open the baseline's folder " + folder, errno);
  BaselineLock lock(fd);
  int operation = LOCK_EX | LOCK_NB;
  while (flock(fd, operation) != 0) {
    if (errno == EINTR) continue;
    if (errno == EWOULDBLOCK && (operation & LOCK_NB)) {
      err << "ratchet " << command << ": another ratchet is writing a baseline in " << folder
          << "; waiting for it\n";
      err.flush();
      operation = LOCK_EX;
      continue;
    }
    return Status::IOError("lock the baseline's folder " + folder, errno);
  }
  return lock;
}

BaselineLock::~BaselineLock() {
  if (fd_ >= 0) close(fd_);  // closing the descriptor releases the lock
}

}  // namespace ratchet
