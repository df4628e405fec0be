#include "data/rerelease.h"

#include <algorithm>
#include <thread>
#include <vector>

#include "data/idx.h"
#include "data/release.h"

namespace ratchet {
namespace {

constexpr size_t kDims = static_cast<size_t>(kReleaseDims);
constexpr size_t kLabels = static_cast<size_t>(kClasses);

// out row i = float32(R z_i) for rows [first, last) of the n x 60 row-major `in`. The inner loop
// runs over the output entries, so each entry's sum keeps its order whatever the compiler
// vectorizes.
void RotateRows(const std::vector<float>& in, const std::vector<double>& r_transposed, size_t first,
                size_t last, std::vector<float>* out) {
  double sums[kDims];
  for (size_t i = first; i < last; ++i) {
    const float* z = in.data() + i * kDims;
    std::fill(sums, sums + kDims, 0.0);
    for (size_t k = 0; k < kDims; ++k) {
      const double zk = static_cast<double>(z[k]);
      const double* column = r_transposed.data() + k * kDims;  // R[., k]
      for (size_t j = 0; j < kDims; ++j) sums[j] += zk * column[j];
    }
    float* o = out->data() + i * kDims;
    for (size_t j = 0; j < kDims; ++j) o[j] = static_cast<float>(sums[j]);
  }
}

std::vector<float> Rotate(const std::vector<float>& in, const std::vector<double>& r_transposed,
                          unsigned threads) {
  std::vector<float> out(in.size());
  const size_t rows = in.size() / kDims;
  const size_t parts = std::max<size_t>(1, std::min<size_t>(threads, rows));
  if (parts == 1) {
    RotateRows(in, r_transposed, 0, rows, &out);
    return out;
  }
  std::vector<std::thread> workers;
  const size_t per = (rows + parts - 1) / parts;
  for (size_t first = 0; first < rows; first += per) {
    const size_t last = std::min(rows, first + per);
    workers.emplace_back([&, first, last] { RotateRows(in, r_transposed, first, last, &out); });
  }
  for (std::thread& worker : workers) worker.join();
  return out;
}

}  // namespace

std::string RereleaseLabel(const std::string& dataset, uint64_t draw_index, uint64_t call) {
  return "rerelease/" + dataset + "/" + std::to_string(draw_index) + "/" + std::to_string(call);
}

Result<Draw> Rerelease(const Draw& draw, const RunSeed& seed, uint64_t call, unsigned threads) {
  const std::string what = draw.dataset + " draw " + std::to_string(draw.index);
  if (draw.train_x.size() % kDims != 0 || draw.test_x.size() % kDims != 0 ||
      draw.relabel.size() != kLabels) {
    return Status::Internal(what + ": not a released draw of " + std::to_string(kDims) +
                            " dimensions and " + std::to_string(kLabels) + " classes");
  }
  Result<KeyedStream> stream =
      KeyedStream::ForLabel(seed, RereleaseLabel(draw.dataset, draw.index, call));
  if (!stream.ok()) return stream.status();
  const Eigen::MatrixXd rotation = HaarRotation(*stream);
  const std::vector<int64_t> relabel = stream->Permutation(kLabels);
  RATCHET_RETURN_IF_ERROR(stream->status());

  std::vector<double> r_transposed(kDims * kDims);
  for (size_t k = 0; k < kDims; ++k) {
    for (size_t j = 0; j < kDims; ++j) {
      r_transposed[k * kDims + j] =
          rotation(static_cast<Eigen::Index>(j), static_cast<Eigen::Index>(k));
    }
  }
  Draw out;
  out.dataset = draw.dataset;
  out.index = draw.index;
  out.train_rows = draw.train_rows;
  out.test_rows = draw.test_rows;
  out.relabel.resize(kLabels);
  for (size_t l = 0; l < kLabels; ++l) {
    const int64_t shown = draw.relabel[l];
    if (shown < 0 || shown >= static_cast<int64_t>(kLabels)) {
      return Status::Internal(what + ": its label permutation is not one of 0..9");
    }
    out.relabel[l] = relabel[static_cast<size_t>(shown)];
  }
  if (draw.rotation.rows() == kReleaseDims) out.rotation = rotation * draw.rotation;
  out.mu = draw.mu;
  if (draw.transform.rows() == kReleaseDims) out.transform = rotation * draw.transform;
  out.train_x = Rotate(draw.train_x, r_transposed, threads);
  out.test_x = Rotate(draw.test_x, r_transposed, threads);
  auto map = [&](const std::vector<int64_t>& labels,
                 const std::string& which) -> Result<std::vector<int64_t>> {
    std::vector<int64_t> shown(labels.size());
    for (size_t i = 0; i < labels.size(); ++i) {
      if (labels[i] < 0 || labels[i] >= static_cast<int64_t>(kLabels)) {
        return Status::Internal(what + ": " + which + "[" + std::to_string(i) + "] is not a label");
      }
      shown[i] = relabel[static_cast<size_t>(labels[i])];
    }
    return shown;
  };
  Result<std::vector<int64_t>> train_y = map(draw.train_y, "train_y");
  if (!train_y.ok()) return train_y.status();
  Result<std::vector<int64_t>> test_y = map(draw.test_y, "test_y");
  if (!test_y.ok()) return test_y.status();
  out.train_y = std::move(*train_y);
  out.test_y = std::move(*test_y);
  return out;
}

}  // namespace ratchet
