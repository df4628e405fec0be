// Reading an evidence directory as an auditor does: the manifest verified file by file, the
// status, the seed commitment against its reveal, and the contract and report parsed. Whether
// the evidence is complete is decided here, once, for every command that relies on it.
#ifndef RATCHET_EVIDENCE_READER_H_
#define RATCHET_EVIDENCE_READER_H_

#include <string>
#include <vector>

#include "core/canonical_json.h"
#include "core/status.h"
#include "evidence/manifest.h"

namespace ratchet {

struct EvidenceSummary {
  // status.json says complete, every file a complete run needs is there, and nothing is found.
  bool complete = false;
  // The hidden partial folder of a run that stopped before it finished.
  bool partial = false;
  // status.json's status; "partial" for a partial folder, "unknown" when status.json is missing
  // or unreadable.
  std::string status;
  int exit_code = -1;  // status.json's, or -1
  std::string message;
  std::vector<EvidenceFinding> findings;  // sorted by file
  std::vector<ManifestEntry> manifest;    // empty when MANIFEST.json cannot be read
  std::string manifest_sha256;            // empty when there is no MANIFEST.json
  Json contract;                          // null when absent or unreadable (a finding says which)
  Json report;
  std::string seed_commit, seed_reveal;  // hex, empty when absent or unreadable
};

// Refuses (BadInput) what is not an evidence directory at all: a path that does not exist
// (naming any partial folder a stopped run left beside it), not a folder, or a folder with no
// MANIFEST.json that is not a partial folder. Everything else, however broken, is a summary
// whose findings say what is wrong.
Result<EvidenceSummary> ReadEvidence(const std::string& dir);

// Whether `dir`'s name is that of a hidden partial folder (".<name>.partial-<n>").
bool IsPartialEvidence(const std::string& dir);
// The partial folders beside `final_dir` that a run writing to it left behind, sorted.
std::vector<std::string> FindPartialEvidence(const std::string& final_dir);

}  // namespace ratchet

#endif  // RATCHET_EVIDENCE_READER_H_
