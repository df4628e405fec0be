#include "evidence/reader.h"

#include <dirent.h>
#include <sys/stat.h>

#include <algorithm>
#include <cerrno>
#include <optional>

#include "core/file.h"
#include "core/fresh_directory.h"
#include "evidence/layout.h"

namespace ratchet {
namespace {

constexpr size_t kMaxSmallFileBytes = 1u << 20;
constexpr size_t kMaxJsonFileBytes = 256u << 20;

// The bytes of DIR/RELATIVE; nullopt when nothing is there. A symlink, a special file or a file
// over `limit` bytes is an error: a reader never follows links or reads without bound.
Result<std::optional<std::string>> ReadOptional(const std::string& dir, const std::string& relative,
                                                size_t limit) {
  const std::string path = dir + "/" + relative;
  struct stat info;
  if (lstat(path.c_str(), &info) != 0) {
    if (errno == ENOENT) return std::optional<std::string>();
    return Status::IOError("lstat " + path, errno);
  }
  if (!S_ISREG(info.st_mode)) {
    return Status::BadInput(std::string("not a regular file") +
                            (S_ISLNK(info.st_mode) ? " (a symlink, never followed)" : ""));
  }
  Result<std::string> text = ReadFile(path, limit + 1);
  if (!text.ok()) return text.status();
  if (text->size() > limit) {
    return Status::BadInput("larger than " + std::to_string(limit) + " bytes");
  }
  return std::optional<std::string>(std::move(text).value());
}

class SummaryBuilder {
 public:
  SummaryBuilder(const std::string& dir, EvidenceSummary* summary) : dir_(dir), summary_(summary) {}

  void Add(const std::string& file, const std::string& problem) {
    for (const EvidenceFinding& finding : summary_->findings) {
      if (finding.file == file) return;  // one finding per file: the first says enough
    }
    summary_->findings.push_back({file, problem});
  }

  // The text of a file, or nullopt with a finding when it is unreadable (or missing and
  // `required`).
  std::optional<std::string> Text(const std::string& relative, size_t limit, bool required) {
    Result<std::optional<std::string>> text = ReadOptional(dir_, relative, limit);
    if (!text.ok()) {
      Add(relative, text.status().message());
      return std::nullopt;
    }
    if (!text->has_value() && required) Add(relative, "missing");
    return *text;
  }

  Json JsonFile(const std::string& relative, bool required) {
    std::optional<std::string> text = Text(relative, kMaxJsonFileBytes, required);
    if (!text) return nullptr;
    Result<Json> json = ParseJson(*text, relative);
    if (!json.ok()) {
      Add(relative, json.status().message());
      return nullptr;
    }
    return *json;
  }

  std::string SeedFile(const std::string& relative, bool required) {
    std::optional<std::string> text = Text(relative, kMaxSmallFileBytes, required);
    if (!text) return "";
    Result<std::string> hex = ParseSeedFile(*text, relative);
    if (!hex.ok()) {
      Add(relative, hex.status().message());
      return "";
    }
    return *hex;
  }

 private:
  std::string dir_;
  EvidenceSummary* summary_;
};

// Reads status.json, the seeds, the contract and the report into `summary`, adding findings.
void ReadContents(const std::string& dir, EvidenceSummary* summary) {
  SummaryBuilder builder(dir, summary);
  const bool finished = !summary->partial;
  summary->status = "unknown";
  if (std::optional<std::string> text = builder.Text(kStatusFile, kMaxSmallFileBytes, finished)) {
    Result<RunStatusFile> status = ParseRunStatus(*text, kStatusFile);
    if (status.ok()) {
      summary->status = status->status;
      summary->exit_code = status->exit_code;
      summary->message = status->message;
    } else {
      builder.Add(kStatusFile, status.status().message());
    }
  }
  const bool claims_complete = summary->status == kStatusComplete;
  summary->contract = builder.JsonFile(kContractFile, claims_complete);
  summary->report = builder.JsonFile(kReportFile, claims_complete);
  summary->seed_commit = builder.SeedFile(kSeedCommitFile, claims_complete);
  summary->seed_reveal = builder.SeedFile(kSeedRevealFile, claims_complete);
  if (!summary->seed_reveal.empty()) {
    if (summary->seed_commit.empty()) {
      builder.Add(kSeedRevealFile, "a seed is revealed, but no readable seed.commit binds it");
    } else if (!SeedMatchesCommit(summary->seed_reveal, summary->seed_commit)) {
      builder.Add(kSeedRevealFile, "its sha256 is not the one seed.commit holds");
    }
  }
  if (summary->partial) summary->status = "partial";
}

}  // namespace

bool IsPartialEvidence(const std::string& dir) { return IsPartialFolderName(BaseName(dir)); }

std::vector<std::string> FindPartialEvidence(const std::string& final_dir) {
  std::vector<std::string> found;
  const std::string parent = DirName(final_dir);
  const std::string prefix = "." + BaseName(final_dir) + ".partial-";
  DIR* listing = opendir(parent.c_str());
  if (listing == nullptr) return found;
  while (dirent* entry = readdir(listing)) {
    const std::string name = entry->d_name;
    if (name.compare(0, prefix.size(), prefix) == 0 && IsPartialEvidence(name)) {
      found.push_back(parent == "." ? name : parent + "/" + name);
    }
  }
  closedir(listing);
  std::sort(found.begin(), found.end());
  return found;
}

Result<EvidenceSummary> ReadEvidence(const std::string& dir) {
  struct stat info;
  if (stat(dir.c_str(), &info) != 0) {
    if (errno != ENOENT) return Status::IOError("stat " + dir, errno);
    std::string message = dir + " does not exist";
    std::vector<std::string> partials = FindPartialEvidence(dir);
    if (!partials.empty()) {
      message += "; a run that stopped before it finished left " + partials.front() +
                 (partials.size() > 1 ? " (and " + std::to_string(partials.size() - 1) + " more)"
                                      : std::string()) +
                 ", which is incomplete";
    }
    return Status::BadInput(message);
  }
  if (!S_ISDIR(info.st_mode)) {
    return Status::BadInput(dir + " is not a ratchet evidence directory (not a folder)");
  }
  EvidenceSummary summary;
  summary.partial = IsPartialEvidence(dir);
  const bool has_manifest = PathExists(dir + "/" + kManifestFile);
  if (summary.partial) {
    summary.findings.push_back(
        {has_manifest ? "." : kManifestFile,
         has_manifest
             ? "a hidden partial folder: the run stopped before moving it into place"
             : "missing: a hidden partial folder of a run that stopped before it finished"});
    ReadContents(dir, &summary);
    return summary;
  }
  if (!has_manifest) {
    return Status::BadInput(dir + " is not a ratchet evidence directory (no " + kManifestFile +
                            ")");
  }
  VerifiedManifest manifest = ReadVerifiedManifest(dir);  // once: entries, sha256, findings
  summary.manifest = std::move(manifest.entries);
  summary.manifest_sha256 = std::move(manifest.sha256);
  summary.findings = std::move(manifest.findings);
  ReadContents(dir, &summary);
  std::stable_sort(
      summary.findings.begin(), summary.findings.end(),
      [](const EvidenceFinding& a, const EvidenceFinding& b) { return a.file < b.file; });
  summary.complete = summary.status == kStatusComplete && summary.findings.empty();
  return summary;
}

}  // namespace ratchet
