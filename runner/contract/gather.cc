#include "contract/gather.h"

#include "contract/contract.h"
#include "contract/facts.h"
#include "contract/source_sha256.h"
#include "core/version.h"
#include "data/locate.h"
#include "rules/rule_set.h"

namespace ratchet {

Result<Json> GatherContract(const ContractOptions& options) {
  // The inputs a user names come first, so a mistake in them is reported before any hashing.
  Result<RuleSet> rules = LoadRuleSet(options.rules_path);
  if (!rules.ok()) return rules.status();
  Result<DataSearch> search = MakeDataSearch(options.data_dir);
  if (!search.ok()) return search.status();
  Result<std::vector<LocatedDataset>> located = LocateDatasets(*search);
  if (!located.ok()) return located.status();

  LockedInputs locked;
  locked.harness_version = kRatchetVersion;
  locked.harness_source_sha256 = HarnessSourceSha256();
  locked.rules_id = rules->id;
  locked.rules_sha256 = rules->sha256;
  for (const LocatedDataset& dataset : *located) {
    locked.datasets.push_back(
        {dataset.name, dataset.present, dataset.images_sha256, dataset.labels_sha256});
  }

  Result<MachineFacts> machine = GatherMachineFacts(options.device_uuid);
  if (!machine.ok()) return machine.status();
  return BuildContract(locked, *machine);
}

}  // namespace ratchet
