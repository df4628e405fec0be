// A ratchet evidence directory audited: the manifest and status as the evidence reader sees
// them, the seed commitment, and per record and run the submission's sha256, the calls
// re-judged, the run's plan regenerated from the revealed seed, correct labels re-counted
// against regenerated draws where the datasets are here, and the report's figures re-derived.
#ifndef RATCHET_AUDIT_EVIDENCE_H_
#define RATCHET_AUDIT_EVIDENCE_H_

#include <optional>
#include <string>
#include <vector>

#include "audit/result.h"
#include "core/status.h"
#include "data/locate.h"
#include "rules/rule_set.h"

namespace ratchet {

struct EvidenceAuditOptions {
  // --rules (an embedded id or a rule-set file); nullopt: the embedded rule set whose sha256
  // contract.json locks.
  std::optional<std::string> rules_path;
  // A rule set already read (`ratchet promote` gives the one its run names); it must be the one
  // the contract locks, as --rules must. Takes the place of rules_path.
  std::optional<RuleSet> rules;
  std::optional<std::string> data_dir;  // searched first for datasets
  // The datasets as LocateDatasets found them, for a caller that audits many directories and
  // reads and verifies the datasets once; nullopt: located here (data_dir first) on first need.
  std::optional<std::vector<LocatedDataset>> datasets;
  // The number of the first run each record's report entry lists: 1, or, for a shard of a
  // sharded run (one run of one record), the shard's run.
  int first_run = 1;
  // Whether SIGNATURE.json is looked for (AuditSignature): not in a shard of a sharded run, which
  // the run's own signature covers.
  bool signature = true;
  // Whether each call's correct labels are re-counted against its draw, regenerated (some 50 ms
  // a call). Off for the evidence a baseline's records were reviewed from, checked at every run:
  // its bytes are the ones promote audited whole, pinned by the manifest sha256 the baseline
  // names; the rest of the audit, which re-derives its outcomes and times, still runs.
  bool recount = true;
};

// SIGNATURE.json of `dir` against its `manifest_file`: one that verifies is checked and names its
// key (result->signed_by), one that does not is a finding, none is a note saying the evidence is
// unsigned (no check can then tell a consistent rewrite: docs/audit.md). `read_manifest_sha256`,
// when not empty, is the sha256 of the manifest bytes the caller read and audited: a signature
// over other bytes (the file changed between the two reads) is a finding too.
void AuditSignature(const std::string& dir, const std::string& manifest_file, AuditResult* result,
                    const std::string& read_manifest_sha256 = "");

// The finding of a signature that verifies bytes of `manifest_file` other than those the audit
// read (`read_sha256`): the file changed between the two reads. AuditSignature's and a shard's.
std::string ManifestChangedWhileRead(const std::string& manifest_file, const std::string& read_sha256,
                                     const std::string& signed_sha256);

// Errors: what is not an evidence directory (BadInput, as ReadEvidence says), a rule set given
// other than the one the contract locks, or none given where no embedded one is it (Usage: it
// must be given), a folder that cannot be read (IOError). Everything wrong with the evidence
// itself is a finding in `result`; `result->rules` says which rule set judged.
Status AuditEvidence(const std::string& dir, const EvidenceAuditOptions& options,
                     AuditResult* result);

}  // namespace ratchet

#endif  // RATCHET_AUDIT_EVIDENCE_H_
