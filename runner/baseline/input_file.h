// The files a user names to the tool (a baseline, a submission): only a regular file is opened
// (a FIFO would block the tool, a device would never end), read up to a limit the error states,
// and a value of a hostile file reaches the terminal only as a short, escaped excerpt.
#ifndef RATCHET_BASELINE_INPUT_FILE_H_
#define RATCHET_BASELINE_INPUT_FILE_H_

#include <cstddef>
#include <optional>
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

// Limits on a JSON file a user hands the tool (a claim, or any .json of an evidence directory):
// none that ratchet writes comes near them, and past them a parser's recursion or an error that
// echoes a value is the hostile file's to steer.
inline constexpr size_t kMaxJsonDepth = 64;
inline constexpr size_t kMaxJsonString = 64u << 10;
inline constexpr size_t kMaxJsonFile = 256u << 20;
inline constexpr size_t kMaxJsonToken = 1024;  // a number or literal

// Bad input unless the bytes `text` of `path` (named `what`) are JSON a reader may safely be
// given: UTF-8 without a byte-order mark, nested at most kMaxJsonDepth deep, no string (or key)
// longer than kMaxJsonString bytes, no number or literal longer than kMaxJsonToken. Checked by a scan, before any parser sees the text; whether it is valid
// JSON is the reader's to say.
Status CheckJsonShape(std::string_view text, const std::string& path, const std::string& what);

// CheckJsonShape of the regular file `path`, read with ReadInputFile (at most kMaxJsonFile).
Status CheckJsonInput(const std::string& path, const std::string& what);

// What every command that reads a directory a user names (evidence, a sharded run) checks first,
// before any file in it is opened: `dir` is a folder, and every entry under it is a folder or a
// regular file (no FIFO, device, socket or symlink, which would block or lead out of it), named
// in printable ASCII, with each .json file passing CheckJsonShape. At most 16 folders deep and
// 1,000,000 entries. An entry that vanishes while it is walked (a temporary file renamed) and a
// folder it may not open are left to the reader.
Status CheckInputTree(const std::string& dir, const std::string& what);

// A method file (a submission) the tool hands the scorer: a regular file of at most
// kMaxMethodFile bytes (the scorer reads no more of one; a rule set allows far less).
inline constexpr size_t kMaxMethodFile = 64u << 20;
Status CheckMethodFile(const std::string& path, const std::string& what);

// CheckJsonInput of `path_or_id` when it names a file that exists (--rules FILE); a rule set's id
// (--rules mnist-a100/1.2.0) is left to its reader.
Status CheckJsonFileOption(const std::optional<std::string>& path_or_id, const std::string& what);

// A --data folder: a folder in which each file a dataset reader would open (a dataset's folder,
// its IDX files raw or gzipped; symlinks followed, since a dataset may be linked from where a
// package installed it) is a regular file: a FIFO would block the reader, which no signal then
// ends.
Status CheckDataFolder(const std::string& dir);

// Whether every byte of `text` is printable ASCII (0x20-0x7e).
bool PrintableAscii(std::string_view text);

// `text` for a message: bytes outside printable ASCII as \xNN (a newline kept when
// `keep_newlines`), and when longer than `max` characters its start, then "... (N bytes in all)".
std::string Excerpt(std::string_view text, size_t max = 300, bool keep_newlines = false);

// `status` with its message as an Excerpt of at most `max` characters, its lines kept (the code
// kept too).
Status Excerpted(const Status& status, size_t max = 1000);

}  // namespace ratchet

#endif  // RATCHET_BASELINE_INPUT_FILE_H_
