// The evidence layout: the names every evidence directory uses, the rule for paths inside it, and
// the small fixed-format files (status.json, seed.commit, seed.reveal). docs/evidence.md describes
// every file for auditors; this header is where the code keeps those names in one place.
#ifndef RATCHET_EVIDENCE_LAYOUT_H_
#define RATCHET_EVIDENCE_LAYOUT_H_

#include <array>
#include <string>
#include <string_view>

#include "core/canonical_json.h"
#include "core/status.h"

namespace ratchet {

inline constexpr char kManifestFile[] = "MANIFEST.json";
inline constexpr char kStatusFile[] = "status.json";
inline constexpr char kContractFile[] = "contract.json";
inline constexpr char kReportFile[] = "report.json";
inline constexpr char kSeedCommitFile[] = "seed.commit";
inline constexpr char kSeedRevealFile[] = "seed.reveal";
inline constexpr char kRecordsFolder[] = "records";

inline constexpr char kManifestSchema[] = "ratchet.manifest/1";
inline constexpr char kStatusSchema[] = "ratchet.status/1";

// The values of status.json's "status".
inline constexpr char kStatusComplete[] = "complete";
inline constexpr char kStatusInterrupted[] = "interrupted";
inline constexpr char kStatusFailed[] = "failed";
bool IsRunStatus(const std::string& status);

// Besides MANIFEST.json and status.json, what a run must hold to be finished as complete.
inline constexpr std::array<const char*, 4> kCompleteRunFiles = {kContractFile, kReportFile,
                                                                 kSeedCommitFile, kSeedRevealFile};

// A path inside an evidence directory: parts separated by '/', each 1 to 255 characters of
// [A-Za-z0-9._+@=-] not starting with '.', at most 4,096 characters in all. Names stay plain so
// that `sha256sum -c` and a shell read them without quoting. The error names `relative`.
Status CheckEvidencePath(const std::string& relative);

// A submission's function name as ratchet keeps and shows it: 1 to 255 ASCII letters, digits and
// '_', not starting with a digit. The error shows the name as a JSON string.
Status CheckFunctionName(const std::string& name);

// "records/<record_id>/run-<run>" (runs count from 1).
std::string RunFolder(const std::string& record_id, int run);
// "01", "02", ...: a call's number in labels/<nn>.u8 and logs/<nn>.log (calls count from 1).
std::string CallNumber(int call);

// How ratchet writes the JSON files of an evidence directory for people to read: 2-space indent,
// keys sorted, a trailing newline. NaN, infinities and invalid UTF-8 are refused, naming the
// field path and `what`.
Result<std::string> EvidenceJsonText(const Json& value, const std::string& what);

// status.json: {"schema": "ratchet.status/1", "status": ..., "exit_code": N, "message": ...}.
struct RunStatusFile {
  std::string status;  // complete | interrupted | failed
  int exit_code = 0;   // the exit code of the command that wrote the evidence, 0-255
  std::string message;
};
Json RunStatusJson(const RunStatusFile& status);
// Strict: every field present with its type, nothing else. Errors name `what` and the field.
Result<RunStatusFile> ParseRunStatus(std::string_view text, const std::string& what);

// 64 lowercase hex digits: how a sha256 and a 32-byte run seed are written. The error names `what`.
inline constexpr size_t kHex64Digits = 64;
Status CheckLowerHex64(const std::string& hex, const std::string& what);

// seed.commit and seed.reveal each hold 64 lowercase hex digits and a newline: the sha256 of the
// 32-byte run seed, and the seed itself.
Result<std::string> ParseSeedFile(std::string_view text, const std::string& what);
// Whether sha256 of the bytes `seed_hex` spells equals `commit_hex`.
bool SeedMatchesCommit(const std::string& seed_hex, const std::string& commit_hex);

}  // namespace ratchet

#endif  // RATCHET_EVIDENCE_LAYOUT_H_
