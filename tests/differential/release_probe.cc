// The release, pools and relabelling of ratchet's data part, driven from files so that
// release_diff.py can put the seed scorer's numpy code and ratchet on the same inputs.
//
//   release_probe release f32|f64 TRAIN N_TRAIN TEST N_TEST ROTATION OUT_TRAIN OUT_TEST
//       rows are [n x 81] raw little-endian of the given dtype, ROTATION f64 [60 x 60];
//       writes float32 [n x 60] releases (transform = ROTATION W). Exit 1 with the message
//       when the whitener refuses the rows.
//   release_probe pool IMAGES_IDX OUT       the box-averaged pool, float32 [60000 x 81]
//   release_probe relabel LABELS_U8 ROWS_I64 RELABEL_I64 OUT_I64
#include <cstdlib>
#include <cstring>
#include <iostream>
#include <string>
#include <vector>

#include "core/file.h"
#include "data/draw.h"
#include "data/idx.h"
#include "data/pool.h"
#include "data/release.h"

namespace ratchet {
namespace {

[[noreturn]] void Fail(const std::string& message) {
  std::cerr << "release_probe: " << message << "\n";
  std::exit(2);
}

std::string Read(const std::string& path) {
  Result<std::string> bytes = ReadFile(path);
  if (!bytes.ok()) Fail(bytes.status().message());
  return std::move(bytes).value();
}

template <typename T>
std::vector<T> ReadArray(const std::string& path) {
  const std::string bytes = Read(path);
  if (bytes.size() % sizeof(T) != 0) Fail(path + " is not a whole number of elements");
  std::vector<T> values(bytes.size() / sizeof(T));
  std::memcpy(values.data(), bytes.data(), bytes.size());
  return values;
}

template <typename T>
void WriteArray(const std::string& path, const T* data, size_t count) {
  Status status = WriteFileAtomic(
      path, std::string_view(reinterpret_cast<const char*>(data), count * sizeof(T)));
  if (!status.ok()) Fail(status.message());
}

// Rows of `path` as the columns of an 81 x n matrix, placed from column `first`.
void ReadRows(const std::string& dtype, const std::string& path, size_t n, Eigen::MatrixXd& rows,
              Eigen::Index first) {
  std::vector<double> values;
  if (dtype == "f32") {
    std::vector<float> floats = ReadArray<float>(path);
    values.assign(floats.begin(), floats.end());
  } else if (dtype == "f64") {
    values = ReadArray<double>(path);
  } else {
    Fail("dtype must be f32 or f64, not " + dtype);
  }
  if (values.size() != n * kPooledPixels)
    Fail(path + " does not hold " + std::to_string(n) + " rows of 81");
  for (size_t i = 0; i < n; ++i) {
    for (size_t p = 0; p < kPooledPixels; ++p) {
      rows(static_cast<Eigen::Index>(p), first + static_cast<Eigen::Index>(i)) =
          values[i * kPooledPixels + p];
    }
  }
}

int Release(const std::vector<std::string>& a) {
  if (a.size() != 8) Fail("release needs 8 arguments");
  const size_t n_train = std::stoul(a[2]), n_test = std::stoul(a[4]);
  Eigen::MatrixXd rows(static_cast<Eigen::Index>(kPooledPixels),
                       static_cast<Eigen::Index>(n_train + n_test));
  ReadRows(a[0], a[1], n_train, rows, 0);
  ReadRows(a[0], a[3], n_test, rows, static_cast<Eigen::Index>(n_train));
  std::vector<double> q = ReadArray<double>(a[5]);
  if (q.size() != kReleaseDims * kReleaseDims) Fail(a[5] + " is not 60 x 60 float64");
  const Eigen::MatrixXd rotation =
      Eigen::Map<Eigen::Matrix<double, kReleaseDims, kReleaseDims, Eigen::RowMajor>>(q.data());
  Result<Released> released = ReleaseRows(MatrixRows(rows), n_train, rotation, "probe rows");
  if (!released.ok()) {
    std::cerr << released.status().message() << "\n";
    return 1;
  }
  WriteArray(a[6], released->z.data(), n_train * kReleaseDims);
  WriteArray(a[7], released->z.data() + n_train * kReleaseDims, n_test * kReleaseDims);
  return 0;
}

int PoolOf(const std::vector<std::string>& a) {
  if (a.size() != 2) Fail("pool needs 2 arguments");
  Result<IdxFile> images = ReadIdxFile(a[0], IdxKind::kImages);
  if (!images.ok()) Fail(images.status().message());
  const std::vector<float> pixels =
      BoxAverage(IdxPayload(images->bytes, IdxKind::kImages), kPoolRows);
  WriteArray(a[1], pixels.data(), pixels.size());
  return 0;
}

int Relabel(const std::vector<std::string>& a) {
  if (a.size() != 4) Fail("relabel needs 4 arguments");
  const std::vector<uint8_t> labels = ReadArray<uint8_t>(a[0]);
  const std::vector<int64_t> rows = ReadArray<int64_t>(a[1]);
  const std::vector<int64_t> relabel = ReadArray<int64_t>(a[2]);
  const std::vector<int64_t> shown = RelabelRows(labels, rows, relabel);
  WriteArray(a[3], shown.data(), shown.size());
  return 0;
}

}  // namespace
}  // namespace ratchet

int main(int argc, char** argv) {
  if (argc < 2) ratchet::Fail("usage: release_probe release|pool|relabel ARGS...");
  const std::string mode = argv[1];
  const std::vector<std::string> args(argv + 2, argv + argc);
  if (mode == "release") return ratchet::Release(args);
  if (mode == "pool") return ratchet::PoolOf(args);
  if (mode == "relabel") return ratchet::Relabel(args);
  ratchet::Fail("unknown mode " + mode);
}
