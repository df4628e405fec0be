// Gathers the contract of a run on this machine: the rule set and the datasets it would use,
// the harness's source hash and version, and the machine's facts, handed to BuildContract.
#ifndef RATCHET_CONTRACT_GATHER_H_
#define RATCHET_CONTRACT_GATHER_H_

#include <optional>
#include <string>

#include "core/canonical_json.h"
#include "core/status.h"

namespace ratchet {

struct ContractOptions {
  std::optional<std::string> data_dir;     // --data: searched first for the datasets
  std::optional<std::string> rules_path;   // --rules: a rule-set file; nullopt = the embedded one
  std::optional<std::string> device_uuid;  // the board a worker runs on; nullopt = device 0
};

// The errors are those of the rule set (BadInput naming the field), the dataset search (a
// missing --data folder, a file with the wrong hash) and the machine's facts.
Result<Json> GatherContract(const ContractOptions& options);

}  // namespace ratchet

#endif  // RATCHET_CONTRACT_GATHER_H_
