// MANIFEST.json: every file of an evidence directory but itself, by path, size and sha256, so
// that a changed, missing or added file is found. The writer checks its folder against the
// entries it is about to write with the same comparison an auditor later runs on the result.
#ifndef RATCHET_EVIDENCE_MANIFEST_H_
#define RATCHET_EVIDENCE_MANIFEST_H_

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "core/status.h"

namespace ratchet {

struct ManifestEntry {
  std::string path;  // relative, '/'-separated (CheckEvidencePath)
  uint64_t bytes = 0;
  std::string sha256;  // lowercase hex
};

// One thing wrong with an evidence directory: the file (a relative path, or "MANIFEST.json") and
// what is wrong with it, in words ("missing", "extra (not in the manifest)", ...).
struct EvidenceFinding {
  std::string file;
  std::string problem;
};

// What is at one path of a folder, as lstat sees it: symlinks are never followed.
struct FolderItem {
  enum class Kind { kFile, kFolder, kSymlink, kOther, kUnreadable };
  std::string path;
  Kind kind = Kind::kFile;
  uint64_t bytes = 0;
  std::string sha256;  // files only
  std::string error;   // kUnreadable only: the syscall and errno
};

// Every item under `dir` (not `dir` itself, and not its top-level MANIFEST.json), files hashed,
// sorted by path. Folders are entered only when they are real folders. Fails only when `dir`
// itself is not a readable folder.
Result<std::vector<FolderItem>> ScanFolder(const std::string& dir);

// Pure: what differs between a folder's items and manifest entries. Findings sorted by file.
std::vector<EvidenceFinding> CompareWithManifest(const std::vector<FolderItem>& items,
                                                 const std::vector<ManifestEntry>& entries);

// The text of MANIFEST.json for `entries` (sorted here by path, bytewise).
Result<std::string> ManifestText(std::vector<ManifestEntry> entries);
// Strict: the schema, every entry's path valid and not MANIFEST.json, bytes an integer, sha256
// 64 lowercase hex, paths in ascending order without repeats, no unknown fields. Errors name
// `what` and the field ("files[3].sha256").
Result<std::vector<ManifestEntry>> ParseManifest(std::string_view text, const std::string& what);

// Reads DIR/MANIFEST.json (a regular file, never a symlink).
Result<std::vector<ManifestEntry>> ReadManifest(const std::string& dir);
// Every file of `dir` checked against its manifest, and the manifest against the one spelling
// ratchet writes; no findings means it verifies clean. A manifest that cannot be read is one
// finding about MANIFEST.json.
std::vector<EvidenceFinding> VerifyManifest(const std::string& dir);
// The sha256 of DIR/MANIFEST.json's bytes: what a baseline records to name this evidence.
Result<std::string> ManifestSha256(const std::string& dir);

// DIR/MANIFEST.json read once, and all that is derived from those bytes: so that the sha256 a
// reader reports is of the very manifest the files were checked against.
struct VerifiedManifest {
  std::vector<ManifestEntry> entries;     // empty when it could not be read or parsed
  std::string sha256;                     // of the bytes read; empty when none could be read
  std::vector<EvidenceFinding> findings;  // as VerifyManifest finds them
};
VerifiedManifest ReadVerifiedManifest(const std::string& dir);

}  // namespace ratchet

#endif  // RATCHET_EVIDENCE_MANIFEST_H_
