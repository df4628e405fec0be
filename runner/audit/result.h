// What an audit says about a claim: findings that break it, notes that qualify it (not an
// official time, a check that could not be made here), what was checked, and the verdict. Every
// finding names where it is: the file, then the record, run, call and field.
#ifndef RATCHET_AUDIT_RESULT_H_
#define RATCHET_AUDIT_RESULT_H_

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "evidence/fields.h"

namespace ratchet {

struct AuditFinding {
  enum class Kind {
    kBreaks,  // the claim does not stand while this is so
    kNote,    // said for the reader; the claim may still stand
  };
  Kind kind = Kind::kBreaks;
  std::string where;  // "records/ncm/run-1/calls.json: calls[2].correct"
  std::string message;
};

// What the audit re-derived for one scoring of a record (a report entry, or its "rerun") from the
// runs under it: the submission's sha256 that every run's copy has, the outcome the runs' judges
// give (re-judged from their calls), and the median of their ranked times.
struct AuditedScoring {
  std::string sha256;
  int64_t band_bp = 0;
  bool qualified = false;
  std::vector<std::string> broken;  // sorted, each once; empty when qualified
  std::optional<double> ranked_ms;  // when qualified
};

struct AuditedRecord {
  AuditedScoring first;
  std::optional<AuditedScoring> rerun;  // scored again in the same run
};

enum class AuditVerdict {
  kStands,          // every check that could be made agrees
  kDoesNotStand,    // at least one finding breaks the claim
  kNothingToAudit,  // the input holds no claim that can be re-derived
};

// What a reference scorer record claims, as the audit re-judged it from its calls.
struct ReferenceClaim {
  std::string version;  // the scorer's version string, as the record gives it
  std::string file, function, source_sha256;
  std::string device;  // the board's name ("NVIDIA A100-SXM4-80GB"); "" when not recorded
  bool sandboxed = true;
  int64_t band_bp = 0;
  std::vector<std::string> broken;  // the rule ids its problems break, sorted, each once
  std::optional<double> ranked_ms;  // when it qualifies
};

struct AuditResult : public FieldFindings {
  std::string path;                 // what was audited, as given
  std::string format;               // "ratchet evidence directory", "reference scorer record", ...
  std::string rules;                // the rule set that judged, and why that one
  std::vector<std::string> claims;  // what the evidence claims, one line per record
  std::vector<AuditFinding> findings;   // in the order they were found
  std::vector<std::string> checked;     // what was re-derived and agreed, for the reader
  std::vector<std::string> unofficial;  // why a claim that stands is not an official one
  std::string nothing_to_audit;         // why, when the input holds no claim
  // An evidence directory's records as re-derived from their runs, by id: those whose every run
  // could be re-judged (with the rest, the claim does not stand).
  std::map<std::string, AuditedRecord> records;
  // The public key (64 hex digits) of a SIGNATURE.json that verifies against the manifest; ""
  // when the evidence is unsigned or its signature does not verify (a finding).
  std::string signed_by;
  // The sha256 of an evidence directory's MANIFEST.json as the audit read it ("" when there is
  // none; ReadEvidence reads the file for its entries and for this hash apart): what a
  // signature, or a manifest over this one, must be held to.
  std::string manifest_sha256;
  // A reference scorer record whose calls could be re-judged: what it claims.
  std::optional<ReferenceClaim> reference;

  void Breaks(std::string where, std::string message) override;
  void Note(std::string where, std::string message) override;
  // A note, and a reason in `unofficial`.
  void NotOfficial(std::string where, std::string message, std::string reason);
  void Checked(std::string what) { checked.push_back(std::move(what)); }

  size_t breaking() const;
  AuditVerdict verdict() const;
};

// "verdict: the claim stands ...", "verdict: the claim does not stand: ...", or
// "verdict: nothing to audit: ...": one line.
std::string VerdictLine(const AuditResult& result);

}  // namespace ratchet

#endif  // RATCHET_AUDIT_RESULT_H_
