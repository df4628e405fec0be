// Draws on a synthetic pool: the split, where rows come from, determinism, the labels, the
// hidden map, and the folder `ratchet draw` writes.
#include "data/draw.h"

#include <gtest/gtest.h>

#include <cstring>
#include <filesystem>
#include <set>

#include "core/canonical_json.h"
#include "core/file.h"
#include "core/sha256.h"
#include "data/draw_files.h"
#include "data/release.h"
#include "support/temp_dir.h"
#include "test_files.h"

namespace ratchet {
namespace {

class DataDraw : public ::testing::Test {
 protected:
  static void SetUpTestSuite() { pool_ = new Pool(datatest::SyntheticPool("mnist", 17)); }
  static void TearDownTestSuite() { delete pool_; }

  static Split MakeSplitOrDie(const RunSeed& seed) {
    Result<Split> split = MakeSplit(seed, pool_->name, pool_->rows());
    EXPECT_TRUE(split.ok());
    return std::move(split).value();
  }
  static Draw MakeDrawOrDie(const RunSeed& seed, uint64_t index) {
    Result<Draw> draw = MakeDraw(*pool_, MakeSplitOrDie(seed), seed, index);
    EXPECT_TRUE(draw.ok()) << draw.status().message();
    return std::move(draw).value();
  }
  static LocatedDataset Located() {
    LocatedDataset located;
    located.name = "mnist";
    located.present = true;
    located.images_sha256 = std::string(64, 'a');
    located.labels_sha256 = std::string(64, 'b');
    return located;
  }

  static Pool* pool_;
};

Pool* DataDraw::pool_ = nullptr;

TEST_F(DataDraw, SplitHalvesArePartOfOnePermutation) {
  const Split split = MakeSplitOrDie(RunSeed{});
  ASSERT_EQ(split.train_half.size(), 30000u);
  ASSERT_EQ(split.test_half.size(), 30000u);
  std::set<int64_t> all(split.train_half.begin(), split.train_half.end());
  all.insert(split.test_half.begin(), split.test_half.end());
  EXPECT_EQ(all.size(), 60000u);
  EXPECT_EQ(*all.begin(), 0);
  EXPECT_EQ(*all.rbegin(), 59999);
  RunSeed other;
  other.bytes[0] = 1;
  EXPECT_NE(MakeSplitOrDie(other).train_half, split.train_half);
}

TEST_F(DataDraw, KnownAnswerForTheZeroSeed) {
  // The same numbers come from an independent reading of docs/draws.md (release_diff.py):
  // they depend on the pool's size, not its content.
  const Draw draw = MakeDrawOrDie(RunSeed{}, 0);
  EXPECT_EQ(std::vector<int64_t>(draw.train_rows.begin(), draw.train_rows.begin() + 4),
            (std::vector<int64_t>{32365, 53295, 11362, 6117}));
  EXPECT_EQ(std::vector<int64_t>(draw.test_rows.begin(), draw.test_rows.begin() + 4),
            (std::vector<int64_t>{26116, 48137, 11755, 10227}));
  EXPECT_EQ(draw.relabel, (std::vector<int64_t>{8, 7, 9, 0, 5, 2, 6, 1, 3, 4}));
  EXPECT_NEAR(draw.rotation(0, 0), -0.00362879, 1e-8);
  EXPECT_NEAR(draw.rotation(0, 1), -0.1469907, 1e-7);
}

TEST_F(DataDraw, RowsComeFromTheirHalvesDistinctAndDisjoint) {
  const Split split = MakeSplitOrDie(RunSeed{});
  const Draw draw = MakeDrawOrDie(RunSeed{}, 3);
  const std::set<int64_t> train_half(split.train_half.begin(), split.train_half.end());
  const std::set<int64_t> train(draw.train_rows.begin(), draw.train_rows.end());
  const std::set<int64_t> test(draw.test_rows.begin(), draw.test_rows.end());
  EXPECT_EQ(train.size(), kDrawTrainRows);
  EXPECT_EQ(test.size(), kDrawTestRows);
  for (int64_t row : train) ASSERT_TRUE(train_half.count(row)) << row;
  for (int64_t row : test) ASSERT_FALSE(train_half.count(row)) << row;  // so in the test half
}

TEST_F(DataDraw, SameSeedAndIndexSameDrawAnotherIndexAnotherDraw) {
  const Draw a = MakeDrawOrDie(RunSeed{}, 5), b = MakeDrawOrDie(RunSeed{}, 5);
  EXPECT_EQ(a.train_rows, b.train_rows);
  EXPECT_EQ(a.test_rows, b.test_rows);
  EXPECT_EQ(a.relabel, b.relabel);
  ASSERT_EQ(a.train_x.size(), b.train_x.size());
  EXPECT_EQ(std::memcmp(a.train_x.data(), b.train_x.data(), a.train_x.size() * 4), 0);
  EXPECT_EQ(std::memcmp(a.test_x.data(), b.test_x.data(), a.test_x.size() * 4), 0);
  const Draw c = MakeDrawOrDie(RunSeed{}, 6);
  EXPECT_NE(a.train_rows, c.train_rows);
  EXPECT_NE(a.train_x, c.train_x);
}

TEST_F(DataDraw, LabelsArePermutedAndTheHiddenMapExplainsTheInputs) {
  const Draw draw = MakeDrawOrDie(RunSeed{}, 1);
  std::set<int64_t> values(draw.relabel.begin(), draw.relabel.end());
  ASSERT_EQ(values.size(), 10u);
  for (size_t i = 0; i < kDrawTrainRows; ++i) {
    ASSERT_EQ(draw.train_y[i],
              draw.relabel[pool_->labels[static_cast<size_t>(draw.train_rows[i])]]);
  }
  for (size_t i = 0; i < kDrawTestRows; ++i) {
    ASSERT_EQ(draw.test_y[i], draw.relabel[pool_->labels[static_cast<size_t>(draw.test_rows[i])]]);
  }
  EXPECT_LT((draw.rotation.transpose() * draw.rotation - Eigen::MatrixXd::Identity(60, 60))
                .cwiseAbs()
                .maxCoeff(),
            1e-12);
  for (size_t i : {size_t{0}, size_t{4321}, size_t{9999}}) {
    const float* pixels = pool_->row(static_cast<size_t>(draw.test_rows[i]));
    Eigen::VectorXd x(81);
    for (int p = 0; p < 81; ++p) x(p) = pixels[p];
    const Eigen::VectorXd z = draw.transform * (x - draw.mu);
    for (int d = 0; d < 60; ++d) ASSERT_NEAR(draw.test_x[i * 60 + d], z(d), 1e-5);
  }
  // The training inputs are white: mean 0, covariance I.
  Eigen::MatrixXd train =
      Eigen::Map<const Eigen::MatrixXf>(draw.train_x.data(), 60, 10000).cast<double>();
  const Eigen::MatrixXd centered = train.colwise() - train.rowwise().mean();
  const Eigen::MatrixXd covariance = centered * centered.transpose() / 9999.0;
  EXPECT_LT(train.rowwise().mean().cwiseAbs().maxCoeff(), 1e-5);
  EXPECT_LT((covariance - Eigen::MatrixXd::Identity(60, 60)).cwiseAbs().maxCoeff(), 1e-4);
}

TEST_F(DataDraw, WrittenFolderIsDescribedByDrawJson) {
  TempDir dir;
  RunSeed seed;
  seed.bytes.fill(0xab);
  const Draw draw = MakeDrawOrDie(seed, 2);
  Result<Json> written = WriteDraw(draw, Located(), seed, dir / "draw");
  ASSERT_TRUE(written.ok()) << written.status().message();
  Result<std::string> text = ReadFile(dir / "draw/draw.json");
  ASSERT_TRUE(text.ok());
  EXPECT_EQ(text->find(HexEncode(seed.view())), std::string::npos)
      << "the seed itself is never written";
  Result<Json> description = ParseJson(*text, "draw.json");
  ASSERT_TRUE(description.ok());
  EXPECT_EQ(*description, *written);
  EXPECT_EQ((*description)["schema"], "ratchet.draw/1");
  EXPECT_EQ((*description)["dataset"], "mnist");
  EXPECT_EQ((*description)["index"], 2);
  EXPECT_EQ((*description)["seed_sha256"], RunSeedSha256(seed));
  EXPECT_EQ((*description)["pool"]["images_sha256"], std::string(64, 'a'));
  const std::map<std::string, size_t> sizes = {
      {"inputs/train_x.f32", 2400000},  {"inputs/train_y.i64", 80000},
      {"inputs/test_x.f32", 2400000},   {"hidden/test_y.i64", 80000},
      {"hidden/train_rows.i64", 80000}, {"hidden/test_rows.i64", 80000},
      {"hidden/relabel.i64", 80},       {"hidden/rotation.f64", 28800},
      {"hidden/mu.f64", 648},           {"hidden/transform.f64", 38880}};
  ASSERT_EQ((*description)["files"].size(), sizes.size());
  for (const Json& file : (*description)["files"]) {
    const std::string name = file["name"];
    Result<std::string> bytes = ReadFile(dir / ("draw/" + name));
    ASSERT_TRUE(bytes.ok()) << name;
    EXPECT_EQ(bytes->size(), sizes.at(name)) << name;
    EXPECT_EQ(Sha256Hex(*bytes), file["sha256"]) << name;
  }
  // The rotation file is row-major: its second value is Q(0, 1).
  Result<std::string> rotation = ReadFile(dir / "draw/hidden/rotation.f64");
  double q01;
  std::memcpy(&q01, rotation->data() + 8, 8);
  EXPECT_EQ(q01, draw.rotation(0, 1));

  // The same draw written again gives the same bytes; an existing folder is refused.
  Result<Json> again = WriteDraw(draw, Located(), seed, dir / "again");
  ASSERT_TRUE(again.ok());
  EXPECT_EQ(*ReadFile(dir / "again/draw.json"), *text);
  Result<Json> refused = WriteDraw(draw, Located(), seed, dir / "draw");
  ASSERT_FALSE(refused.ok());
  EXPECT_EQ(refused.status().code(), Status::Code::kBadInput);
  EXPECT_NE(refused.status().message().find("already exists"), std::string::npos);
}

}  // namespace
}  // namespace ratchet
