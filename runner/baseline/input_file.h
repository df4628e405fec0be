// The files a user names to the tool (a baseline, a submission): only a regular file is opened
// (a FIFO would block the tool, a device would never end), read up to a limit the error states,
// and a value of a hostile file reaches the terminal only as a short, escaped excerpt.
#ifndef RATCHET_BASELINE_INPUT_FILE_H_
#define RATCHET_BASELINE_INPUT_FILE_H_

#include <cstddef>
#include <string>
#include <string_view>

#include "core/status.h"

namespace ratchet {

// Bad input unless `path` is a regular file (after symlinks), checked before it is opened:
// "<what> <path> is a FIFO (a named pipe), not a regular file". Missing files and the like get
// the messages of CheckInputFile.
Status CheckRegularInput(const std::string& path, const std::string& what);

// Bad input only when `path` exists (after symlinks) and is a FIFO, a device or a socket: for
// a caller that leaves a missing file or a folder to checks of its own.
Status CheckNotSpecialFile(const std::string& path, const std::string& what);

// The bytes of the regular file `path`, at most `limit` of them: a larger file is bad input
// that states the limit. The file is opened without blocking and checked again once open.
Result<std::string> ReadInputFile(const std::string& path, const std::string& what, size_t limit);

// `text` for a message: bytes outside printable ASCII as \xNN (a newline kept when
// `keep_newlines`), and when longer than `max` characters its start, then "... (N bytes in all)".
std::string Excerpt(std::string_view text, size_t max = 300, bool keep_newlines = false);

// `status` with its message as an Excerpt of at most `max` characters, its lines kept (the code
// kept too).
Status Excerpted(const Status& status, size_t max = 1000);

}  // namespace ratchet

#endif  // RATCHET_BASELINE_INPUT_FILE_H_
