// Draws: the pool of a dataset split in halves once per run seed, and each draw's 10,000
// training rows from one half and 10,000 test rows from the other, its secret label
// permutation and its secret release, all from keyed streams of the run seed (docs/draws.md).
#ifndef RATCHET_DATA_DRAW_H_
#define RATCHET_DATA_DRAW_H_

#include <Eigen/Dense>
#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "core/status.h"
#include "data/keyed_stream.h"
#include "data/pool.h"

namespace ratchet {

inline constexpr size_t kDrawTrainRows = 10000;
inline constexpr size_t kDrawTestRows = 10000;

// The stream labels: "split/<dataset>" and "draw/<dataset>/<index in decimal>".
std::string SplitLabel(const std::string& dataset);
std::string DrawLabel(const std::string& dataset, uint64_t index);

// Row numbers of the pool: a uniform permutation of 0..rows-1 from the stream
// "split/<dataset>", its first rows/2 entries the train half and the rest the test half.
struct Split {
  std::string dataset;
  std::vector<int64_t> train_half, test_half;
};
Result<Split> MakeSplit(const RunSeed& seed, const std::string& dataset, size_t pool_rows);

struct Draw {
  std::string dataset;
  uint64_t index = 0;
  std::vector<int64_t> train_rows;  // 10,000 rows of the pool, from the train half
  std::vector<int64_t> test_rows;   // 10,000 rows of the pool, from the test half
  std::vector<int64_t> relabel;     // 10: a true label l is shown as relabel[l]
  Eigen::MatrixXd rotation;         // Q, 60 x 60
  Eigen::VectorXd mu;               // 81
  Eigen::MatrixXd transform;        // Q W, 60 x 81
  std::vector<float> train_x;       // 10,000 x 60, row-major
  std::vector<int64_t> train_y;     // 10,000
  std::vector<float> test_x;        // 10,000 x 60, row-major
  std::vector<int64_t> test_y;      // 10,000, never shown to a worker
};

// relabel[labels[row]] for each row: the labels a draw shows for those rows of the pool.
std::vector<int64_t> RelabelRows(const std::vector<uint8_t>& labels,
                                 const std::vector<int64_t>& rows,
                                 const std::vector<int64_t>& relabel);

// Draw `index` of `pool` under `seed`. From the stream "draw/<dataset>/<index>", in this order:
// the train rows (Sample of 10,000 from the train half), the test rows (10,000 from the test
// half), the label permutation (Permutation(10)), then 3,600 normals for Q.
Result<Draw> MakeDraw(const Pool& pool, const Split& split, const RunSeed& seed, uint64_t index);

}  // namespace ratchet

#endif  // RATCHET_DATA_DRAW_H_
