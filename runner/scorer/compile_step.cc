#include "scorer/compile_step.h"

#include <dirent.h>
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstdio>
#include <memory>

#include "core/sha256.h"

namespace ratchet {
namespace {

constexpr int kMaxDepth = 64;

// A name as the evidence can show it: printable ASCII as it is, any other byte as \xNN.
std::string Shown(const std::string& name) {
  std::string out;
  for (unsigned char c : name) {
    if (c >= 0x20 && c < 0x7f && c != '\\') {
      out += static_cast<char>(c);
    } else {
      char hex[5];
      std::snprintf(hex, sizeof hex, "\\x%02x", c);
      out += hex;
    }
  }
  return out;
}

bool Printable(const std::string& name) {
  return std::all_of(name.begin(), name.end(),
                     [](unsigned char c) { return c >= 0x20 && c < 0x7f && c != '\\'; });
}

struct Walk {
  uint64_t max_bytes = 0;
  size_t entries = 0;
  size_t skipped = 0;
  CacheSet set;

  void Skip(const std::string& path, const std::string& why) {
    if (++skipped > kMaxSkippedNamed) return;
    set.skipped.push_back((path.size() > kMaxSkippedShown ? path.substr(0, kMaxSkippedShown) + "..."
                                                          : path) +
                          ": " + why);
  }
  Status Count() {
    if (++entries > kMaxCacheEntries) {
      return Status::BadInput("the caches hold more than " + std::to_string(kMaxCacheEntries) +
                              " files and folders");
    }
    return Status::Ok();
  }

  Status Folder(int dir_fd, const std::string& relative, int depth) {
    if (depth > kMaxDepth) {
      Skip(relative, "deeper than " + std::to_string(kMaxDepth) + " folders");
      return Status::Ok();
    }
    const int listing_fd = dup(dir_fd);
    if (listing_fd < 0) return Status::IOError("dup", errno);
    DIR* dir = fdopendir(listing_fd);
    if (dir == nullptr) {
      close(listing_fd);
      return Status::IOError("read the cache folder " + relative, errno);
    }
    std::unique_ptr<DIR, int (*)(DIR*)> closer(dir, closedir);
    std::vector<std::string> names;
    while (dirent* entry = readdir(dir)) {
      const std::string name = entry->d_name;
      if (name != "." && name != "..") names.push_back(name);
    }
    std::sort(names.begin(), names.end());
    for (const std::string& name : names) {
      const std::string path = relative.empty() ? name : relative + "/" + name;
      if (!Printable(name)) {
        Skip(Shown(path), "a name that is not printable ASCII");
        continue;
      }
      if (path.size() > kMaxCachePath) {
        Skip(path, "a path longer than " + std::to_string(kMaxCachePath) + " characters");
        continue;
      }
      struct stat info;
      if (fstatat(dir_fd, name.c_str(), &info, AT_SYMLINK_NOFOLLOW) != 0) {
        return Status::IOError("stat the cache file " + path, errno);
      }
      if (S_ISDIR(info.st_mode)) {
        RATCHET_RETURN_IF_ERROR(Count());
        const int sub = openat(dir_fd, name.c_str(), O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
        if (sub < 0) return Status::IOError("open the cache folder " + path, errno);
        Status walked = Folder(sub, path, depth + 1);
        close(sub);
        RATCHET_RETURN_IF_ERROR(walked);
      } else if (S_ISREG(info.st_mode)) {
        RATCHET_RETURN_IF_ERROR(Count());
        RATCHET_RETURN_IF_ERROR(File(dir_fd, name, path));
      } else {
        Skip(path, S_ISLNK(info.st_mode) ? "a symbolic link" : "not a regular file");
      }
    }
    return Status::Ok();
  }

  Status File(int dir_fd, const std::string& name, const std::string& path) {
    const int fd = openat(dir_fd, name.c_str(), O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC);
    if (fd < 0) return Status::IOError("open the cache file " + path, errno);
    std::unique_ptr<int, void (*)(int*)> closer(new int(fd), [](int* f) {
      close(*f);
      delete f;
    });
    struct stat info;
    if (fstat(fd, &info) != 0) return Status::IOError("stat the cache file " + path, errno);
    if (!S_ISREG(info.st_mode)) {
      Skip(path, "not a regular file");
      return Status::Ok();
    }
    // A sparse file is copied whole: its size, not the blocks it uses, counts.
    if (set.bytes + static_cast<uint64_t>(info.st_size) > max_bytes) {
      return Status::BadInput("the caches hold more than " + std::to_string(max_bytes) +
                              " bytes");
    }
    std::string bytes;
    char chunk[1 << 16];
    for (;;) {
      const ssize_t n = read(fd, chunk, sizeof chunk);
      if (n < 0 && errno == EINTR) continue;
      if (n < 0) return Status::IOError("read the cache file " + path, errno);
      if (n == 0) break;
      if (set.bytes + bytes.size() + static_cast<uint64_t>(n) > max_bytes) {
        return Status::BadInput("the caches hold more than " + std::to_string(max_bytes) +
                               " bytes");
      }
      bytes.append(chunk, static_cast<size_t>(n));
    }
    set.bytes += bytes.size();
    set.listing.push_back(
        CacheFileEntry{path, static_cast<int64_t>(bytes.size()), Sha256Hex(bytes)});
    set.files.push_back(FolderFile{std::string(kWorkerCacheFolder) + "/" + path, std::move(bytes),
                                   static_cast<int64_t>(info.st_mtim.tv_sec) * 1000000000 +
                                       info.st_mtim.tv_nsec});
    return Status::Ok();
  }
};

}  // namespace

Result<CacheSet> ReadCacheTree(const std::string& root, uint64_t max_bytes) {
  const int fd = open(root.c_str(), O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
  if (fd < 0 && errno == ENOENT) return CacheSet{};
  if (fd < 0) return Status::IOError("open the cache folder " + root, errno);
  Walk walk;
  walk.max_bytes = max_bytes;
  Status walked = walk.Folder(fd, "", 0);
  close(fd);
  RATCHET_RETURN_IF_ERROR(walked);
  if (walk.skipped > kMaxSkippedNamed) {
    walk.set.skipped.push_back("and " + std::to_string(walk.skipped - kMaxSkippedNamed) +
                               " more left out");
  }
  // Folder() visits names in order, a folder's files right after its own name: sorted by path
  // bytewise only when '/' sorts first, so sort again.
  std::vector<size_t> order(walk.set.listing.size());
  for (size_t i = 0; i < order.size(); ++i) order[i] = i;
  std::sort(order.begin(), order.end(), [&](size_t a, size_t b) {
    return walk.set.listing[a].path < walk.set.listing[b].path;
  });
  CacheSet sorted;
  sorted.skipped = std::move(walk.set.skipped);
  sorted.bytes = walk.set.bytes;
  for (size_t i : order) {
    sorted.listing.push_back(std::move(walk.set.listing[i]));
    sorted.files.push_back(std::move(walk.set.files[i]));
  }
  if (!sorted.listing.empty()) sorted.sha256 = CachesSha256(sorted.listing);
  return sorted;
}

}  // namespace ratchet
