#include "evidence/writer.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <vector>

#include "core/file.h"
#include "core/sha256.h"
#include "evidence/layout.h"
#include "evidence/signature.h"

namespace ratchet {
namespace {

bool StartsWith(const std::string& text, const std::string& prefix) {
  return text.compare(0, prefix.size(), prefix) == 0;
}

// The folders above `relative`: "a/b/c" -> "a", "a/b".
std::vector<std::string> Parents(const std::string& relative) {
  std::vector<std::string> parents;
  for (size_t slash = relative.find('/'); slash != std::string::npos;
       slash = relative.find('/', slash + 1)) {
    parents.push_back(relative.substr(0, slash));
  }
  return parents;
}

}  // namespace

Result<EvidenceWriter> EvidenceWriter::Begin(const std::string& final_dir) {
  Result<FreshDirectory> directory = FreshDirectory::Begin(final_dir);
  if (!directory.ok()) return directory.status();
  return EvidenceWriter(std::move(directory).value());
}

Status EvidenceWriter::Put(const std::string& relative, std::string_view bytes) {
  if (written_.count(relative)) {
    return Status::Internal(relative + " was written already in " + partial_path() +
                            "; an evidence file is written once");
  }
  if (folders_.count(relative)) {
    return Status::Internal(relative + " is a folder of " + partial_path() + ", not a file");
  }
  const std::vector<std::string> parents = Parents(relative);
  for (const std::string& parent : parents) {
    if (written_.count(parent)) {
      return Status::Internal(parent + " is a file of " + partial_path() + ", so " + relative +
                              " cannot be written under it");
    }
  }
  const std::string path = partial_path() + "/" + relative;
  if (PathExists(path)) {
    return Status::Internal(path + " exists, but ratchet did not write it");
  }
  if (!parents.empty()) RATCHET_RETURN_IF_ERROR(directory_.MakeSubdirectory(parents.back()));
  Status status = directory_.WriteFile(relative, bytes);
  if (!status.ok()) {
    unlink(path.c_str());  // a half-written file would otherwise stay, unlisted
    return status;
  }
  folders_.insert(parents.begin(), parents.end());
  written_[relative] = ManifestEntry{relative, bytes.size(), Sha256Hex(bytes)};
  return Status::Ok();
}

Status EvidenceWriter::WriteFile(const std::string& relative, std::string_view bytes) {
  if (finished_)
    return Status::Internal("evidence " + final_path() + " is finished; " + relative +
                            " comes too late");
  RATCHET_RETURN_IF_ERROR(CheckEvidencePath(relative));
  for (const char* reserved :
       {kManifestFile, kSignatureFile, kStatusFile, kSeedCommitFile, kSeedRevealFile}) {
    if (relative == reserved) {
      return Status::Internal(relative + " is written only by the evidence writer itself");
    }
  }
  if (StartsWith(relative, std::string(kRecordsFolder) + "/")) {
    if (seed_commit_.empty()) {
      return Status::Internal(relative + " is written before the run seed is committed; commit " +
                              "the seed before the first worker starts");
    }
    if (seed_revealed_) {
      return Status::Internal(relative + " is written after the run seed was revealed; reveal " +
                              "the seed only after the last call");
    }
  }
  return Put(relative, bytes);
}

Status EvidenceWriter::WriteJson(const std::string& relative, const Json& value) {
  Result<std::string> text = EvidenceJsonText(value, relative);
  if (!text.ok()) return text.status();
  return WriteFile(relative, *text);
}

Status EvidenceWriter::CommitSeed(const std::string& seed_sha256_hex) {
  if (finished_)
    return Status::Internal("evidence " + final_path() +
                            " is finished; the seed commitment comes too late");
  if (!seed_commit_.empty()) return Status::Internal("the run seed was committed already");
  RATCHET_RETURN_IF_ERROR(CheckLowerHex64(seed_sha256_hex, "the seed commitment"));
  RATCHET_RETURN_IF_ERROR(Put(kSeedCommitFile, seed_sha256_hex + "\n"));
  seed_commit_ = seed_sha256_hex;
  return Status::Ok();
}

Status EvidenceWriter::RevealSeed(const std::string& seed_hex) {
  if (finished_)
    return Status::Internal("evidence " + final_path() + " is finished; the seed comes too late");
  if (seed_commit_.empty())
    return Status::Internal("the run seed is revealed before it was committed");
  if (seed_revealed_) return Status::Internal("the run seed was revealed already");
  RATCHET_RETURN_IF_ERROR(CheckLowerHex64(seed_hex, "the revealed seed"));
  if (!SeedMatchesCommit(seed_hex, seed_commit_)) {
    // The seed itself stays out of the message: it is not the committed one, so it is nobody's.
    Result<std::string> bytes = HexDecode(seed_hex, "the revealed seed");
    return Status::Internal("the revealed seed hashes to " + Sha256Hex(bytes.ok() ? *bytes : "") +
                            ", but " + kSeedCommitFile + " holds " + seed_commit_);
  }
  RATCHET_RETURN_IF_ERROR(Put(kSeedRevealFile, seed_hex + "\n"));
  seed_revealed_ = true;
  return Status::Ok();
}

Status EvidenceWriter::Finish(const std::string& status, int exit_code,
                              const std::string& message) {
  if (finished_) return Status::Internal("evidence " + final_path() + " was finished already");
  if (!IsRunStatus(status)) {
    return Status::Internal("\"" + status +
                            "\" is not a run status (complete, interrupted, failed)");
  }
  if (exit_code < 0 || exit_code > 255) {
    return Status::Internal("exit code " + std::to_string(exit_code) + " is outside 0-255");
  }
  if (status == kStatusComplete) {
    for (const char* required : kCompleteRunFiles) {
      if (!written_.count(required)) {
        return Status::Internal("a complete run needs " + std::string(required) + " in " +
                                partial_path() + "; finish it as failed or interrupted");
      }
    }
  }
  Result<std::string> status_text =
      EvidenceJsonText(RunStatusJson({status, exit_code, message}), kStatusFile);
  if (!status_text.ok()) return status_text.status();
  // From here on a failure leaves the partial folder for whoever looks into it.
  finished_ = true;
  RATCHET_RETURN_IF_ERROR(Put(kStatusFile, *status_text));

  std::vector<ManifestEntry> entries;
  for (const auto& [path, entry] : written_) entries.push_back(entry);
  Result<std::vector<FolderItem>> items = ScanFolder(partial_path());
  if (!items.ok()) return items.status();
  std::vector<EvidenceFinding> findings = CompareWithManifest(*items, entries);
  if (!findings.empty()) {
    std::string list;
    for (const EvidenceFinding& finding : findings) {
      list += (list.empty() ? "" : "; ") + finding.file + ": " + finding.problem;
    }
    return Status::Internal(partial_path() + " no longer holds what ratchet wrote into it (" +
                            list + "); it is left as it is, unfinished");
  }
  // Deepest folders first, so that each folder's entry is durable before its parent's.
  for (auto it = folders_.rbegin(); it != folders_.rend(); ++it) {
    RATCHET_RETURN_IF_ERROR(SyncFolder(partial_path() + "/" + *it));
  }
  Result<std::string> manifest = ManifestText(std::move(entries));
  if (!manifest.ok()) return manifest.status();
  RATCHET_RETURN_IF_ERROR(WriteFileAtomic(partial_path() + "/" + kManifestFile, *manifest));
  if (!signing_key_.empty()) {
    // The last file before the directory takes its name: the manifest, signed.
    Result<Json> signature = SignManifest(signing_key_, *manifest);
    if (!signature.ok()) return signature.status();
    Result<std::string> text = EvidenceJsonText(*signature, kSignatureFile);
    if (!text.ok()) return text.status();
    RATCHET_RETURN_IF_ERROR(WriteFileAtomic(partial_path() + "/" + kSignatureFile, *text));
  }
  return directory_.Commit();
}

}  // namespace ratchet
