#include "data/draw.h"

#include "data/release.h"

namespace ratchet {
namespace {

// A draw's rows of the pool, its train rows first, then its test rows.
class PoolRows : public RowSource {
 public:
  PoolRows(const Pool& pool, const std::vector<int64_t>& train, const std::vector<int64_t>& test)
      : pool_(pool), train_(train), test_(test) {}
  size_t size() const override { return train_.size() + test_.size(); }
  void Gather(size_t first, size_t count, double* out) const override {
    for (size_t i = first; i < first + count; ++i) {
      const int64_t row = i < train_.size() ? train_[i] : test_[i - train_.size()];
      const float* pixels = pool_.row(static_cast<size_t>(row));
      for (size_t p = 0; p < kPooledPixels; ++p) *out++ = pixels[p];
    }
  }

 private:
  const Pool& pool_;
  const std::vector<int64_t>& train_;
  const std::vector<int64_t>& test_;
};

}  // namespace

std::string SplitLabel(const std::string& dataset) { return "split/" + dataset; }

std::string DrawLabel(const std::string& dataset, uint64_t index) {
  return "draw/" + dataset + "/" + std::to_string(index);
}

Result<Split> MakeSplit(const RunSeed& seed, const std::string& dataset, size_t pool_rows) {
  Result<KeyedStream> stream = KeyedStream::ForLabel(seed, SplitLabel(dataset));
  if (!stream.ok()) return stream.status();
  std::vector<int64_t> order = stream->Permutation(pool_rows);
  RATCHET_RETURN_IF_ERROR(stream->status());
  Split split;
  split.dataset = dataset;
  split.train_half.assign(order.begin(),
                          order.begin() + static_cast<std::ptrdiff_t>(pool_rows / 2));
  split.test_half.assign(order.begin() + static_cast<std::ptrdiff_t>(pool_rows / 2), order.end());
  return split;
}

std::vector<int64_t> RelabelRows(const std::vector<uint8_t>& labels,
                                 const std::vector<int64_t>& rows,
                                 const std::vector<int64_t>& relabel) {
  std::vector<int64_t> shown(rows.size());
  for (size_t i = 0; i < rows.size(); ++i) shown[i] = relabel[labels[static_cast<size_t>(rows[i])]];
  return shown;
}

Result<Draw> MakeDraw(const Pool& pool, const Split& split, const RunSeed& seed, uint64_t index) {
  const std::string what = pool.name + " draw " + std::to_string(index);
  if (split.dataset != pool.name ||
      split.train_half.size() + split.test_half.size() != pool.rows()) {
    return Status::Internal(what + ": the split of " + split.dataset + " does not fit the pool");
  }
  if (split.train_half.size() < kDrawTrainRows || split.test_half.size() < kDrawTestRows) {
    return Status::Internal(what + ": the pool's halves are smaller than a draw");
  }
  Result<KeyedStream> stream = KeyedStream::ForLabel(seed, DrawLabel(pool.name, index));
  if (!stream.ok()) return stream.status();
  Draw draw;
  draw.dataset = pool.name;
  draw.index = index;
  draw.train_rows = stream->Sample(split.train_half, kDrawTrainRows);
  draw.test_rows = stream->Sample(split.test_half, kDrawTestRows);
  draw.relabel = stream->Permutation(kClasses);
  draw.rotation = HaarRotation(*stream);
  RATCHET_RETURN_IF_ERROR(stream->status());

  const PoolRows rows(pool, draw.train_rows, draw.test_rows);
  Result<Released> released = ReleaseRows(rows, kDrawTrainRows, draw.rotation, what);
  if (!released.ok()) return released.status();
  draw.mu = std::move(released->mu);
  draw.transform = std::move(released->transform);
  const auto split_at =
      released->z.begin() + static_cast<std::ptrdiff_t>(kDrawTrainRows * kReleaseDims);
  draw.train_x.assign(released->z.begin(), split_at);
  draw.test_x.assign(split_at, released->z.end());

  draw.train_y = RelabelRows(pool.labels, draw.train_rows, draw.relabel);
  draw.test_y = RelabelRows(pool.labels, draw.test_rows, draw.relabel);
  return draw;
}

}  // namespace ratchet
