// One writer of a baseline at a time: `ratchet promote` holds an exclusive lock on the folder
// that holds the baseline for its whole read-modify-write (and the copy of the evidence beside
// it), so that two promotes never both write from the same reading and never copy one evidence
// directory at once. The lock is flock(2) on the folder itself: the baseline file is replaced by
// rename, and a lock on it would be a lock on the file it was, not the one it is.
#ifndef RATCHET_BASELINE_BASELINE_LOCK_H_
#define RATCHET_BASELINE_BASELINE_LOCK_H_

#include <ostream>
#include <string>

#include "core/status.h"

namespace ratchet {

class BaselineLock {
 public:
  // Locks the folder of `baseline_path`, waiting while another process holds it; the person is
  // told once, on `err`, that `command` waits. Errors name the folder.
  static Result<BaselineLock> Acquire(const std::string& baseline_path, const std::string& command,
                                      std::ostream& err);

  BaselineLock(BaselineLock&& other) noexcept : fd_(other.fd_) { other.fd_ = -1; }
  BaselineLock& operator=(BaselineLock&&) = delete;
  BaselineLock(const BaselineLock&) = delete;
  BaselineLock& operator=(const BaselineLock&) = delete;
  ~BaselineLock();  // releases it

 private:
  explicit BaselineLock(int fd) : fd_(fd) {}
  int fd_ = -1;
};

}  // namespace ratchet

#endif  // RATCHET_BASELINE_BASELINE_LOCK_H_
