// The draws of one run: each dataset's pool loaded once, split once under the run seed, and any
// draw made on demand by its index. Draws stay in the parent; a worker sees only the released
// inputs of one draw, and only inside its timed window.
#ifndef RATCHET_SCORER_DRAW_SOURCE_H_
#define RATCHET_SCORER_DRAW_SOURCE_H_

#include <map>
#include <memory>
#include <string>
#include <vector>

#include "core/status.h"
#include "data/draw.h"
#include "data/keyed_stream.h"
#include "data/locate.h"
#include "data/pool.h"

namespace ratchet {

class DrawSource {
 public:
  DrawSource(RunSeed seed, std::vector<LocatedDataset> datasets)
      : seed_(seed), datasets_(std::move(datasets)) {}

  Result<Draw> Make(const std::string& dataset, uint64_t index);

 private:
  struct Loaded {
    std::shared_ptr<const Pool> pool;
    Split split;
  };
  Result<const Loaded*> Load(const std::string& dataset);

  RunSeed seed_;
  std::vector<LocatedDataset> datasets_;
  std::map<std::string, Loaded> loaded_;
};

}  // namespace ratchet

#endif  // RATCHET_SCORER_DRAW_SOURCE_H_
