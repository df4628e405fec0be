// Small helpers for the protocol tests: pipes and files holding given bytes.
#ifndef RATCHET_TESTS_PROTOCOL_PIPE_UTIL_H_
#define RATCHET_TESTS_PROTOCOL_PIPE_UTIL_H_

#include <fcntl.h>
#include <sys/mman.h>
#include <unistd.h>

#include <string>
#include <string_view>

#include "protocol/unique_fd.h"

namespace ratchet {

struct Pipe {
  UniqueFd read, write;
};

inline Pipe MakePipe(int flags = O_CLOEXEC) {
  int fds[2] = {-1, -1};
  if (pipe2(fds, flags) != 0) return {};
  return {UniqueFd(fds[0]), UniqueFd(fds[1])};
}

inline bool WriteAll(int fd, std::string_view bytes) {
  while (!bytes.empty()) {
    ssize_t n = write(fd, bytes.data(), bytes.size());
    if (n < 0) return false;
    bytes.remove_prefix(static_cast<size_t>(n));
  }
  return true;
}

// A descriptor positioned at the start of a file holding exactly `bytes`: a reader sees EOF
// right after them, as it would from a pipe whose writer then closed.
inline UniqueFd FileWith(std::string_view bytes) {
  UniqueFd fd(memfd_create("protocol-test", MFD_CLOEXEC));
  if (!fd.valid() || !WriteAll(fd.get(), bytes) || lseek(fd.get(), 0, SEEK_SET) != 0) return {};
  return fd;
}

}  // namespace ratchet

#endif  // RATCHET_TESTS_PROTOCOL_PIPE_UTIL_H_
