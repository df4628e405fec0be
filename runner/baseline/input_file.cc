#include "baseline/input_file.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <dirent.h>

#include <algorithm>
#include <cerrno>
#include <cstdint>
#include <cstdio>
#include <vector>

#include "core/file.h"
#include "data/idx.h"
#include "data/registry.h"
#include "rules/rule_set.h"

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
  if (bytes % (1 << 20) == 0) return std::to_string(bytes >> 20) + " MiB";
  if (bytes % (1 << 10) == 0) return std::to_string(bytes >> 10) + " KiB";
  return std::to_string(bytes) + " bytes";
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
  struct stat info {};
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

namespace {

// The offset of the first byte of `text` that is not part of well-formed UTF-8 (no overlong form,
// no surrogate, nothing past U+10FFFF); text.size() when there is none.
size_t FirstNonUtf8(std::string_view text) {
  size_t i = 0;
  while (i < text.size()) {
    const unsigned char c = static_cast<unsigned char>(text[i]);
    if (c < 0x80) {
      ++i;
      continue;
    }
    size_t length = 0;
    unsigned char low = 0x80, high = 0xbf;  // the second byte's range
    if (c >= 0xc2 && c <= 0xdf) {
      length = 2;
    } else if (c >= 0xe0 && c <= 0xef) {
      length = 3;
      if (c == 0xe0) low = 0xa0;
      if (c == 0xed) high = 0x9f;
    } else if (c >= 0xf0 && c <= 0xf4) {
      length = 4;
      if (c == 0xf0) low = 0x90;
      if (c == 0xf4) high = 0x8f;
    } else {
      return i;
    }
    if (i + length > text.size()) return i;
    for (size_t k = 1; k < length; ++k) {
      const unsigned char next = static_cast<unsigned char>(text[i + k]);
      const unsigned char from = k == 1 ? low : 0x80, to = k == 1 ? high : 0xbf;
      if (next < from || next > to) return i;
    }
    i += length;
  }
  return i;
}

}  // namespace

Status CheckJsonShape(std::string_view text, const std::string& path, const std::string& what) {
  const std::string named = what + " " + Excerpt(path);
  if (text.size() >= 3 && text.substr(0, 3) == "\xef\xbb\xbf") {
    return Status::BadInput(named + " starts with a byte-order mark, which JSON does not have: "
                            "save it without one");
  }
  // JSON is UTF-8: a byte that is not is refused here, so that no parser's message echoes it.
  if (const size_t bad = FirstNonUtf8(text); bad < text.size()) {
    return Status::BadInput(named + " is not UTF-8 at byte " + std::to_string(bad) +
                            ", which JSON must be");
  }
  size_t depth = 0, deepest = 0, length = 0, longest = 0, token = 0;
  bool in_string = false, escaped = false;
  for (const char c : text) {
    if (in_string) {
      if (escaped) {
        escaped = false;
      } else if (c == '\\') {
        escaped = true;
      } else if (c == '"') {
        in_string = false;
        longest = std::max(longest, length);
        continue;
      }
      ++length;
      if (length > kMaxJsonString) break;
      continue;
    }
    // A number or literal is a token; a parser's error echoes a long one whole.
    const bool in_token = !(c == '"' || c == '[' || c == '{' || c == ']' || c == '}' ||
                            c == ',' || c == ':' || c == ' ' || c == '\n' || c == '\t' ||
                            c == '\r');
    token = in_token ? token + 1 : 0;
    if (token > kMaxJsonToken) {
      return Status::BadInput(named + " holds a number or literal over " +
                              std::to_string(kMaxJsonToken) + " characters, the longest ratchet "
                              "reads");
    }
    if (c == '"') {
      in_string = true;
      length = 0;
    } else if (c == '[' || c == '{') {
      deepest = std::max(deepest, ++depth);
      if (deepest > kMaxJsonDepth) break;
    } else if ((c == ']' || c == '}') && depth > 0) {
      --depth;
    }
  }
  if (deepest > kMaxJsonDepth) {
    return Status::BadInput(named + " nests arrays and objects more than " +
                            std::to_string(kMaxJsonDepth) + " deep, the most ratchet reads");
  }
  if (std::max(longest, length) > kMaxJsonString) {
    return Status::BadInput(named + " holds a string over " + MiB(kMaxJsonString) +
                            ", the longest ratchet reads");
  }
  return Status::Ok();
}

Status CheckJsonInput(const std::string& path, const std::string& what) {
  Result<std::string> text = ReadInputFile(path, what, kMaxJsonFile);
  if (!text.ok()) return text.status();
  return CheckJsonShape(*text, path, what);
}

Status CheckMethodFile(const std::string& path, const std::string& what) {
  RATCHET_RETURN_IF_ERROR(CheckRegularInput(path, what));
  struct stat info;
  if (stat(path.c_str(), &info) != 0) return Status::IOError("stat " + Excerpt(path), errno);
  if (static_cast<uint64_t>(info.st_size) > kMaxMethodFile) {
    return Status::BadInput(what + " " + Excerpt(path) + " is " + std::to_string(info.st_size) +
                            " bytes, over the " + MiB(kMaxMethodFile) +
                            " ratchet reads of a method file");
  }
  return Status::Ok();
}

Status CheckJsonFileOption(const std::optional<std::string>& path_or_id, const std::string& what) {
  if (!path_or_id) return Status::Ok();
  Result<const RuleSet*> embedded = FindEmbeddedRuleSetById(*path_or_id);
  if (embedded.ok() && *embedded != nullptr) return Status::Ok();  // an id is looked up first
  struct stat info;
  if (lstat(path_or_id->c_str(), &info) != 0) return Status::Ok();  // an id, or missing
  return CheckJsonInput(*path_or_id, what);
}

namespace {

// The files of `dir` a dataset reader would open: each dataset's folder names, each IDX file,
// raw or gzipped (data/locate.cc), links followed.
Status CheckDatasetFiles(const std::string& dir) {
  for (const DatasetSpec& spec : DatasetRegistry()) {
    for (const std::string& folder_name : spec.folder_names) {
      for (IdxKind kind : {IdxKind::kImages, IdxKind::kLabels}) {
        const std::string raw = dir + "/" + folder_name + "/" + IdxFileName(kind);
        for (const std::string& path : {raw, raw + ".gz"}) {
          struct stat info;
          // A folder is the reader's to name; a FIFO or device would block it or never end.
          if (stat(path.c_str(), &info) != 0 || S_ISREG(info.st_mode) || S_ISDIR(info.st_mode)) {
            continue;
          }
          return Status::BadInput("--data holds " + Excerpt(path) + ", " + KindOf(info.st_mode) +
                                  ", where a dataset's file must be a regular file");
        }
      }
    }
  }
  return Status::Ok();
}

}  // namespace

Status CheckDataFolder(const std::string& dir) {
  struct stat info;
  if (stat(dir.c_str(), &info) != 0) return Status::Ok();  // missing: the command says so
  if (!S_ISDIR(info.st_mode)) return Status::BadInput("--data " + Excerpt(dir) + " is not a folder");
  return CheckDatasetFiles(dir);
}

namespace {

Status CheckTree(const std::string& dir, const std::string& what, int depth, size_t* entries) {
  if (depth > 16) {
    return Status::BadInput(what + ": " + Excerpt(dir) + " lies more than 16 folders deep");
  }
  // A folder that cannot be opened (gone since it was listed, or another user's, as a sharded
  // run's plans/ is) is left to the reader that needs a file in it.
  DIR* folder = opendir(dir.c_str());
  if (folder == nullptr) return Status::Ok();
  std::vector<std::string> names;
  while (dirent* entry = readdir(folder)) {
    const std::string name = entry->d_name;
    if (name != "." && name != "..") names.push_back(name);
    if (*entries + names.size() > 1000000) break;
  }
  closedir(folder);
  std::sort(names.begin(), names.end());
  for (const std::string& name : names) {
    if (++*entries > 1000000) {
      return Status::BadInput(what + " holds more than 1,000,000 files and folders");
    }
    const std::string path = dir + "/" + name;
    if (!PrintableAscii(name)) {
      return Status::BadInput(what + " holds " + Excerpt(path) +
                              ", a name with bytes outside printable ASCII, which ratchet never "
                              "writes");
    }
    struct stat info;
    if (lstat(path.c_str(), &info) != 0) {
      if (errno == ENOENT) continue;  // removed since it was listed (a temporary file renamed)
      return Status::IOError("lstat " + Excerpt(path), errno);
    }
    if (S_ISDIR(info.st_mode)) {
      RATCHET_RETURN_IF_ERROR(CheckTree(path, what, depth + 1, entries));
    } else if (S_ISLNK(info.st_mode)) {
      return Status::BadInput(what + " holds " + Excerpt(path) +
                              ", a symbolic link, which ratchet never writes and does not follow");
    } else if (!S_ISREG(info.st_mode)) {
      return Status::BadInput(what + " holds " + Excerpt(path) + ", " + KindOf(info.st_mode) +
                              ", where ratchet reads only regular files and folders");
    } else if (name.size() > 5 && name.compare(name.size() - 5, 5, ".json") == 0) {
      RATCHET_RETURN_IF_ERROR(CheckJsonInput(path, what + ": its file"));
    }
  }
  return Status::Ok();
}

}  // namespace

Status CheckInputTree(const std::string& dir, const std::string& what) {
  struct stat info;  // the folder named is followed, if a link; links inside it are not
  if (stat(dir.c_str(), &info) != 0) return Status::Ok();  // missing: the reader says so
  if (S_ISREG(info.st_mode)) return Status::Ok();           // a file: the reader says what it is
  if (!S_ISDIR(info.st_mode)) return NotRegular(dir, what, info.st_mode);
  size_t entries = 0;
  return CheckTree(dir, what, 0, &entries);
}

bool PrintableAscii(std::string_view text) {
  return std::all_of(text.begin(), text.end(), [](char c) { return c >= 0x20 && c < 0x7f; });
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
