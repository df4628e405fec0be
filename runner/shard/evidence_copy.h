// A verified run, direct or sharded, copied whole into a fresh directory (as `ratchet promote`
// keeps the evidence beside the baseline it promoted into): the copy is checked against the
// manifest that was verified before it takes its name, so no copy that does not verify is left
// where a baseline would name it.
#ifndef RATCHET_SHARD_EVIDENCE_COPY_H_
#define RATCHET_SHARD_EVIDENCE_COPY_H_

#include <string>
#include <vector>

#include "core/status.h"
#include "evidence/manifest.h"

namespace ratchet {

// Copies the run at `source` into `target` (a new directory, renamed into place only when whole):
// a direct run's MANIFEST.json, its SIGNATURE.json when signed and every file `manifest` lists;
// every file of a sharded run's tree. The copy's manifest must hash to `manifest_sha256` (the one
// verified) and every file must be the one its manifest lists.
Status CopyEvidence(const std::string& source, bool sharded,
                    const std::vector<ManifestEntry>& manifest,
                    const std::string& manifest_sha256, const std::string& target);

}  // namespace ratchet

#endif  // RATCHET_SHARD_EVIDENCE_COPY_H_
