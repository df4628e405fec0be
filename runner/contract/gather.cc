#include "contract/gather.h"

#include "contract/contract.h"
#include "contract/facts.h"
#include "contract/source_sha256.h"
#include "contract/workers.h"
#include "core/version.h"
#include "data/locate.h"
#include "data/registry.h"
#include "rules/rule_set.h"
#include "sandbox/policy.h"

namespace ratchet {
namespace {

// The rules library does not know the data registry; the datasets a rule set names are checked
// against it here, before the rule set is locked: datasets.mnist must name MNIST itself, and each
// of datasets.foreign a hold-out dataset.
Status CheckRuleSetDatasets(const RuleSet& rules, const std::string& what) {
  auto check = [&what](const std::string& name, bool foreign, const std::string& path) {
    const DatasetSpec* spec = FindDataset(name);
    if (spec == nullptr) {
      return Status::BadInput(what + ": field \"" + path + "\": \"" + name +
                              "\" is not a dataset; the datasets are " + DatasetNames());
    }
    if (spec->foreign != foreign) {
      return Status::BadInput(what + ": field \"" + path + "\": \"" + name + "\" is " +
                              (spec->foreign ? "a hold-out dataset" : "MNIST itself") +
                              (foreign ? ", not a hold-out dataset" : ", not MNIST itself"));
    }
    return Status::Ok();
  };
  RATCHET_RETURN_IF_ERROR(check(rules.datasets.mnist, false, "datasets.mnist"));
  for (size_t i = 0; i < rules.datasets.foreign.size(); ++i) {
    RATCHET_RETURN_IF_ERROR(
        check(rules.datasets.foreign[i], true, JoinPath("datasets.foreign", i)));
  }
  return Status::Ok();
}

}  // namespace

Result<ContractInputs> GatherContractInputs(const ContractOptions& options) {
  // The inputs a user names come first, so a mistake in them is reported before any hashing.
  Result<RuleSet> rules = LoadRuleSet(options.rules_path);
  if (!rules.ok()) return rules.status();
  RATCHET_RETURN_IF_ERROR(CheckRuleSetDatasets(
      *rules, options.rules_path ? *options.rules_path
                                 : std::string("the embedded rule set ") + kDefaultRuleSetId));
  std::vector<LocatedDataset> located;
  if (options.located) {
    located = *options.located;
  } else {
    Result<DataSearch> search = MakeDataSearch(options.data_dir);
    if (!search.ok()) return search.status();
    Result<std::vector<LocatedDataset>> found = LocateDatasets(*search);
    if (!found.ok()) return found.status();
    located = std::move(*found);
  }

  ContractInputs inputs;
  LockedInputs& locked = inputs.locked;
  locked.scorer_version = kRatchetVersion;
  locked.scorer_source_sha256 = ScorerSourceSha256();
  locked.rules_id = rules->id;
  locked.rules_sha256 = rules->sha256;
  for (const LocatedDataset& dataset : located) {
    locked.datasets.push_back(
        {dataset.name, dataset.present, dataset.images_sha256, dataset.labels_sha256});
  }
  for (const char* name : kPythonWorkerFiles) {
    Result<std::optional<std::string>> digest = Sha256IfPresent(PythonWorkerFile(name));
    if (!digest.ok()) return digest.status();
    locked.workers[name] = *digest;
  }
  locked.sandbox_policy_sha256 = SandboxPolicySha256();
  locked.sandbox_uid = kSandboxUid;

  Result<MachineFacts> machine = GatherMachineFacts(options.device_uuid);
  if (!machine.ok()) return machine.status();
  inputs.machine = std::move(*machine);
  inputs.machine.python = options.python;
  inputs.tool = options.tool;
  if (options.read_cuda_properties) AddCudaProperties(&inputs.machine);
  return inputs;
}

void AddCudaProperties(MachineFacts* machine) {
  DeviceFacts& device = machine->device;
  if (device.kind != "cuda" || !machine->python || device.l2_bytes) return;
  Result<CudaProperties> properties = ProbeCudaProperties(machine->python->path, device.uuid);
  if (!properties.ok()) return;  // the two facts stay null: the lane says nothing was read
  device.l2_bytes = properties->l2_bytes;
  device.sm_count = properties->sm_count;
}

void AddCudaPropertiesFromHello(const Json& hello, MachineFacts* machine) {
  DeviceFacts& device = machine->device;
  if (!hello.is_object() || device.kind != "cuda" || !device.uuid || device.l2_bytes) return;
  // Only where `ratchet contract` reads them too (AddCudaProperties: the interpreter's torch,
  // built for CUDA), so that a run and the contract command give one lane.
  if (!machine->python || machine->python->torch_cuda.empty()) return;
  const Json uuid = hello.value("uuid", Json());
  const Json l2 = hello.value("l2_bytes", Json());
  const Json sm = hello.value("sm_count", Json());
  // Only the board NVML named for this lane, as the worker's CUDA saw it.
  if (!uuid.is_string() || uuid.get<std::string>() != *device.uuid || !l2.is_number_integer() ||
      !sm.is_number_integer() || l2.get<int64_t>() <= 0 || sm.get<int64_t>() <= 0) {
    return;
  }
  device.l2_bytes = l2.get<int64_t>();
  device.sm_count = sm.get<int64_t>();
}

Result<Json> GatherContract(const ContractOptions& options) {
  Result<ContractInputs> inputs = GatherContractInputs(options);
  if (!inputs.ok()) return inputs.status();
  return BuildContract(inputs->locked, inputs->machine, options.tool);
}

}  // namespace ratchet
