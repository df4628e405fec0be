// A rerelease: the rows of a draw already made, shown again under a fresh secret rotation and
// label permutation. R z is again a release of the draw when R is Haar, so the energy column's
// method window, which may call the method more often than it made draws, never gives it the
// same inputs twice. Each rerelease has a keyed stream of its own (docs/draws.md, section 5).
#ifndef RATCHET_DATA_RERELEASE_H_
#define RATCHET_DATA_RERELEASE_H_

#include <cstdint>
#include <string>

#include "core/status.h"
#include "data/draw.h"
#include "data/keyed_stream.h"

namespace ratchet {

// "rerelease/<dataset>/<draw index>/<call>", the numbers in decimal.
std::string RereleaseLabel(const std::string& dataset, uint64_t draw_index, uint64_t call);

// `draw` again for call `call` (a number that names this use of it): from the stream
// RereleaseLabel(draw.dataset, draw.index, call), in this order, a Haar rotation R (3,600
// normals, as a draw's Q) and a label permutation p (Permutation(10)). Each released row z of
// train_x and test_x becomes float32(R z), every entry summed over k = 0..59 in float64 in that
// order; every label l becomes p[l]. The result keeps the draw's dataset, index and rows; its
// relabel is p after the draw's, its rotation R Q and its transform R Q W (the inputs equal
// float32((x - mu) transform^T) only within rounding: they are R applied to float32 values).
// `threads` > 1 splits the rows, never the sums: the bytes are the same for any count.
Result<Draw> Rerelease(const Draw& draw, const RunSeed& seed, uint64_t call, unsigned threads = 1);

}  // namespace ratchet

#endif  // RATCHET_DATA_RERELEASE_H_
