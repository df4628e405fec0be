#include "core/file.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <climits>
#include <random>
#include <vector>

namespace ratchet {
namespace {

// `path` opened for reading. Opened without blocking, since opening a FIFO for reading waits
// for a writer that may never come; a FIFO is refused, and anything else (a file, a device,
// which a reader bounds) is read with blocking reads as usual.
Result<int> OpenForReading(const std::string& path) {
  int fd = open(path.c_str(), O_RDONLY | O_NONBLOCK | O_CLOEXEC);
  if (fd < 0) return Status::IOError("open " + path, errno);
  struct stat info;
  if (fstat(fd, &info) != 0) {
    int error = errno;
    close(fd);
    return Status::IOError("fstat " + path, error);
  }
  if (S_ISFIFO(info.st_mode)) {
    close(fd);
    return Status::BadInput(path + " is a FIFO (a named pipe), not a regular file: name a file");
  }
  int flags = fcntl(fd, F_GETFL);
  if (flags < 0 || fcntl(fd, F_SETFL, flags & ~O_NONBLOCK) != 0) {
    int error = errno;
    close(fd);
    return Status::IOError("fcntl " + path, error);
  }
  return fd;
}

// The one read loop: `path` in chunks of up to `chunk_bytes`, stopping after `limit` bytes.
Status ReadChunks(const std::string& path, size_t chunk_bytes, size_t limit,
                  const std::function<void(const char* data, size_t size)>& sink) {
  Result<int> opened = OpenForReading(path);
  if (!opened.ok()) return opened.status();
  const int fd = *opened;
  std::vector<char> buffer(chunk_bytes);
  size_t done = 0;
  while (done < limit) {
    ssize_t n = read(fd, buffer.data(), std::min(buffer.size(), limit - done));
    if (n < 0) {
      if (errno == EINTR) continue;
      int error = errno;
      close(fd);
      return Status::IOError("read " + path, error);
    }
    if (n == 0) break;
    sink(buffer.data(), static_cast<size_t>(n));
    done += static_cast<size_t>(n);
  }
  close(fd);
  return Status::Ok();
}

}  // namespace

Status ForEachChunk(const std::string& path, size_t chunk_bytes,
                    const std::function<void(const char* data, size_t size)>& sink) {
  return ReadChunks(path, chunk_bytes, std::string::npos, sink);
}

Result<std::string> ReadFile(const std::string& path, size_t limit) {
  std::string out;
  Status status = ReadChunks(path, 1 << 16, limit,
                             [&out](const char* data, size_t size) { out.append(data, size); });
  if (!status.ok()) return status;
  return out;
}

Status CheckInputFile(const std::string& path, const std::string& what) {
  const std::string named = what + " " + path;
  struct stat info;
  if (stat(path.c_str(), &info) != 0) {
    const int error = errno;
    switch (error) {
      case ENOENT: {
        char target[PATH_MAX];
        ssize_t n = readlink(path.c_str(), target, sizeof target - 1);
        if (n >= 0) {
          return Status::BadInput(named + " is a symlink to " +
                                  std::string(target, static_cast<size_t>(n)) +
                                  ", which does not exist");
        }
        return Status::BadInput(named + ": no such file");
      }
      case ENOTDIR:
        return Status::BadInput(named + ": a part of the path is not a folder");
      case ELOOP:
        return Status::BadInput(named + ": too many levels of symlinks");
      case ENAMETOOLONG:
        return Status::BadInput(named + ": the name is too long");
      default:
        return Status::IOError("stat " + path, error);
    }
  }
  if (S_ISDIR(info.st_mode)) return Status::BadInput(named + " is a folder, not a file");
  return Status::Ok();
}

Status WriteAll(int fd, std::string_view bytes, const std::string& path) {
  size_t done = 0;
  while (done < bytes.size()) {
    ssize_t n = write(fd, bytes.data() + done, bytes.size() - done);
    if (n < 0) {
      if (errno == EINTR) continue;
      return Status::IOError("write " + path, errno);
    }
    done += static_cast<size_t>(n);
  }
  return Status::Ok();
}

Status SyncFolder(const std::string& path) {
  int fd = open(path.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  if (fd < 0) return Status::IOError("open " + path, errno);
  Status status = fsync(fd) == 0 ? Status::Ok() : Status::IOError("fsync " + path, errno);
  close(fd);
  return status;
}

Status WriteFileAtomic(const std::string& path, std::string_view bytes, int mode) {
  const std::string folder = DirName(path);
  std::random_device random;
  const std::string temporary = folder + "/." + BaseName(path) + ".tmp-" +
                                std::to_string(getpid()) + "-" + std::to_string(random());
  int fd = open(temporary.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC | O_NOFOLLOW, mode);
  if (fd < 0) return Status::IOError("create " + temporary, errno);
  Status status = WriteAll(fd, bytes, temporary);
  if (status.ok() && fchmod(fd, static_cast<mode_t>(mode)) != 0) {
    status = Status::IOError("chmod " + temporary, errno);
  }
  if (status.ok() && fsync(fd) != 0) status = Status::IOError("fsync " + temporary, errno);
  if (close(fd) != 0 && status.ok()) status = Status::IOError("close " + temporary, errno);
  if (status.ok() && rename(temporary.c_str(), path.c_str()) != 0) {
    status = Status::IOError("rename " + temporary + " to " + path, errno);
  }
  if (!status.ok()) {
    unlink(temporary.c_str());
    return status;
  }
  return SyncFolder(folder);
}

bool PathExists(const std::string& path) {
  struct stat info;
  return lstat(path.c_str(), &info) == 0;
}

bool IsDirectory(const std::string& path) {
  struct stat info;
  return stat(path.c_str(), &info) == 0 && S_ISDIR(info.st_mode);
}

std::string DirName(const std::string& path) {
  std::string trimmed = path;
  while (trimmed.size() > 1 && trimmed.back() == '/') trimmed.pop_back();
  size_t slash = trimmed.rfind('/');
  if (slash == std::string::npos) return ".";
  if (slash == 0) return "/";
  return trimmed.substr(0, slash);
}

std::string BaseName(const std::string& path) {
  std::string trimmed = path;
  while (trimmed.size() > 1 && trimmed.back() == '/') trimmed.pop_back();
  size_t slash = trimmed.rfind('/');
  return slash == std::string::npos ? trimmed : trimmed.substr(slash + 1);
}

bool EndsWith(const std::string& text, const std::string& suffix) {
  return text.size() >= suffix.size() &&
         text.compare(text.size() - suffix.size(), suffix.size(), suffix) == 0;
}

Result<std::string> SelfExecutable() {
  char buffer[PATH_MAX];
  ssize_t n = readlink("/proc/self/exe", buffer, sizeof buffer - 1);
  if (n < 0) return Status::IOError("readlink /proc/self/exe", errno);
  return std::string(buffer, static_cast<size_t>(n));
}

}  // namespace ratchet
