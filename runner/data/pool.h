// A pool: one dataset's 60,000 training images reduced to 9x9 by exact box averaging, with
// their labels. Draws take their rows from it. Loading reads and verifies the files once; a
// process keeps each pool in memory after its first use.
#ifndef RATCHET_DATA_POOL_H_
#define RATCHET_DATA_POOL_H_

#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "core/status.h"
#include "data/locate.h"

namespace ratchet {

inline constexpr size_t kPooledSide = 9;
inline constexpr size_t kPooledPixels = kPooledSide * kPooledSide;  // 81

struct Pool {
  std::string name;
  std::vector<float> pixels;    // rows() x 81, row-major, in [0, 1]
  std::vector<uint8_t> labels;  // rows(), each 0..9
  size_t rows() const { return labels.size(); }
  const float* row(size_t i) const { return pixels.data() + i * kPooledPixels; }
};

// How much of input pixel `pixel` (0..27) falls into output bin `bin` (0..8), in units of 1/9 of
// a pixel's width: 0..9. An output bin is 28 units wide, so each bin's weights sum to 28.
int BoxOverlap(size_t bin, size_t pixel);

// Box-averages `count` 28x28 uint8 images (row-major, one after another) to 9x9:
// out[a][b] = sum_ij overlap(a,i) overlap(b,j) image[i][j] / (28 * 28 * 255), the sum exact in
// integers, the quotient in float64, then clipped to [0, 1] and rounded to float32.
std::vector<float> BoxAverage(const uint8_t* images, size_t count);

// Reads the dataset's files, checks them against the registry and against the hashes
// `located` recorded (a file changed since is an error), and builds the pool.
Result<Pool> LoadPool(const LocatedDataset& located);

// The pool of `located`, loaded on first use and kept for the life of the process.
Result<std::shared_ptr<const Pool>> SharedPool(const LocatedDataset& located);

}  // namespace ratchet

#endif  // RATCHET_DATA_POOL_H_
