// Files as ratchet writes them: whole-file reads, atomic replacement (a reader sees the old
// bytes or the new, never half), and every descriptor opened O_CLOEXEC so none leaks into a
// worker.
#ifndef RATCHET_CORE_FILE_H_
#define RATCHET_CORE_FILE_H_

#include <functional>
#include <string>
#include <string_view>

#include "core/status.h"

namespace ratchet {

// The whole file, or its first `limit` bytes. A FIFO is BadInput at once, never waited on (its
// open would block until a writer came); a device is read, up to `limit`.
Result<std::string> ReadFile(const std::string& path, size_t limit = std::string::npos);

// Streams the file through `sink` in chunks of up to `chunk_bytes`, in order; an error names the
// path and the syscall. A FIFO is refused as by ReadFile.
Status ForEachChunk(const std::string& path, size_t chunk_bytes,
                    const std::function<void(const char* data, size_t size)>& sink);

// Checks a file a user names (or puts where ratchet looks) before it is read: a path that does
// not exist, a dangling symlink, a symlink loop, a path through something that is not a folder,
// and a folder are BadInput, "WHAT PATH: ..." saying which. A device or a pipe passes (a reader
// bounds what it reads). Any other failure of stat is an IOError.
Status CheckInputFile(const std::string& path, const std::string& what);

// Writes `bytes` to a temporary file beside `path`, fsyncs it, renames it over `path` and fsyncs
// the folder. On any error `path` is left as it was and the temporary file is removed.
Status WriteFileAtomic(const std::string& path, std::string_view bytes, int mode = 0644);

// Writes all of `bytes` to `fd` (short writes and EINTR retried); an error names `path`.
Status WriteAll(int fd, std::string_view bytes, const std::string& path);

// fsyncs the folder `path`, so that the entries created or renamed in it last.
Status SyncFolder(const std::string& path);

bool PathExists(const std::string& path);
bool IsDirectory(const std::string& path);

// The folder part and the last part of a path ("a/b/c" -> "a/b", "c"; "c" -> ".", "c").
std::string DirName(const std::string& path);
std::string BaseName(const std::string& path);
// Whether `text` ends with `suffix` (a file's extension).
bool EndsWith(const std::string& text, const std::string& suffix);

// The absolute path of the running executable (/proc/self/exe).
Result<std::string> SelfExecutable();

}  // namespace ratchet

#endif  // RATCHET_CORE_FILE_H_
