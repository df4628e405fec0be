#include "data/locate.h"

#include <openssl/evp.h>

#include <cstdlib>
#include <filesystem>
#include <future>
#include <system_error>

#include "core/file.h"
#include "core/sha256.h"

namespace ratchet {
namespace {

// Where a Debian package puts datasets (dataset-fashion-mnist: fashion-mnist/ below it).
constexpr char kPackageDataFolder[] = "/usr/share/datasets";

std::string Resolve(const std::string& path) {
  std::error_code error;
  std::filesystem::path resolved = std::filesystem::weakly_canonical(path, error);
  if (error) resolved = std::filesystem::path(path).lexically_normal();
  std::string text = resolved.string();
  while (text.size() > 1 && text.back() == '/') text.pop_back();
  return text;
}

Result<std::string> Md5Hex(const std::string& bytes) {
  unsigned char digest[EVP_MAX_MD_SIZE];
  unsigned int length = 0;
  if (EVP_Digest(bytes.data(), bytes.size(), digest, &length, EVP_md5(), nullptr) != 1) {
    return Status::Internal("OpenSSL EVP_Digest(md5) failed");
  }
  return HexEncode(digest, length);
}

// "sha256 X of the decompressed bytes, or ..." : the identities `identity` accepts.
std::string Expected(const IdxIdentity& identity, bool gzipped) {
  std::vector<std::string> parts;
  if (!identity.sha256.empty()) parts.push_back("sha256 " + identity.sha256 + " of the IDX bytes");
  if (!identity.md5.empty()) {
    parts.push_back("md5 " + identity.md5 + " of the IDX bytes (" +
                    std::to_string(kIdxImagesBytes) + "/" + std::to_string(kIdxLabelsBytes) +
                    "-byte files)");
  }
  if (gzipped || identity.sha256.empty()) {
    parts.push_back("sha256 " + identity.gzip_sha256 + " of the original gzip file");
  }
  std::string text;
  for (size_t i = 0; i < parts.size(); ++i) {
    if (i > 0) text += ", or ";
    text += parts[i];
  }
  return text;
}

}  // namespace

Result<DataSearch> MakeDataSearch(const std::optional<std::string>& data_flag) {
  std::vector<std::string> candidates;
  if (data_flag) {
    if (data_flag->empty() || !IsDirectory(*data_flag)) {
      return Status::BadInput("--data " + *data_flag + ": no such folder");
    }
    candidates.push_back(*data_flag);
  }
  const char* environment = std::getenv("RATCHET_DATA");
  if (environment != nullptr && *environment != '\0') {
    if (!IsDirectory(environment)) {
      return Status::BadInput(std::string("$RATCHET_DATA is ") + environment +
                              ", which is not a folder");
    }
    candidates.push_back(environment);
  }
  Result<std::string> self = SelfExecutable();
  if (self.ok()) candidates.push_back(DirName(*self) + "/../data");
  candidates.push_back(kPackageDataFolder);

  DataSearch search;
  for (const std::string& candidate : candidates) {
    std::string folder = Resolve(candidate);
    bool seen = false;
    for (const std::string& earlier : search.folders) seen = seen || earlier == folder;
    if (!seen) search.folders.push_back(folder);
  }
  return search;
}

Result<VerifiedIdx> ReadVerifiedIdx(const DatasetSpec& spec, IdxKind kind,
                                    const std::string& path) {
  // The user put it there: a folder or a dangling symlink in a file's place is their mistake.
  RATCHET_RETURN_IF_ERROR(CheckInputFile(path, spec.name + " " + IdxKindName(kind) + " file"));
  Result<IdxFile> file = ReadIdxFile(path, kind);
  if (!file.ok()) return file.status();
  VerifiedIdx verified;
  verified.file = std::move(file).value();
  verified.sha256 = Sha256Hex(verified.file.bytes);
  const IdxIdentity& identity = kind == IdxKind::kImages ? spec.images : spec.labels;
  bool accepted = !identity.sha256.empty() && verified.sha256 == identity.sha256;
  accepted =
      accepted || (verified.file.gzipped && verified.file.gzip_sha256 == identity.gzip_sha256);
  std::string found = "sha256 " + verified.sha256 + " of the IDX bytes";
  if (!accepted && !identity.md5.empty()) {
    Result<std::string> md5 = Md5Hex(verified.file.bytes);
    if (!md5.ok()) return md5.status();
    accepted = *md5 == identity.md5;
    found = "md5 " + *md5 + " and " + found;
  }
  if (accepted) return verified;
  if (verified.file.gzipped)
    found += " (the gzip file's sha256 is " + verified.file.gzip_sha256 + ")";
  return Status::BadInput(spec.name + " " + IdxKindName(kind) + " file " + path +
                          " is not the registered file: expected " +
                          Expected(identity, verified.file.gzipped) + "; found " + found +
                          ". The right file comes from " + spec.source);
}

Result<LocatedDataset> LocateDataset(const DataSearch& search, const std::string& name) {
  const DatasetSpec* spec = FindDataset(name);
  if (spec == nullptr) {
    return Status::Usage(name + " is not a dataset; the datasets are " + DatasetNames());
  }
  LocatedDataset dataset;
  dataset.name = spec->name;
  const IdxKind kinds[2] = {IdxKind::kImages, IdxKind::kLabels};
  for (const std::string& folder : search.folders) {
    for (const std::string& folder_name : spec->folder_names) {
      const std::string directory = folder + "/" + folder_name;
      dataset.searched.push_back(directory);
      std::string paths[2];
      for (int i = 0; i < 2; ++i) {
        const std::string raw = directory + "/" + IdxFileName(kinds[i]);
        if (PathExists(raw)) {
          paths[i] = raw;
        } else if (PathExists(raw + ".gz")) {
          paths[i] = raw + ".gz";
        }
      }
      if (paths[0].empty() && paths[1].empty()) continue;
      for (int i = 0; i < 2; ++i) {
        if (!paths[i].empty()) continue;
        return Status::BadInput(spec->name + ": found " + paths[1 - i] + " but no " +
                                IdxKindName(kinds[i]) + " file beside it (looked for " +
                                IdxFileName(kinds[i]) + " and " + IdxFileName(kinds[i]) +
                                ".gz in " + directory + "). The right files come from " +
                                spec->source);
      }
      // The images (most of the bytes) are read and verified on a thread while the labels are
      // (here, when no thread can be started).
      auto read_images = [spec, path = paths[0]] {
        return ReadVerifiedIdx(*spec, IdxKind::kImages, path);
      };
      std::future<Result<VerifiedIdx>> reading_images;
      try {
        reading_images = std::async(std::launch::async, read_images);
      } catch (const std::system_error&) {
        reading_images = std::async(std::launch::deferred, read_images);
      }
      Result<VerifiedIdx> labels = ReadVerifiedIdx(*spec, IdxKind::kLabels, paths[1]);
      Result<VerifiedIdx> images = reading_images.get();
      if (!images.ok()) return images.status();
      if (!labels.ok()) return labels.status();
      dataset.present = true;
      dataset.images_path = paths[0];
      dataset.labels_path = paths[1];
      dataset.images_sha256 = images->sha256;
      dataset.labels_sha256 = labels->sha256;
      return dataset;
    }
  }
  return dataset;
}

Result<std::vector<LocatedDataset>> LocateDatasets(const DataSearch& search) {
  // Each dataset is read and verified on a thread of its own (a run waits for all of them before
  // its first worker starts); the first error in the registry's order is the one returned.
  std::vector<std::future<Result<LocatedDataset>>> locating;
  for (const DatasetSpec& spec : DatasetRegistry()) {
    auto locate = [&search, name = spec.name] { return LocateDataset(search, name); };
    try {
      locating.push_back(std::async(std::launch::async, locate));
    } catch (const std::system_error&) {  // no thread: read when its result is asked for
      locating.push_back(std::async(std::launch::deferred, locate));
    }
  }
  std::vector<LocatedDataset> located;
  Status first;
  for (std::future<Result<LocatedDataset>>& dataset : locating) {
    Result<LocatedDataset> found = dataset.get();
    if (!found.ok()) {
      if (first.ok()) first = found.status();
      continue;
    }
    located.push_back(std::move(found).value());
  }
  if (!first.ok()) return first;
  return located;
}

}  // namespace ratchet
