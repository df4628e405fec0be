#include "core/fresh_directory.h"

#include <dirent.h>
#include <fcntl.h>
#include <linux/fs.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <filesystem>
#include <optional>
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

constexpr char kPartialMarker[] = ".partial-";

// Opens the folder `path` (never through a symlink) for its lock; -1 with errno on failure.
int OpenFolder(const std::string& path) {
  return open(path.c_str(), O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
}

// Whether `path` still names the folder open as `fd`: it was neither removed nor renamed away.
bool StillAt(int fd, const std::string& path) {
  struct stat open_info, path_info;
  return fstat(fd, &open_info) == 0 && open_info.st_nlink > 0 &&
         lstat(path.c_str(), &path_info) == 0 && open_info.st_dev == path_info.st_dev &&
         open_info.st_ino == path_info.st_ino;
}

// Sweeps one partial folder: nullopt when it is kept (held by a live process, not a folder, gone
// meanwhile).
std::optional<Status> SweepOne(const std::string& path) {
  int fd = OpenFolder(path);
  if (fd < 0) {
    if (errno == ENOENT || errno == ENOTDIR || errno == ELOOP) return std::nullopt;
    return Status::IOError("open " + path, errno);
  }
  std::optional<Status> swept;
  if (flock(fd, LOCK_EX | LOCK_NB) != 0) {
    if (errno != EWOULDBLOCK) swept = Status::IOError("flock " + path, errno);
  } else if (StillAt(fd, path)) {
    // Under the lock no process builds it: its builder is gone, or is Begin before its own lock,
    // which then sees the folder gone and takes another name.
    std::error_code error;
    std::filesystem::remove_all(path, error);
    swept = error ? Status::IOError("remove " + path, error.value()) : Status::Ok();
  }
  close(fd);
  return swept;
}

}  // namespace

bool IsPartialFolderName(std::string_view name) {
  const size_t at = name.rfind(kPartialMarker);
  if (name.size() < 2 || name[0] != '.' || at == std::string_view::npos || at < 2) return false;
  const std::string_view digits = name.substr(at + std::strlen(kPartialMarker));
  return !digits.empty() &&
         std::all_of(digits.begin(), digits.end(), [](char c) { return c >= '0' && c <= '9'; });
}

std::string SweptFolder::Line() const {
  if (status.ok()) {
    return "removed " + name + " in " + folder +
           ": a partial folder left by a process that was killed before it finished";
  }
  return "could not remove " + name + " in " + folder + ": " + status.message();
}

Result<std::vector<SweptFolder>> SweepPartialFolders(const std::string& folder) {
  std::vector<std::string> names;
  // Never through a symlink, as Begin never writes through one.
  const int fd = OpenFolder(folder);
  if (fd < 0) {
    if (errno == ENOENT || errno == ENOTDIR || errno == ELOOP) return std::vector<SweptFolder>();
    return Status::IOError("open " + folder, errno);
  }
  DIR* listing = fdopendir(fd);
  if (listing == nullptr) {
    Status status = Status::IOError("fdopendir " + folder, errno);
    close(fd);
    return status;
  }
  while (dirent* entry = readdir(listing)) {
    if (IsPartialFolderName(entry->d_name)) names.push_back(entry->d_name);
  }
  closedir(listing);
  std::sort(names.begin(), names.end());
  std::vector<SweptFolder> swept;
  for (const std::string& name : names) {
    std::optional<Status> status = SweepOne(folder + "/" + name);
    if (status) swept.push_back(SweptFolder{folder, name, *status});
  }
  return swept;
}

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
        parent + "/." + name + kPartialMarker + std::to_string(random() % 1000000000);
    if (mkdir(partial.c_str(), kFolderMode) != 0) {
      if (errno == EEXIST) continue;
      return Status::IOError("mkdir " + partial, errno);
    }
    const int fd = OpenFolder(partial);
    if (fd < 0) {
      if (errno == ENOENT) continue;  // swept before it was locked
      Status status = Status::IOError("open " + partial, errno);
      rmdir(partial.c_str());
      return status;
    }
    // Blocks only while a sweep that found the folder unlocked holds it, to remove it.
    int locked;
    while ((locked = flock(fd, LOCK_EX)) != 0 && errno == EINTR) {
    }
    if (locked != 0) {
      Status status = Status::IOError("flock " + partial, errno);
      close(fd);
      rmdir(partial.c_str());
      return status;
    }
    if (!StillAt(fd, partial)) {  // swept before it was locked
      close(fd);
      continue;
    }
    // mkdir applies the umask, which can only take bits away; chmod makes the mode exact.
    if (fchmod(fd, kFolderMode) != 0) {
      Status status = Status::IOError("chmod " + partial, errno);
      rmdir(partial.c_str());
      close(fd);
      return status;
    }
    return FreshDirectory(final_path, partial, fd);
  }
  return Status::IOError("mkdir a partial folder beside " + final_path, EEXIST);
}

FreshDirectory::FreshDirectory(FreshDirectory&& other) noexcept
    : final_path_(std::move(other.final_path_)),
      partial_path_(std::move(other.partial_path_)),
      lock_fd_(other.lock_fd_),
      done_(other.done_) {
  other.lock_fd_ = -1;
  other.done_ = true;
}

FreshDirectory::~FreshDirectory() { Unlock(); }

void FreshDirectory::Unlock() {
  if (lock_fd_ >= 0) close(lock_fd_);
  lock_fd_ = -1;
}

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
  // Renamed under the lock: a sweep never sees the partial name free while the folder is there.
  Unlock();
  return SyncFolder(DirName(final_path_));
}

void FreshDirectory::Abandon() {
  if (done_) return;
  std::error_code ignored;
  std::filesystem::remove_all(partial_path_, ignored);
  Unlock();
  done_ = true;
}

}  // namespace ratchet
