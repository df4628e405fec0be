// The run contract (docs/contract.md): what a run is bound to. `locked` (the scorer and what it
// reads) must equal the baseline's before any outcome is compared; `lane` is the machine side,
// whose id groups the runs whose timings may be compared; `observed` is recorded for the
// evidence (the tool that asked for the run among it), never compared.
#ifndef RATCHET_CONTRACT_CONTRACT_H_
#define RATCHET_CONTRACT_CONTRACT_H_

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "contract/facts.h"
#include "core/canonical_json.h"
#include "core/status.h"

namespace ratchet {

inline constexpr char kContractSchema[] = "ratchet.contract/2";
// The program `locked.scorer` names: the one that decides outcomes.
inline constexpr char kScorerName[] = "ratchet-scorer";
// The lane id is this many hex characters of the lane's canonical sha256.
inline constexpr size_t kLaneIdLength = 16;

// A dataset as the contract locks it: by the sha256 of its decompressed IDX files.
struct DatasetLock {
  std::string name;  // "mnist", "fashion", "kmnist"
  bool present = false;
  std::string images_sha256;
  std::string labels_sha256;
};

// Everything under `locked`, as plain values.
struct LockedInputs {
  std::string scorer_version;
  std::string scorer_source_sha256;  // ScorerSourceSha256(): the scorer's sources alone
  std::string rules_id;
  std::string rules_sha256;
  std::vector<DatasetLock> datasets;  // each by its name; an absent one is locked as null
  // The Python files the scorer runs, by file name ("worker.py", "check_source.py"): the sha256
  // of each, or nullopt (locked as null) when this machine has none.
  std::map<std::string, std::optional<std::string>> workers;
  std::string sandbox_policy_sha256;  // SandboxPolicySha256(): the filter, limits and steps
  uint32_t sandbox_uid = 0;           // the uid a worker runs as under the full sandbox: 65534
};

// The tool (`ratchet`) that asked the scorer for a run: recorded in `observed.tool`, never
// compared, since nothing of the tool can move an outcome.
struct ToolIdentity {
  std::string version;
  std::string source_sha256;
};

// The contract of `locked` inputs on the machine `machine` describes, asked for by `tool` (none:
// `observed.tool` is null). Pure. An error when a value has no canonical JSON form (a string that
// is not UTF-8) or a dataset comes twice.
Result<Json> BuildContract(const LockedInputs& locked, const MachineFacts& machine,
                           const std::optional<ToolIdentity>& tool = std::nullopt);

// The id of a lane object: the first kLaneIdLength hex characters of the sha256 of its
// canonical JSON, its own "id" member left out.
Result<std::string> LaneId(const Json& lane);

// The paths ("locked.rules.sha256") at which the `locked` objects of two contracts differ:
// every leaf whose value differs, every key one side has and the other lacks, and a node that is
// an object on one side and something else on the other (named once, not its leaves). Sorted;
// empty when the two are equal.
std::vector<std::string> DiffLocked(const Json& a, const Json& b);

// One field at which two contracts differ: its path ("lane.toolchain.libtorch") and its value in
// each contract, nullopt where that contract lacks the field.
struct ContractDifference {
  std::string path;
  std::optional<Json> a;
  std::optional<Json> b;
};

// The fields at which the `part` ("locked" or "lane") of two contracts differ, found as
// DiffLocked finds them (DiffLocked is the paths of part "locked"), with both values. Sorted by
// path; a part that one contract lacks is one difference named by the part itself.
std::vector<ContractDifference> DiffContractPart(const Json& a, const Json& b,
                                                 const std::string& part);

}  // namespace ratchet

#endif  // RATCHET_CONTRACT_CONTRACT_H_
