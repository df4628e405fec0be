#include "data/pool.h"

#include <algorithm>
#include <array>
#include <map>
#include <mutex>
#include <utility>

namespace ratchet {
namespace {

// The pixels an output bin overlaps: [first, first + count) with their overlaps.
struct BinSpan {
  size_t first = 0;
  size_t count = 0;
  int overlap[kImageSide] = {};
};

std::array<BinSpan, kPooledSide> MakeSpans() {
  std::array<BinSpan, kPooledSide> spans;
  for (size_t bin = 0; bin < kPooledSide; ++bin) {
    BinSpan& span = spans[bin];
    bool started = false;
    for (size_t pixel = 0; pixel < kImageSide; ++pixel) {
      const int overlap = BoxOverlap(bin, pixel);
      if (overlap == 0) continue;
      if (!started) span.first = pixel;
      started = true;
      span.overlap[span.count++] = overlap;
    }
  }
  return spans;
}

}  // namespace

int BoxOverlap(size_t bin, size_t pixel) {
  // Bin `bin` spans [28 bin, 28 bin + 28) and pixel `pixel` spans [9 pixel, 9 pixel + 9), both
  // in units of 1/9 of a pixel (so 28 pixels and 9 bins both span 252 units).
  const long left = static_cast<long>(bin * kImageSide), right = left + kImageSide;
  const long pixel_left = static_cast<long>(pixel * kPooledSide),
             pixel_right = pixel_left + kPooledSide;
  return static_cast<int>(std::max(0L, std::min(right, pixel_right) - std::max(left, pixel_left)));
}

std::vector<float> BoxAverage(const uint8_t* images, size_t count) {
  static const std::array<BinSpan, kPooledSide> kSpans = MakeSpans();
  constexpr double kScale = 1.0 * kImageSide * kImageSide * 255;  // every weight sum is 28 * 28
  std::vector<float> out(count * kPooledPixels);
  for (size_t n = 0; n < count; ++n) {
    const uint8_t* image = images + n * kImagePixels;
    // Rows first: rows_summed[a][j] = sum_i overlap(a, i) image[i][j], exact in integers.
    int32_t rows_summed[kPooledSide][kImageSide];
    for (size_t a = 0; a < kPooledSide; ++a) {
      const BinSpan& span = kSpans[a];
      for (size_t j = 0; j < kImageSide; ++j) {
        int32_t sum = 0;
        for (size_t k = 0; k < span.count; ++k) {
          sum += span.overlap[k] * image[(span.first + k) * kImageSide + j];
        }
        rows_summed[a][j] = sum;
      }
    }
    float* pooled = out.data() + n * kPooledPixels;
    for (size_t a = 0; a < kPooledSide; ++a) {
      for (size_t b = 0; b < kPooledSide; ++b) {
        const BinSpan& span = kSpans[b];
        int32_t sum = 0;
        for (size_t k = 0; k < span.count; ++k)
          sum += span.overlap[k] * rows_summed[a][span.first + k];
        // At most 28 * 28 * 255, so the clip never acts; it is kept as the rule states it.
        const double value = std::min(1.0, std::max(0.0, sum / kScale));
        pooled[a * kPooledSide + b] = static_cast<float>(value);
      }
    }
  }
  return out;
}

Result<Pool> LoadPool(const LocatedDataset& located) {
  const DatasetSpec* spec = FindDataset(located.name);
  if (spec == nullptr)
    return Status::Internal("no dataset named " + located.name + " in the registry");
  if (!located.present) {
    return Status::Unavailable(located.name + " is not on this machine (looked in " +
                               std::to_string(located.searched.size()) + " folders)");
  }
  Result<VerifiedIdx> images = ReadVerifiedIdx(*spec, IdxKind::kImages, located.images_path);
  if (!images.ok()) return images.status();
  Result<VerifiedIdx> labels = ReadVerifiedIdx(*spec, IdxKind::kLabels, located.labels_path);
  if (!labels.ok()) return labels.status();
  const std::pair<const VerifiedIdx*, const std::string*> checks[] = {
      {&images.value(), &located.images_sha256}, {&labels.value(), &located.labels_sha256}};
  for (const auto& [read, recorded] : checks) {
    if (read->sha256 != *recorded) {
      return Status::BadInput(read->file.path + " changed after it was located: its sha256 was " +
                              *recorded + ", it is now " + read->sha256);
    }
  }
  Pool pool;
  pool.name = located.name;
  pool.pixels = BoxAverage(IdxPayload(images->file.bytes, IdxKind::kImages), kPoolRows);
  const uint8_t* label_bytes = IdxPayload(labels->file.bytes, IdxKind::kLabels);
  pool.labels.assign(label_bytes, label_bytes + kPoolRows);
  return pool;
}

Result<std::shared_ptr<const Pool>> SharedPool(const LocatedDataset& located) {
  static std::mutex mutex;
  static std::map<std::string, std::shared_ptr<const Pool>> pools;
  const std::string key = located.name + "/" + located.images_sha256 + "/" + located.labels_sha256;
  std::lock_guard<std::mutex> lock(mutex);
  auto it = pools.find(key);
  if (it != pools.end()) return it->second;
  Result<Pool> pool = LoadPool(located);
  if (!pool.ok()) return pool.status();
  auto shared = std::make_shared<const Pool>(std::move(pool).value());
  pools.emplace(key, shared);
  return shared;
}

}  // namespace ratchet
