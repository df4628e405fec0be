// A draw written to disk, for users and auditors: the inputs a worker sees, the hidden labels
// and the hidden map, as raw little-endian row-major files, described by draw.json (name, dtype,
// shape, sha256 of each file). docs/draws.md gives the layout.
#ifndef RATCHET_DATA_DRAW_FILES_H_
#define RATCHET_DATA_DRAW_FILES_H_

#include <string>

#include "core/canonical_json.h"
#include "core/fresh_directory.h"
#include "core/status.h"
#include "data/draw.h"
#include "data/keyed_stream.h"
#include "data/locate.h"

namespace ratchet {

inline constexpr char kDrawSchema[] = "ratchet.draw/1";

// The description draw.json holds for `draw` (its "files" list included): what a caller prints
// or records. `dataset` gives the pool's hashes; the seed appears only as its sha256.
Result<Json> DescribeDraw(const Draw& draw, const LocatedDataset& dataset, const RunSeed& seed);

// Writes `draw` into the new folder `out_dir` (refused if it exists; built in a hidden partial
// folder and renamed into place when complete, removed on error). Returns draw.json's content.
Result<Json> WriteDraw(const Draw& draw, const LocatedDataset& dataset, const RunSeed& seed,
                       const std::string& out_dir);

// The files of `draw` written into `folder`, which the caller has begun and will commit or
// abandon: for a caller that claims the output folder before it makes the draw.
Result<Json> WriteDrawFiles(const Draw& draw, const LocatedDataset& dataset, const RunSeed& seed,
                            FreshDirectory* folder);

}  // namespace ratchet

#endif  // RATCHET_DATA_DRAW_FILES_H_
