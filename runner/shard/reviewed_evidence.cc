#include "shard/reviewed_evidence.h"

#include <map>
#include <optional>

#include "audit/evidence.h"
#include "baseline/input_file.h"
#include "contract/contract_view.h"
#include "evidence/layout.h"
#include "evidence/reader.h"
#include "evidence/signature.h"
#include "rules/pyformat.h"
#include "rules/rule_set.h"
#include "shard/run_summary.h"
#include "shard/verified_evidence.h"

namespace ratchet {

namespace {

// One reviewed evidence folder, read and audited once however many records name it.
struct Reviewed {
  Status error = Status::Ok();  // it could not be read or audited
  EvidenceSummary summary;
  AuditResult audit;
};

// The audit of reviewed evidence, by VerifyEvidence: under the baseline's own rule set when the
// run's contract locks it (a baseline reviewed under a rule-set file keeps its document); else
// under the one compiled in that the contract locks, or the one the run named in its report
// (audit/run_rule_set.h), the one promote audited it with (its bytes are pinned by the manifest
// sha256 the baseline names, and the audit checks that the contract locks it).
Status AuditReviewed(const Baseline& baseline, const std::string& path,
                     const EvidenceSummary& summary, AuditResult* audit) {
  EvidenceAuditOptions options;
  options.recount = false;  // its bytes are the ones promote audited whole (evidence.h)
  const std::string locked = ContractView(summary.contract).rules_sha256().value_or("");
  if (baseline.rule_set.is_object()) {
    Result<RuleSet> kept = ParseRuleSet(baseline.rule_set.dump(), "the baseline's rule set");
    if (kept.ok() && kept->sha256 == locked) options.rules = *kept;
  }
  Result<AuditResult> verified = VerifyEvidence(path, options);
  if (!verified.ok()) return verified.status();
  *audit = std::move(verified).value();
  return Status::Ok();
}

Reviewed ReadReviewed(const Baseline& baseline, const std::string& path) {
  Reviewed reviewed;
  // Checked before it is read, as every directory a user hands the tool is (a FIFO, a link,
  // JSON nested deep enough to crash a parser).
  reviewed.error = CheckInputTree(path, "its reviewed evidence");
  if (!reviewed.error.ok()) return reviewed;
  Result<EvidenceSummary> summary = ReadRunSummary(path);
  if (!summary.ok()) {
    reviewed.error = summary.status();
    return reviewed;
  }
  reviewed.summary = std::move(summary).value();
  // Audited only once its manifest is the one named and whole: the reasons before are plainer.
  if (reviewed.summary.complete && reviewed.summary.findings.empty()) {
    reviewed.error = AuditReviewed(baseline, path, reviewed.summary, &reviewed.audit);
  }
  return reviewed;
}

// Why a run that did not finish, or whose files are not what its manifest lists, is no review.
std::string Unverified(const EvidenceSummary& reviewed) {
  std::string why;
  if (reviewed.status != kStatusComplete) {
    why = "the run it holds ended " + reviewed.status + ", not complete";
  }
  if (!reviewed.findings.empty()) {
    why += std::string(why.empty() ? "" : "; and ") +
           (reviewed.status == kStatusComplete ? "it says complete, but " : "") +
           std::to_string(reviewed.findings.size()) +
           (reviewed.findings.size() == 1 ? " file is" : " files are") +
           " not as its manifest lists them (";
    for (size_t i = 0; i < reviewed.findings.size(); ++i) {
      why += (i ? "; " : "") + reviewed.findings[i].file + ": " + reviewed.findings[i].problem;
    }
    why += ")";
  }
  return why.empty() ? "it is not complete" : why;
}

std::string FirstFinding(const AuditResult& audit) {
  for (const AuditFinding& finding : audit.findings) {
    if (finding.kind == AuditFinding::Kind::kBreaks) return finding.where + ": " + finding.message;
  }
  return "";
}

// A baseline that lists its reviewers' keys holds its evidence to them, as promote does: evidence
// rewritten consistently, with its manifest sha256 in the baseline edited to match, verifies
// against its manifest but not against a reviewer's signature. The signature must be over the
// manifest bytes that were read and held to the baseline (`read_manifest_sha256`).
std::string Unsigned(const Baseline& baseline, const std::string& path,
                     const std::string& read_manifest_sha256) {
  if (baseline.reviewers.empty()) return "";
  const SignatureCheck signature = CheckSignature(path);
  if (!signature.present) {
    return "it is not signed, and the baseline accepts only evidence signed by one of its "
           "reviewers' keys";
  }
  if (!signature.valid) return "its SIGNATURE.json does not verify: " + signature.problem;
  if (signature.manifest_sha256 != read_manifest_sha256) {
    return "its MANIFEST.json changed while it was read: the bytes read have sha256 " +
           read_manifest_sha256 + ", the ones its signature verified " + signature.manifest_sha256;
  }
  if (ReviewerOf(baseline, signature.public_hex).empty()) {
    return "it is signed by key " + KeyId(signature.public_hex) +
           ", which is not among the baseline's reviewers";
  }
  return "";
}

std::string Ms(double ms) { return FormatFixed(ms, 3) + " ms"; }

// What the record says it was reviewed as, against what its evidence's calls give: the band, the
// expected outcome, the reviewed time on the evidence's lane. "" when they agree.
std::string Unpinned(const BaselineRecord& record, const AuditedRecord& audited,
                     const std::string& lane) {
  // A record scored again was held to its second scoring: that is the one promoted.
  const AuditedScoring& scored = audited.rerun ? *audited.rerun : audited.first;
  if (record.band_bp && *record.band_bp != scored.band_bp) {
    return "its band_bp is " + std::to_string(*record.band_bp) +
           ", but its reviewed evidence scored it at " + std::to_string(scored.band_bp);
  }
  const Expected given{scored.qualified ? "qualified" : "disqualified", scored.broken};
  if (record.expected && !(*record.expected == given)) {
    return "its expected outcome is " + OutcomeText(*record.expected) +
           ", but its reviewed evidence's calls give " + OutcomeText(given);
  }
  auto timing = record.timing.find(lane);
  if (timing != record.timing.end() && timing->second.ranked_ms != scored.ranked_ms) {
    return "its reviewed time on lane " + lane + " is " + Ms(timing->second.ranked_ms) +
           ", but its reviewed evidence's calls give " +
           (scored.ranked_ms ? Ms(*scored.ranked_ms) : std::string("no time (not qualified)"));
  }
  return "";
}

// The error of record `id`'s reviewed evidence, "" when it is what the record was reviewed from.
std::string WhyNotReviewed(const Baseline& baseline, const std::string& id,
                           const BaselineRecord& record, const std::string& path,
                           const Reviewed& reviewed) {
  if (!reviewed.error.ok() && reviewed.summary.manifest_sha256.empty()) {
    return "cannot be read: " + reviewed.error.message();
  }
  if (reviewed.summary.manifest_sha256 != record.evidence->manifest_sha256) {
    return "has manifest sha256 " + reviewed.summary.manifest_sha256 + "; the baseline names " +
           record.evidence->manifest_sha256;
  }
  if (!reviewed.summary.complete || !reviewed.summary.findings.empty()) {
    return "does not verify: " + Unverified(reviewed.summary);
  }
  if (std::string why = Unsigned(baseline, path, reviewed.summary.manifest_sha256); !why.empty()) {
    return ": " + why;
  }
  if (!reviewed.error.ok()) return "cannot be audited: " + reviewed.error.message();
  if (reviewed.audit.verdict() != AuditVerdict::kStands) {
    return "does not stand under `ratchet audit " + path + "`: " + FirstFinding(reviewed.audit);
  }
  // The evidence must be this record's: it holds a scoring of the record, of these bytes.
  auto audited = reviewed.audit.records.find(id);
  if (audited == reviewed.audit.records.end() || audited->second.first.sha256 != record.sha256) {
    return ": its report holds no scoring of record \"" + id + "\" with sha256 " + record.sha256 +
           ": it is not the evidence this record was reviewed from";
  }
  const std::string lane = ContractView(reviewed.summary.contract).lane_id().value_or("");
  if (std::string why = Unpinned(record, audited->second, lane); !why.empty()) {
    return ": " + why + ": the record was changed since it was promoted";
  }
  return "";
}

}  // namespace

void CheckReviewedEvidence(const Baseline& baseline, const std::string& folder,
                           const std::vector<std::string>& selected, RatchetResult* result) {
  std::map<std::string, Reviewed> read;  // by path: evidence several records share, read once
  for (const std::string& id : selected) {
    auto found = baseline.records.find(id);
    if (found == baseline.records.end()) continue;
    const BaselineRecord& record = found->second;
    if (!record.evidence) {
      // `ratchet promote` writes who reviewed a record and the evidence together: one without
      // the other is a baseline edited since.
      if (!record.reviewed_by.empty()) {
        result->errors.push_back(
            {"evidence-incomplete", id,
             "it was promoted (reviewed_by " + record.reviewed_by +
                 ") but names no evidence it was reviewed from: promote it again from a run's "
                 "evidence"});
      } else if (record.expected && !baseline.reviewers.empty()) {
        // A baseline that lists its reviewers' keys holds every expectation to signed evidence.
        result->errors.push_back(
            {"evidence-incomplete", id,
             "its expected outcome names no evidence, and the baseline accepts only evidence "
             "signed by one of its reviewers' keys: promote it from a signed run's evidence"});
      } else if (record.expected) {
        result->notes.push_back(id +
                                ": its expected outcome was written by hand, with no evidence "
                                "behind it: promote it from a run's evidence to review it");
      }
      continue;
    }
    const std::string path = InBaselineFolder(folder, record.evidence->path);
    auto reviewed = read.find(path);
    if (reviewed == read.end()) reviewed = read.emplace(path, ReadReviewed(baseline, path)).first;
    const std::string why = WhyNotReviewed(baseline, id, record, path, reviewed->second);
    if (why.empty()) continue;
    // "its reviewed evidence PATH cannot be read: ...", or "...PATH: it is not signed ...".
    std::string message = "its reviewed evidence " + path + (why[0] == ':' ? "" : " ") + why;
    if (why[0] == ':') {
      message += baseline.reviewers.empty()
                     ? ": promote the record again from a run's evidence"
                     : ": promote the record again from evidence a reviewer signed (--sign KEY)";
    }
    result->errors.push_back({"evidence-incomplete", id, message});
  }
}

}  // namespace ratchet
