#include "baseline/input_file.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>

#include "core/file.h"

namespace ratchet {
namespace {

const char* KindOf(mode_t mode) {
  if (S_ISFIFO(mode)) return "a FIFO (a named pipe)";
  if (S_ISCHR(mode)) return "a character device";
  if (S_ISBLK(mode)) return "a block device";
  if (S_ISSOCK(mode)) return "a socket";
  if (S_ISDIR(mode)) return "a folder";
  return "not a plain file";
}

Status NotRegular(const std::string& path, const std::string& what, mode_t mode) {
  return Status::BadInput(what + " " + Excerpt(path) + " is " + KindOf(mode) +
                          ", not a regular file: ratchet reads only regular files");
}

std::string MiB(size_t bytes) {
  return bytes % (1 << 20) == 0 ? std::to_string(bytes >> 20) + " MiB"
                                : std::to_string(bytes) + " bytes";
}

}  // namespace

Status CheckRegularInput(const std::string& path, const std::string& what) {
  RATCHET_RETURN_IF_ERROR(CheckInputFile(path, what));
  struct stat info;
  if (stat(path.c_str(), &info) != 0) return Status::IOError("stat " + path, errno);
  if (!S_ISREG(info.st_mode)) return NotRegular(path, what, info.st_mode);
  return Status::Ok();
}

Status CheckNotSpecialFile(const std::string& path, const std::string& what) {
  struct stat info;
  if (stat(path.c_str(), &info) != 0) return Status::Ok();
  if (S_ISREG(info.st_mode) || S_ISDIR(info.st_mode)) return Status::Ok();
  return NotRegular(path, what, info.st_mode);
}

Result<std::string> ReadInputFile(const std::string& path, const std::string& what, size_t limit) {
  RATCHET_RETURN_IF_ERROR(CheckRegularInput(path, what));
  // Without blocking: a file swapped for a FIFO since the check opens at once and is refused.
  const int fd = open(path.c_str(), O_RDONLY | O_NONBLOCK | O_CLOEXEC);
  if (fd < 0) return Status::IOError("open " + path, errno);
  struct stat info;
  if (fstat(fd, &info) != 0 || !S_ISREG(info.st_mode)) {
    const mode_t mode = info.st_mode;
    close(fd);
    return NotRegular(path, what, mode);
  }
  std::string text;
  char buffer[1 << 16];
  while (true) {
    ssize_t n = read(fd, buffer, sizeof buffer);
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) {
      const int error = errno;
      close(fd);
      return Status::IOError("read " + path, error);
    }
    if (n == 0) break;
    text.append(buffer, static_cast<size_t>(n));
    if (text.size() > limit) {
      close(fd);
      return Status::BadInput(what + " " + Excerpt(path) + " is larger than the " + MiB(limit) +
                              " ratchet reads of it");
    }
  }
  close(fd);
  return text;
}

std::string Excerpt(std::string_view text, size_t max, bool keep_newlines) {
  std::string out;
  size_t i = 0;
  for (; i < text.size() && out.size() < max; ++i) {
    const unsigned char c = static_cast<unsigned char>(text[i]);
    if (c >= 0x20 && c < 0x7f) {
      out += static_cast<char>(c);
    } else if (c == '\n' && keep_newlines) {
      out += '\n';
    } else {
      char escaped[8];
      std::snprintf(escaped, sizeof escaped, "\\x%02x", c);
      out += escaped;
    }
  }
  if (i < text.size()) out += "... (" + std::to_string(text.size()) + " bytes in all)";
  return out;
}

Status Excerpted(const Status& status, size_t max) {
  if (status.ok()) return status;
  return Status::FromCode(status.code(), Excerpt(status.message(), max, true));
}

}  // namespace ratchet
