#include "data/draw_files.h"

#include <cstring>
#include <vector>

#include "core/sha256.h"

namespace ratchet {
namespace {

// The files are the host's bytes of each array; every host ratchet supports is little-endian.
static_assert(__BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__, "draw files are little-endian");

constexpr char kDescriptionFile[] = "draw.json";

struct DrawFile {
  std::string name;  // relative to the draw folder
  std::string dtype;
  std::vector<int64_t> shape;
  std::string bytes;
};

template <typename T>
std::string RawBytes(const T* data, size_t count) {
  return std::string(reinterpret_cast<const char*>(data), count * sizeof(T));
}

std::string RowMajorBytes(const Eigen::MatrixXd& matrix) {
  const Eigen::Matrix<double, Eigen::Dynamic, Eigen::Dynamic, Eigen::RowMajor> row_major = matrix;
  return RawBytes(row_major.data(), static_cast<size_t>(row_major.size()));
}

std::vector<DrawFile> DrawFiles(const Draw& draw) {
  const auto n_train = static_cast<int64_t>(draw.train_y.size());
  const auto n_test = static_cast<int64_t>(draw.test_y.size());
  const auto dims = static_cast<int64_t>(draw.transform.rows());
  const auto pixels = static_cast<int64_t>(draw.transform.cols());
  return {
      {"inputs/train_x.f32",
       "float32",
       {n_train, dims},
       RawBytes(draw.train_x.data(), draw.train_x.size())},
      {"inputs/train_y.i64",
       "int64",
       {n_train},
       RawBytes(draw.train_y.data(), draw.train_y.size())},
      {"inputs/test_x.f32",
       "float32",
       {n_test, dims},
       RawBytes(draw.test_x.data(), draw.test_x.size())},
      {"hidden/test_y.i64", "int64", {n_test}, RawBytes(draw.test_y.data(), draw.test_y.size())},
      {"hidden/train_rows.i64",
       "int64",
       {n_train},
       RawBytes(draw.train_rows.data(), draw.train_rows.size())},
      {"hidden/test_rows.i64",
       "int64",
       {n_test},
       RawBytes(draw.test_rows.data(), draw.test_rows.size())},
      {"hidden/relabel.i64",
       "int64",
       {static_cast<int64_t>(draw.relabel.size())},
       RawBytes(draw.relabel.data(), draw.relabel.size())},
      {"hidden/rotation.f64",
       "float64",
       {draw.rotation.rows(), draw.rotation.cols()},
       RowMajorBytes(draw.rotation)},
      {"hidden/mu.f64",
       "float64",
       {draw.mu.size()},
       RawBytes(draw.mu.data(), static_cast<size_t>(draw.mu.size()))},
      {"hidden/transform.f64", "float64", {dims, pixels}, RowMajorBytes(draw.transform)},
  };
}

Json Describe(const Draw& draw, const LocatedDataset& dataset, const RunSeed& seed,
              const std::vector<DrawFile>& files) {
  Json listed = Json::array();
  for (const DrawFile& file : files) {
    listed.push_back({{"name", file.name},
                      {"dtype", file.dtype},
                      {"shape", file.shape},
                      {"sha256", Sha256Hex(file.bytes)}});
  }
  return {{"schema", kDrawSchema},
          {"dataset", draw.dataset},
          {"index", draw.index},
          {"seed_sha256", RunSeedSha256(seed)},
          {"pool",
           {{"images_sha256", dataset.images_sha256}, {"labels_sha256", dataset.labels_sha256}}},
          {"byte_order", "little-endian"},
          {"layout", "row-major"},
          {"files", listed}};
}

}  // namespace

Result<Json> DescribeDraw(const Draw& draw, const LocatedDataset& dataset, const RunSeed& seed) {
  if (dataset.name != draw.dataset) {
    return Status::Internal("a draw of " + draw.dataset + " described with the files of " +
                            dataset.name);
  }
  return Describe(draw, dataset, seed, DrawFiles(draw));
}

Result<Json> WriteDrawFiles(const Draw& draw, const LocatedDataset& dataset, const RunSeed& seed,
                            FreshDirectory* folder) {
  if (dataset.name != draw.dataset) {
    return Status::Internal("a draw of " + draw.dataset + " written with the files of " +
                            dataset.name);
  }
  const std::vector<DrawFile> files = DrawFiles(draw);
  const Json description = Describe(draw, dataset, seed, files);
  Result<std::string> text = CanonicalJson(description);
  if (!text.ok()) return text.status();
  for (const char* subfolder : {"inputs", "hidden"}) {
    RATCHET_RETURN_IF_ERROR(folder->MakeSubdirectory(subfolder));
  }
  for (const DrawFile& file : files) {
    RATCHET_RETURN_IF_ERROR(folder->WriteFile(file.name, file.bytes));
  }
  RATCHET_RETURN_IF_ERROR(folder->WriteFile(kDescriptionFile, *text + "\n"));
  return description;
}

Result<Json> WriteDraw(const Draw& draw, const LocatedDataset& dataset, const RunSeed& seed,
                       const std::string& out_dir) {
  Result<FreshDirectory> folder = FreshDirectory::Begin(out_dir);
  if (!folder.ok()) return folder.status();
  Result<Json> description = WriteDrawFiles(draw, dataset, seed, &*folder);
  Status status = description.ok() ? folder->Commit() : description.status();
  if (!status.ok()) {
    folder->Abandon();
    return status;
  }
  return description;
}

}  // namespace ratchet
