#include "shard/evidence_copy.h"

#include <filesystem>
#include <string>
#include <vector>

#include "core/file.h"
#include "core/fresh_directory.h"
#include "evidence/layout.h"
#include "evidence/reader.h"
#include "evidence/signature.h"
#include "shard/run_summary.h"
#include "shard/sharded_run.h"

namespace ratchet {
namespace {

// The files of a verified run that its copy holds: a direct run's MANIFEST.json, its SIGNATURE.json
// when signed (the copy stays signed) and every file its manifest lists; every file of a sharded
// run's tree (its manifest lists the shards' manifests, each of which lists its shard's files).
Result<std::vector<std::string>> FilesToCopy(const std::string& source, bool sharded,
                                             const std::vector<ManifestEntry>& manifest) {
  std::vector<std::string> files;
  if (!sharded) {
    files.push_back("MANIFEST.json");
    if (PathExists(source + "/" + kSignatureFile)) files.push_back(kSignatureFile);
    for (const ManifestEntry& entry : manifest) files.push_back(entry.path);
    return files;
  }
  std::error_code error;
  for (auto it = std::filesystem::recursive_directory_iterator(source, error);
       !error && it != std::filesystem::recursive_directory_iterator(); it.increment(error)) {
    if (it->is_regular_file(error)) {
      files.push_back(std::filesystem::relative(it->path(), source, error).string());
    }
  }
  if (error) return Status::IOError("listing " + source, error.value());
  return files;
}

// What is wrong with the copy of a run at `copy` (empty when it verifies): its manifest must be
// the one promoted (`manifest_sha256`), and every file must be the one its manifest lists (for a
// sharded run: the run's manifest over run.json and the shards' manifests, each shard's over its
// files).
std::string CopyProblem(const std::string& copy, bool sharded, const std::string& manifest_sha256) {
  if (!sharded) {
    std::vector<EvidenceFinding> findings = VerifyManifest(copy);
    Result<std::string> copied = ManifestSha256(copy);
    if (!copied.ok()) return copied.status().message();
    if (*copied != manifest_sha256) return "its MANIFEST.json is not the one promoted";
    if (!findings.empty()) return findings.front().file + ": " + findings.front().problem;
    return "";
  }
  Result<EvidenceSummary> summary = ReadRunSummary(copy);
  if (!summary.ok()) return summary.status().message();
  if (summary->manifest_sha256 != manifest_sha256) return "its MANIFEST.json is not the one promoted";
  if (!summary->findings.empty()) {
    return summary->findings.front().file + ": " + summary->findings.front().problem;
  }
  Result<ShardedRun> run = ReadShardedRun(copy);
  if (!run.ok()) return run.status().message();
  for (const ShardedRunShard& shard : run->shards) {
    if (shard.state != "done") continue;
    std::vector<EvidenceFinding> findings = VerifyManifest(ShardFolder(copy, shard.shard.id));
    if (!findings.empty()) {
      return "shard " + shard.shard.id + ": " + findings.front().file + ": " +
             findings.front().problem;
    }
  }
  return "";
}

}  // namespace

// Copies a verified run (FilesToCopy) into `target` (a fresh directory: renamed into place only
// when whole), and checks the copy (CopyProblem) before it takes its name.
Status CopyEvidence(const std::string& source, bool sharded,
                    const std::vector<ManifestEntry>& manifest,
                    const std::string& manifest_sha256, const std::string& target) {
  Result<std::vector<std::string>> files = FilesToCopy(source, sharded, manifest);
  if (!files.ok()) return files.status();
  Result<FreshDirectory> fresh = FreshDirectory::Begin(target);
  if (!fresh.ok()) return fresh.status();
  for (const std::string& file : *files) {
    Result<std::string> bytes = ReadFile(source + "/" + file);
    if (!bytes.ok()) {
      fresh->Abandon();
      return bytes.status();
    }
    size_t slash = file.rfind('/');
    if (slash != std::string::npos) {
      Status made = fresh->MakeSubdirectory(file.substr(0, slash));
      if (!made.ok()) {
        fresh->Abandon();
        return made;
      }
    }
    Status written = fresh->WriteFile(file, *bytes);
    if (!written.ok()) {
      fresh->Abandon();
      return written;
    }
  }
  // Every file checked again before the copy takes its name: a file that changed since the source
  // was verified is found here, and no copy that does not verify is left where the baseline would
  // name it.
  const std::string problem = CopyProblem(fresh->partial_path(), sharded, manifest_sha256);
  if (!problem.empty()) {
    fresh->Abandon();
    return Status::Internal("the copy of " + source + " for " + target +
                            " does not verify, so it was removed: " + problem);
  }
  return fresh->Commit();
}

}  // namespace ratchet
