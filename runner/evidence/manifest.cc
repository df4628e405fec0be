#include "evidence/manifest.h"

#include <dirent.h>
#include <sys/stat.h>

#include <algorithm>
#include <cerrno>
#include <map>
#include <set>

#include "core/canonical_json.h"
#include "core/file.h"
#include "core/sha256.h"
#include "evidence/layout.h"
#include "evidence/signature.h"

namespace ratchet {
namespace {

constexpr size_t kMaxManifestBytes = 64u << 20;
constexpr size_t kHashChunkBytes = 1u << 20;

std::string Join(const std::string& folder, const std::string& name) {
  return folder.empty() ? name : folder + "/" + name;
}

// Appends the items under `dir`/`relative` (a real folder), recursing into real folders only.
void ScanInto(const std::string& dir, const std::string& relative, std::vector<FolderItem>* out) {
  const std::string folder = relative.empty() ? dir : dir + "/" + relative;
  DIR* listing = opendir(folder.c_str());
  if (listing == nullptr) {
    out->push_back({relative, FolderItem::Kind::kUnreadable, 0, "",
                    Status::IOError("opendir " + folder, errno).message()});
    return;
  }
  std::vector<std::string> names;
  errno = 0;
  while (dirent* entry = readdir(listing)) {
    const std::string name = entry->d_name;
    if (name != "." && name != "..") names.push_back(name);
  }
  int read_error = errno;
  closedir(listing);
  if (read_error != 0) {
    out->push_back({relative, FolderItem::Kind::kUnreadable, 0, "",
                    Status::IOError("readdir " + folder, read_error).message()});
  }
  for (const std::string& name : names) {
    if (relative.empty() && (name == kManifestFile || name == kSignatureFile)) continue;
    FolderItem item;
    item.path = Join(relative, name);
    const std::string path = dir + "/" + item.path;
    struct stat info;
    if (lstat(path.c_str(), &info) != 0) {
      item.kind = FolderItem::Kind::kUnreadable;
      item.error = Status::IOError("lstat " + path, errno).message();
    } else if (S_ISLNK(info.st_mode)) {
      item.kind = FolderItem::Kind::kSymlink;
    } else if (S_ISDIR(info.st_mode)) {
      item.kind = FolderItem::Kind::kFolder;
    } else if (!S_ISREG(info.st_mode)) {
      item.kind = FolderItem::Kind::kOther;
    } else {
      // Size and hash from one pass over the bytes, so the two always describe the same content.
      Sha256 hash;
      uint64_t bytes = 0;
      Status read = ForEachChunk(path, kHashChunkBytes, [&](const char* data, size_t size) {
        hash.Update(data, size);
        bytes += size;
      });
      if (read.ok()) {
        item.bytes = bytes;
        item.sha256 = hash.HexDigest();
      } else {
        item.kind = FolderItem::Kind::kUnreadable;
        item.error = read.message();
      }
    }
    const bool enter = item.kind == FolderItem::Kind::kFolder;
    out->push_back(item);
    if (enter) ScanInto(dir, item.path, out);
  }
}

std::string Bytes(uint64_t n) { return std::to_string(n) + (n == 1 ? " byte" : " bytes"); }

}  // namespace

Result<std::vector<FolderItem>> ScanFolder(const std::string& dir) {
  struct stat info;
  if (stat(dir.c_str(), &info) != 0) return Status::IOError("stat " + dir, errno);
  if (!S_ISDIR(info.st_mode)) return Status::BadInput(dir + " is not a folder");
  std::vector<FolderItem> items;
  ScanInto(dir, "", &items);
  for (const FolderItem& item : items) {
    if (item.path.empty()) return Status::BadInput(item.error);  // the folder itself
  }
  std::stable_sort(items.begin(), items.end(),
                   [](const FolderItem& a, const FolderItem& b) { return a.path < b.path; });
  return items;
}

std::vector<EvidenceFinding> CompareWithManifest(const std::vector<FolderItem>& items,
                                                 const std::vector<ManifestEntry>& entries) {
  using Kind = FolderItem::Kind;
  std::vector<EvidenceFinding> findings;
  std::map<std::string, const FolderItem*> on_disk;
  for (const FolderItem& item : items) on_disk[item.path] = &item;
  std::set<std::string> listed, listed_folders;
  for (const ManifestEntry& entry : entries) {
    listed.insert(entry.path);
    for (size_t slash = entry.path.find('/'); slash != std::string::npos;
         slash = entry.path.find('/', slash + 1)) {
      listed_folders.insert(entry.path.substr(0, slash));
    }
    auto found = on_disk.find(entry.path);
    if (found == on_disk.end()) {
      findings.push_back({entry.path, "missing"});
      continue;
    }
    const FolderItem& item = *found->second;
    switch (item.kind) {
      case Kind::kSymlink:
        findings.push_back(
            {entry.path, "a symlink where the manifest lists a file (never followed)"});
        break;
      case Kind::kFolder:
        findings.push_back({entry.path, "a folder where the manifest lists a file"});
        break;
      case Kind::kOther:
        findings.push_back(
            {entry.path,
             "not a regular file (a fifo, socket or device) where the manifest lists a file"});
        break;
      case Kind::kUnreadable:
        findings.push_back({entry.path, "unreadable: " + item.error});
        break;
      case Kind::kFile:
        if (item.bytes != entry.bytes) {
          findings.push_back(
              {entry.path, "size " + Bytes(item.bytes) + ", manifest says " + Bytes(entry.bytes)});
        } else if (item.sha256 != entry.sha256) {
          findings.push_back(
              {entry.path, "changed: sha256 " + item.sha256 + ", manifest says " + entry.sha256});
        }
        break;
    }
  }
  for (const FolderItem& item : items) {
    if (listed.count(item.path)) continue;
    switch (item.kind) {
      case Kind::kFile:
        findings.push_back({item.path, "extra (not in the manifest)"});
        break;
      case Kind::kSymlink:
        findings.push_back({item.path, "extra symlink (not in the manifest, never followed)"});
        break;
      case Kind::kOther:
        findings.push_back({item.path, "extra special file (a fifo, socket or device)"});
        break;
      case Kind::kUnreadable:
        findings.push_back({item.path, "unreadable: " + item.error});
        break;
      case Kind::kFolder:
        if (!listed_folders.count(item.path)) {
          findings.push_back({item.path, "extra folder (no file of the manifest is in it)"});
        }
        break;
    }
  }
  std::stable_sort(
      findings.begin(), findings.end(),
      [](const EvidenceFinding& a, const EvidenceFinding& b) { return a.file < b.file; });
  return findings;
}

Result<std::string> ManifestText(std::vector<ManifestEntry> entries) {
  std::sort(entries.begin(), entries.end(),
            [](const ManifestEntry& a, const ManifestEntry& b) { return a.path < b.path; });
  Json files = Json::array();
  for (const ManifestEntry& entry : entries) {
    files.push_back({{"path", entry.path}, {"bytes", entry.bytes}, {"sha256", entry.sha256}});
  }
  return EvidenceJsonText(Json{{"schema", kManifestSchema}, {"files", files}}, kManifestFile);
}

Result<std::vector<ManifestEntry>> ParseManifest(std::string_view text, const std::string& what) {
  Result<Json> parsed = ParseJson(text, what);
  if (!parsed.ok()) return parsed.status();
  const Json& json = *parsed;
  auto fail = [&](const std::string& field, const std::string& problem) {
    return Status::BadInput(what + ": field \"" + field + "\" " + problem);
  };
  if (!json.is_object()) return Status::BadInput(what + ": the top is not an object");
  for (auto it = json.begin(); it != json.end(); ++it) {
    if (it.key() != "schema" && it.key() != "files") {
      return Status::BadInput(what + ": unknown field \"" + it.key() + "\"");
    }
  }
  if (!json.contains("schema")) return fail("schema", "is missing");
  if (json["schema"] != kManifestSchema) {
    return fail("schema", "is " + json["schema"].dump() + ", expected \"" + kManifestSchema + "\"");
  }
  if (!json.contains("files")) return fail("files", "is missing");
  if (!json["files"].is_array()) return fail("files", "is not an array");
  std::vector<ManifestEntry> entries;
  for (size_t i = 0; i < json["files"].size(); ++i) {
    const Json& file = json["files"][i];
    const std::string at = JoinPath("files", i);
    if (!file.is_object()) return fail(at, "is not an object");
    for (auto it = file.begin(); it != file.end(); ++it) {
      if (it.key() != "path" && it.key() != "bytes" && it.key() != "sha256") {
        return Status::BadInput(what + ": unknown field \"" + JoinPath(at, it.key()) + "\"");
      }
    }
    for (const char* field : {"path", "bytes", "sha256"}) {
      if (!file.contains(field)) return fail(JoinPath(at, field), "is missing");
    }
    ManifestEntry entry;
    if (!file["path"].is_string()) return fail(JoinPath(at, "path"), "is not a string");
    entry.path = file["path"].get<std::string>();
    Status path_ok = CheckEvidencePath(entry.path);
    if (!path_ok.ok()) return fail(JoinPath(at, "path"), "is not valid: " + path_ok.message());
    if (entry.path == kManifestFile) {
      return fail(JoinPath(at, "path"), "names the manifest itself, which it cannot hash");
    }
    if (!entries.empty() && entry.path <= entries.back().path) {
      return fail(JoinPath(at, "path"), "\"" + entry.path + "\" is not after \"" +
                                            entries.back().path +
                                            "\" (paths are sorted bytewise, each once)");
    }
    if (!file["bytes"].is_number_unsigned()) {
      return fail(JoinPath(at, "bytes"), "is " + file["bytes"].dump() + ", not a byte count");
    }
    entry.bytes = file["bytes"].get<uint64_t>();
    if (!file["sha256"].is_string()) return fail(JoinPath(at, "sha256"), "is not a string");
    entry.sha256 = file["sha256"].get<std::string>();
    Status hash_ok = CheckLowerHex64(entry.sha256, "it");
    if (!hash_ok.ok()) return fail(JoinPath(at, "sha256"), "is not a sha256: " + hash_ok.message());
    entries.push_back(std::move(entry));
  }
  return entries;
}

namespace {

// The bytes of DIR/MANIFEST.json, refusing anything but a regular file.
Result<std::string> ReadManifestBytes(const std::string& dir) {
  const std::string path = dir + "/" + kManifestFile;
  struct stat info;
  if (lstat(path.c_str(), &info) != 0) return Status::IOError("lstat " + path, errno);
  if (!S_ISREG(info.st_mode)) {
    return Status::BadInput(path + " is not a regular file" +
                            (S_ISLNK(info.st_mode) ? " (a symlink, never followed)" : ""));
  }
  Result<std::string> text = ReadFile(path, kMaxManifestBytes + 1);
  if (!text.ok()) return text.status();
  if (text->size() > kMaxManifestBytes) {
    return Status::BadInput(path + " is larger than " + std::to_string(kMaxManifestBytes >> 20) +
                            " MiB");
  }
  return text;
}

}  // namespace

Result<std::vector<ManifestEntry>> ReadManifest(const std::string& dir) {
  Result<std::string> text = ReadManifestBytes(dir);
  if (!text.ok()) return text.status();
  return ParseManifest(*text, dir + "/" + kManifestFile);
}

namespace {

// The findings of `dir`'s files against the manifest `text`, read once by the caller.
std::vector<EvidenceFinding> VerifyManifestText(const std::string& dir, const std::string& text,
                                                const Result<std::vector<ManifestEntry>>& entries) {
  if (!entries.ok()) return {{kManifestFile, entries.status().message()}};
  Result<std::vector<FolderItem>> items = ScanFolder(dir);
  if (!items.ok()) return {{".", items.status().message()}};
  std::vector<EvidenceFinding> findings = CompareWithManifest(*items, *entries);
  // One manifest has one spelling, so that the sha256 a baseline records names one content: a
  // byte changed where the JSON would not notice (a space) is found too.
  Result<std::string> expected = ManifestText(*entries);
  if (!expected.ok() || *expected != text) {
    findings.insert(findings.begin(),
                    {kManifestFile,
                     "not in the form ratchet writes (2-space indent, keys sorted, "
                     "a trailing newline): it was edited"});
  }
  return findings;
}

}  // namespace

std::vector<EvidenceFinding> VerifyManifest(const std::string& dir) {
  return ReadVerifiedManifest(dir).findings;
}

Result<std::string> ManifestSha256(const std::string& dir) {
  Result<std::string> text = ReadManifestBytes(dir);
  if (!text.ok()) return text.status();
  return Sha256Hex(*text);
}

VerifiedManifest ReadVerifiedManifest(const std::string& dir) {
  VerifiedManifest manifest;
  Result<std::string> text = ReadManifestBytes(dir);
  if (!text.ok()) {
    manifest.findings = {{kManifestFile, text.status().message()}};
    return manifest;
  }
  manifest.sha256 = Sha256Hex(*text);
  Result<std::vector<ManifestEntry>> entries = ParseManifest(*text, dir + "/" + kManifestFile);
  manifest.findings = VerifyManifestText(dir, *text, entries);
  if (entries.ok()) manifest.entries = std::move(entries).value();
  return manifest;
}

}  // namespace ratchet
