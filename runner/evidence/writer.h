// The evidence writer: one evidence directory per run, built in a hidden partial folder and
// renamed into place by Finish with its status and manifest, so that a directory under its final
// name is always whole. A run stopped before Finish (SIGKILL included) leaves only the partial
// folder, which never reads as complete. docs/evidence.md describes the result.
#ifndef RATCHET_EVIDENCE_WRITER_H_
#define RATCHET_EVIDENCE_WRITER_H_

#include <map>
#include <set>
#include <string>
#include <string_view>

#include "core/canonical_json.h"
#include "core/fresh_directory.h"
#include "core/status.h"
#include "evidence/manifest.h"

namespace ratchet {

class EvidenceWriter {
 public:
  // Refuses a `final_dir` that exists and a parent folder that is a symlink (FreshDirectory).
  static Result<EvidenceWriter> Begin(const std::string& final_dir);

  EvidenceWriter(EvidenceWriter&&) = default;
  EvidenceWriter& operator=(EvidenceWriter&&) = delete;

  // Writes one file under the partial folder, creating its folders. Refused: a path that breaks
  // CheckEvidencePath, a path written before, a file where a folder is or the reverse, the names
  // only this class writes (MANIFEST.json, SIGNATURE.json, status.json, seed.commit, seed.reveal),
  // anything under records/ before CommitSeed or after RevealSeed (calls happen between the two),
  // and anything after Finish.
  Status WriteFile(const std::string& relative, std::string_view bytes);
  // WriteFile of EvidenceJsonText(value): 2-space indent, keys sorted, a trailing newline.
  Status WriteJson(const std::string& relative, const Json& value);

  // seed.commit: sha256 of the run seed, before the first worker starts. Once.
  Status CommitSeed(const std::string& seed_sha256_hex);
  // seed.reveal: the seed, after the last call. Refused unless its sha256 equals the commit.
  Status RevealSeed(const std::string& seed_hex);

  // Ends the run: writes status.json, checks the partial folder holds exactly the files written
  // (same bytes, nothing else), fsyncs every folder, writes MANIFEST.json and renames the partial
  // folder to its final name. `status` is complete, interrupted or failed; a complete run needs
  // contract.json, report.json, seed.commit and seed.reveal. A refused status changes nothing;
  // any later failure leaves the partial folder as it is. Once.
  // With a signing key (SignWith), SIGNATURE.json, the manifest signed, is written after it.
  Status Finish(const std::string& status, int exit_code, const std::string& message);
  // The Ed25519 private key (PEM) Finish signs the manifest with; empty: unsigned.
  void SignWith(std::string private_pem) { signing_key_ = std::move(private_pem); }

  const std::string& partial_path() const { return directory_.partial_path(); }
  const std::string& final_path() const { return directory_.final_path(); }
  bool finished() const { return finished_; }

 private:
  explicit EvidenceWriter(FreshDirectory directory) : directory_(std::move(directory)) {}
  // WriteFile without the checks of who may write what.
  Status Put(const std::string& relative, std::string_view bytes);

  FreshDirectory directory_;
  std::map<std::string, ManifestEntry> written_;
  std::set<std::string> folders_;
  std::string seed_commit_;
  bool seed_revealed_ = false;
  bool finished_ = false;
  std::string signing_key_;
};

}  // namespace ratchet

#endif  // RATCHET_EVIDENCE_WRITER_H_
