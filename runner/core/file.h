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

// The whole file, or its first `limit` bytes.
Result<std::string> ReadFile(const std::string& path, size_t limit = std::string::npos);

// Streams the file through `sink` in chunks of up to `chunk_bytes`, in order; an error names the
// path and the syscall.
Status ForEachChunk(const std::string& path, size_t chunk_bytes,
                    const std::function<void(const char* data, size_t size)>& sink);

// Writes `bytes` to a temporary file beside `path`, fsyncs it, renames it over `path` and fsyncs
// the folder. On any error `path` is left as it was and the temporary file is removed.
Status WriteFileAtomic(const std::string& path, std::string_view bytes, int mode = 0644);

bool PathExists(const std::string& path);
bool IsDirectory(const std::string& path);

// The folder part and the last part of a path ("a/b/c" -> "a/b", "c"; "c" -> ".", "c").
std::string DirName(const std::string& path);
std::string BaseName(const std::string& path);

// The absolute path of the running executable (/proc/self/exe).
Result<std::string> SelfExecutable();

}  // namespace ratchet

#endif  // RATCHET_CORE_FILE_H_
