#include "audit/audit.h"

#include <sys/stat.h>

#include <cerrno>

#include "audit/evidence.h"
#include "audit/reference_record.h"
#include "baseline/input_file.h"
#include "core/canonical_json.h"
#include "core/file.h"
#include "rules/rule_set.h"

namespace ratchet {
namespace {

// The reference scorer's records are a few tens of kilobytes; a wrapper adds its output.
constexpr size_t kMaxRecordBytes = 64u << 20;
// The submission files of the rule set are at most 20,480 bytes; a file far above is not one.
constexpr size_t kMaxSubmissionBytes = 16u << 20;

// The file a record scored: --submission, else its name beside the record or in the two
// folders above (a record under <submission>/evidence/<run>/ sits below its submission).
Result<std::optional<SubmissionFile>> FindSubmission(const std::string& record_path,
                                                     const std::optional<std::string>& name,
                                                     const std::optional<std::string>& given) {
  std::string path;
  if (given) {
    RATCHET_RETURN_IF_ERROR(CheckRegularInput(*given, "--submission"));
    path = *given;
  } else {
    if (!name || name->empty() || name->find('/') != std::string::npos || *name == "." ||
        *name == "..") {
      return std::optional<SubmissionFile>();
    }
    std::string folder = DirName(record_path);
    for (int up = 0; up <= 2 && path.empty(); ++up) {
      struct stat info;
      const std::string candidate = folder + "/" + *name;
      if (lstat(candidate.c_str(), &info) == 0 && S_ISREG(info.st_mode)) path = candidate;
      folder = folder + "/..";
    }
    if (path.empty()) return std::optional<SubmissionFile>();
  }
  Result<std::string> bytes = ReadInputFile(path, "the submission", kMaxSubmissionBytes);
  if (!bytes.ok()) return bytes.status();
  return std::optional<SubmissionFile>(SubmissionFile{path, std::move(bytes).value()});
}

}  // namespace

Result<AuditResult> Audit(const std::string& path, const AuditOptions& options) {
  AuditResult result;
  result.path = path;
  // What is read is checked first: no FIFO, device or link in a folder, no JSON nested or long
  // enough to steer a parser or an error message (--rules and --data: RealMain).
  RATCHET_RETURN_IF_ERROR(CheckInputTree(path, "the evidence directory"));
  struct stat info;
  if (stat(path.c_str(), &info) != 0 || S_ISDIR(info.st_mode)) {
    // A folder, or nothing at all: the evidence reader says which, and names a partial folder
    // that a stopped run left under the name.
    EvidenceAuditOptions evidence;
    evidence.rules_path = options.rules_path;
    evidence.data_dir = options.data_dir;
    if (options.submission) {
      return Status::Usage("--submission names the file of a reference record; " + path +
                           " is not a record file");
    }
    RATCHET_RETURN_IF_ERROR(AuditEvidence(path, evidence, &result));
    return result;
  }
  RATCHET_RETURN_IF_ERROR(CheckInputFile(path, "the record"));
  Result<std::string> text = ReadInputFile(path, "the record", kMaxRecordBytes);
  if (!text.ok()) return text.status();
  RATCHET_RETURN_IF_ERROR(CheckJsonShape(*text, path, "the record"));
  Result<Json> document = ParseJson(*text, path);
  if (!document.ok()) {
    return Status::BadInput(path + " is neither an evidence directory nor a JSON record: " +
                            document.status().message());
  }
  if (ShapeOf(*document) == RecordShape::kNone) {
    return Status::BadInput(path +
                            " is JSON, but not a format ratchet audits: neither a reference "
                            "scorer record (version, file, function, calls, ...) nor one "
                            "wrapped as {returncode, stdout, stderr, record}");
  }
  // The record's version names its rule set, unless --rules gives one (which must judge it).
  Result<RuleSet> rules = options.rules_path ? LoadRuleSet(options.rules_path)
                                             : RuleSetForRecord(*document, BaseName(path), &result);
  if (!rules.ok()) return rules.status();
  if (options.rules_path) result.rules = rules->id + " (given with --rules)";
  Result<std::optional<SubmissionFile>> submission =
      FindSubmission(path, RecordFileName(*document), options.submission);
  if (!submission.ok()) return submission.status();
  RATCHET_RETURN_IF_ERROR(
      AuditReferenceRecord(*document, BaseName(path), *rules, *submission, &result));
  if (!result.nothing_to_audit.empty()) result.rules.clear();  // nothing was judged
  return result;
}

}  // namespace ratchet
