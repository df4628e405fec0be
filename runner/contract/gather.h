// Gathers the contract of a run on this machine: the rule set and the datasets it would use,
// the harness's source hash and version, the worker files and the sandbox policy, and the
// machine's facts, handed to BuildContract.
#ifndef RATCHET_CONTRACT_GATHER_H_
#define RATCHET_CONTRACT_GATHER_H_

#include <optional>
#include <string>
#include <vector>

#include "contract/contract.h"
#include "contract/facts.h"
#include "contract/python.h"
#include "core/canonical_json.h"
#include "core/status.h"
#include "data/locate.h"

namespace ratchet {

struct ContractOptions {
  std::optional<std::string> data_dir;     // --data: searched first for the datasets
  std::optional<std::string> rules_path;   // --rules: a rule-set file; nullopt = the embedded one
  std::optional<std::string> device_uuid;  // the board a worker runs on; nullopt = device 0
  // The interpreter of Python submissions (FindPython), whose versions the lane records;
  // nullopt = none known, recorded as null. Found by the caller, which knows whether it needs one.
  std::optional<PythonFacts> python;
  // The datasets as the caller already located and verified them (LocateDatasets with data_dir);
  // nullopt = located here.
  std::optional<std::vector<LocatedDataset>> located;
  // false: the device's L2 size and SM count are left for the caller (a scoring session takes
  // them from its first worker's hello, which reads them anyway; see AddCudaProperties).
  bool read_cuda_properties = true;
  // The tool that asked (`ratchet`, through the scorer's request): observed, never compared.
  std::optional<ToolIdentity> tool;
};

// What BuildContract is given, before it is given it: a caller that learns a fact late (the
// interpreter's versions, asked on a thread) sets it on `machine` and builds the contract then.
struct ContractInputs {
  LockedInputs locked;
  MachineFacts machine;
  std::optional<ToolIdentity> tool;
};
Result<ContractInputs> GatherContractInputs(const ContractOptions& options);

// The errors are those of the rule set (BadInput naming the field), the dataset search (a
// missing --data folder, a file with the wrong hash), a worker file that is there but cannot be
// read, and the machine's facts. An absent worker file is null, not an error.
// The device's L2 size and SM count, asked of CUDA through the machine's interpreter
// (ProbeCudaProperties), on a CUDA device when an interpreter is known and they are not read yet.
// An interpreter that cannot answer (a CPU torch, a torch too old to report them, the board
// hidden from CUDA) leaves both null.
void AddCudaProperties(MachineFacts* machine);

// The same two facts from a worker's hello ({"uuid", "l2_bytes", "sm_count"}: what its CUDA
// reported before any method was loaded), when the hello is of the lane's board (the UUID NVML
// gave), they are not read yet, and the interpreter's torch is built for CUDA (where
// AddCudaProperties would read them: without it the lane says null either way); anything else
// in the hello changes nothing.
void AddCudaPropertiesFromHello(const Json& hello, MachineFacts* machine);

Result<Json> GatherContract(const ContractOptions& options);

}  // namespace ratchet

#endif  // RATCHET_CONTRACT_GATHER_H_
