#include "core/fresh_directory.h"

#include <fcntl.h>
#include <linux/fs.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <cerrno>
#include <filesystem>
#include <random>

#include "core/file.h"

namespace ratchet {
namespace {

Status FsyncPath(const std::string& path) {
  int fd = open(path.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  if (fd < 0) return Status::IOError("open " + path, errno);
  Status status = fsync(fd) == 0 ? Status::Ok() : Status::IOError("fsync " + path, errno);
  close(fd);
  return status;
}

bool SafeRelative(const std::string& relative) {
  if (relative.empty() || relative.front() == '/') return false;
  size_t start = 0;
  while (start <= relative.size()) {
    size_t end = relative.find('/', start);
    if (end == std::string::npos) end = relative.size();
    std::string part = relative.substr(start, end - start);
    if (part.empty() || part == "." || part == "..") return false;
    start = end + 1;
  }
  return true;
}

}  // namespace

Result<FreshDirectory> FreshDirectory::Begin(const std::string& final_path) {
  if (final_path.empty()) return Status::Usage("an output directory needs a name");
  const std::string parent = DirName(final_path);
  const std::string name = BaseName(final_path);
  if (name == "." || name == ".." || name == "/") {
    return Status::Usage(final_path + " cannot be an output directory: name a new folder");
  }
  struct stat info;
  if (lstat(final_path.c_str(), &info) == 0) {
    return Status::BadInput(final_path + " already exists; an output directory is always new: " +
                            "name one that does not exist");
  }
  if (lstat(parent.c_str(), &info) != 0) {
    return Status::IOError("the folder " + parent + " for " + final_path, errno);
  }
  if (S_ISLNK(info.st_mode)) {
    return Status::BadInput("the folder " + parent + " is a symlink; ratchet writes output only " +
                            "through real folders");
  }
  if (!S_ISDIR(info.st_mode)) return Status::BadInput(parent + " is not a folder");
  std::random_device random;
  for (int attempt = 0; attempt < 16; ++attempt) {
    std::string partial = parent + "/." + name + ".partial-" + std::to_string(random() % 1000000000);
    if (mkdir(partial.c_str(), 0755) == 0) return FreshDirectory(final_path, partial);
    if (errno != EEXIST) return Status::IOError("mkdir " + partial, errno);
  }
  return Status::IOError("mkdir a partial folder beside " + final_path, EEXIST);
}

FreshDirectory::FreshDirectory(FreshDirectory&& other) noexcept
    : final_path_(std::move(other.final_path_)),
      partial_path_(std::move(other.partial_path_)),
      done_(other.done_) {
  other.done_ = true;
}

FreshDirectory::~FreshDirectory() = default;

Status FreshDirectory::MakeSubdirectory(const std::string& relative) {
  if (!SafeRelative(relative)) return Status::Internal("unsafe relative path " + relative);
  std::string path = partial_path_;
  size_t start = 0;
  while (start < relative.size()) {
    size_t end = relative.find('/', start);
    if (end == std::string::npos) end = relative.size();
    path += "/" + relative.substr(start, end - start);
    if (mkdir(path.c_str(), 0755) != 0 && errno != EEXIST) return Status::IOError("mkdir " + path, errno);
    start = end + 1;
  }
  return Status::Ok();
}

Status FreshDirectory::WriteFile(const std::string& relative, std::string_view bytes) {
  if (!SafeRelative(relative)) return Status::Internal("unsafe relative path " + relative);
  const std::string path = partial_path_ + "/" + relative;
  int fd = open(path.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC | O_NOFOLLOW, 0644);
  if (fd < 0) return Status::IOError("create " + path, errno);
  size_t done = 0;
  Status status;
  while (done < bytes.size()) {
    ssize_t n = write(fd, bytes.data() + done, bytes.size() - done);
    if (n < 0) {
      if (errno == EINTR) continue;
      status = Status::IOError("write " + path, errno);
      break;
    }
    done += static_cast<size_t>(n);
  }
  if (status.ok() && fsync(fd) != 0) status = Status::IOError("fsync " + path, errno);
  close(fd);
  return status;
}

Status FreshDirectory::Commit() {
  if (done_) return Status::Internal("a fresh directory was committed twice");
  RATCHET_RETURN_IF_ERROR(FsyncPath(partial_path_));
  // renameat2(RENAME_NOREPLACE): whatever appeared at the final name meanwhile is kept.
  if (syscall(SYS_renameat2, AT_FDCWD, partial_path_.c_str(), AT_FDCWD, final_path_.c_str(),
              RENAME_NOREPLACE) != 0) {
    return Status::IOError("rename " + partial_path_ + " to " + final_path_, errno);
  }
  done_ = true;
  return FsyncPath(DirName(final_path_));
}

void FreshDirectory::Abandon() {
  if (done_) return;
  std::error_code ignored;
  std::filesystem::remove_all(partial_path_, ignored);
  done_ = true;
}

}  // namespace ratchet
