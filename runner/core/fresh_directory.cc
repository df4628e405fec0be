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

// Only the owner may enter the folders or read the files, whatever the umask: a fresh directory
// may hold secrets (a draw's hidden labels), and a partial one left by a kill must not leak them.
constexpr mode_t kFolderMode = 0700;
constexpr mode_t kFileMode = 0600;

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
    // The parent is named by the user: a missing one is their mistake, not the harness's.
    if (errno == ENOENT || errno == ENOTDIR || errno == ELOOP) {
      return Status::BadInput("the folder " + parent + " for " + final_path + " does not exist");
    }
    return Status::IOError("the folder " + parent + " for " + final_path, errno);
  }
  if (S_ISLNK(info.st_mode)) {
    return Status::BadInput("the folder " + parent + " is a symlink; ratchet writes output only " +
                            "through real folders");
  }
  if (!S_ISDIR(info.st_mode)) return Status::BadInput(parent + " is not a folder");
  std::random_device random;
  for (int attempt = 0; attempt < 16; ++attempt) {
    std::string partial =
        parent + "/." + name + ".partial-" + std::to_string(random() % 1000000000);
    if (mkdir(partial.c_str(), kFolderMode) == 0) {
      // mkdir applies the umask, which can only take bits away; chmod makes the mode exact.
      if (chmod(partial.c_str(), kFolderMode) != 0) {
        Status status = Status::IOError("chmod " + partial, errno);
        rmdir(partial.c_str());
        return status;
      }
      return FreshDirectory(final_path, partial);
    }
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
    if (mkdir(path.c_str(), kFolderMode) != 0 && errno != EEXIST) {
      return Status::IOError("mkdir " + path, errno);
    }
    start = end + 1;
  }
  return Status::Ok();
}

Status FreshDirectory::WriteFile(const std::string& relative, std::string_view bytes) {
  if (!SafeRelative(relative)) return Status::Internal("unsafe relative path " + relative);
  const std::string path = partial_path_ + "/" + relative;
  int fd = open(path.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC | O_NOFOLLOW, kFileMode);
  if (fd < 0) return Status::IOError("create " + path, errno);
  Status status = WriteAll(fd, bytes, path);
  if (status.ok() && fsync(fd) != 0) status = Status::IOError("fsync " + path, errno);
  close(fd);
  return status;
}

Status FreshDirectory::Commit() {
  if (done_) return Status::Internal("a fresh directory was committed twice");
  RATCHET_RETURN_IF_ERROR(SyncFolder(partial_path_));
  // renameat2(RENAME_NOREPLACE): whatever appeared at the final name meanwhile is kept.
  if (syscall(SYS_renameat2, AT_FDCWD, partial_path_.c_str(), AT_FDCWD, final_path_.c_str(),
              RENAME_NOREPLACE) != 0) {
    return Status::IOError("rename " + partial_path_ + " to " + final_path_, errno);
  }
  done_ = true;
  return SyncFolder(DirName(final_path_));
}

void FreshDirectory::Abandon() {
  if (done_) return;
  std::error_code ignored;
  std::filesystem::remove_all(partial_path_, ignored);
  done_ = true;
}

}  // namespace ratchet
