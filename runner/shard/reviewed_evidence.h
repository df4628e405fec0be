// The evidence a baseline's records were reviewed from (a direct run's or a sharded run's),
// verified as every consumer verifies evidence (shard/verified_evidence.h): audited (its outcomes and times re-derived from its calls), and each record pinned to
// it: the band, the expected outcome and the reviewed time the baseline holds must be the ones the
// evidence's calls give. `ratchet run --baseline` and `ratchet promote` check it.
#ifndef RATCHET_SHARD_REVIEWED_EVIDENCE_H_
#define RATCHET_SHARD_REVIEWED_EVIDENCE_H_

#include <string>
#include <vector>

#include "baseline/baseline.h"
#include "baseline/ratchet.h"

namespace ratchet {

// The errors of the reviewed evidence the `selected` records name (`folder` is the baseline's):
// evidence-incomplete for evidence that is missing, unreadable, not the manifest the baseline
// names, or that does not stand under the audit; for a record whose band, expected outcome or
// reviewed time (on the evidence's lane) is not what the evidence re-derives; when the baseline
// lists reviewers' keys, for evidence not signed by one of them, or that holds no scoring of the
// record's submission; and for a record promoted without evidence. A note for an expected outcome
// written by hand.
void CheckReviewedEvidence(const Baseline& baseline, const std::string& folder,
                           const std::vector<std::string>& selected, RatchetResult* result);

}  // namespace ratchet

#endif  // RATCHET_SHARD_REVIEWED_EVIDENCE_H_
