#include "scorer/draw_source.h"

namespace ratchet {

Result<const DrawSource::Loaded*> DrawSource::Load(const std::string& dataset) {
  auto found = loaded_.find(dataset);
  if (found != loaded_.end()) return &found->second;
  for (const LocatedDataset& located : datasets_) {
    if (located.name != dataset) continue;
    if (!located.present) break;
    Result<std::shared_ptr<const Pool>> pool = SharedPool(located);
    if (!pool.ok()) return pool.status();
    Result<Split> split = MakeSplit(seed_, dataset, (*pool)->rows());
    if (!split.ok()) return split.status();
    Loaded& entry = loaded_[dataset];
    entry.pool = *pool;
    entry.split = std::move(*split);
    return &entry;
  }
  return Status::Unavailable("the dataset " + dataset + " is not present: run scripts/setup, " +
                             "or name its folder with --data");
}

Result<Draw> DrawSource::Make(const std::string& dataset, uint64_t index) {
  Result<const Loaded*> loaded = Load(dataset);
  if (!loaded.ok()) return loaded.status();
  return MakeDraw(*(*loaded)->pool, (*loaded)->split, seed_, index);
}

}  // namespace ratchet
