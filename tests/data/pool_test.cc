// Pools: exact box averaging 28x28 -> 9x9, and loading a dataset's files into a pool.
#include "data/pool.h"

#include <gtest/gtest.h>

#include <filesystem>
#include <vector>

#include "support/temp_dir.h"
#include "test_files.h"

namespace ratchet {
namespace {

std::vector<uint8_t> Image(uint8_t fill) { return std::vector<uint8_t>(kImagePixels, fill); }

TEST(DataPool, OverlapsCoverEveryPixelAndBinExactly) {
  for (size_t bin = 0; bin < kPooledSide; ++bin) {
    int sum = 0;
    for (size_t pixel = 0; pixel < kImageSide; ++pixel) sum += BoxOverlap(bin, pixel);
    EXPECT_EQ(sum, 28) << "bin " << bin;  // weights overlap / 28 sum to 1
  }
  for (size_t pixel = 0; pixel < kImageSide; ++pixel) {
    int sum = 0;
    for (size_t bin = 0; bin < kPooledSide; ++bin) sum += BoxOverlap(bin, pixel);
    EXPECT_EQ(sum, 9) << "pixel " << pixel;  // every pixel is counted once in all
  }
  EXPECT_EQ(BoxOverlap(0, 0), 9);
  EXPECT_EQ(BoxOverlap(0, 3), 1);  // pixel 3 spans [27, 36): 1 unit in bin 0, 8 in bin 1
  EXPECT_EQ(BoxOverlap(1, 3), 8);
  EXPECT_EQ(BoxOverlap(1, 0), 0);
}

TEST(DataPool, FullAndEmptyImages) {
  std::vector<uint8_t> images = Image(255);
  const std::vector<uint8_t> dark = Image(0);
  images.insert(images.end(), dark.begin(), dark.end());
  const std::vector<float> pooled = BoxAverage(images.data(), 2);
  ASSERT_EQ(pooled.size(), 2 * kPooledPixels);
  for (size_t p = 0; p < kPooledPixels; ++p) {
    EXPECT_EQ(pooled[p], 1.0f) << p;
    EXPECT_EQ(pooled[kPooledPixels + p], 0.0f) << p;
  }
}

TEST(DataPool, OnePixelLandsInItsBinsWithExactWeights) {
  std::vector<uint8_t> image = Image(0);
  image[3 * kImageSide + 3] = 255;  // pixel (3, 3): weights 1/28 and 8/28 on each axis
  std::vector<float> pooled = BoxAverage(image.data(), 1);
  EXPECT_EQ(pooled[0 * 9 + 0], static_cast<float>(1.0 / 784));
  EXPECT_EQ(pooled[0 * 9 + 1], static_cast<float>(8.0 / 784));
  EXPECT_EQ(pooled[1 * 9 + 0], static_cast<float>(8.0 / 784));
  EXPECT_EQ(pooled[1 * 9 + 1], static_cast<float>(64.0 / 784));
  for (size_t p = 0; p < kPooledPixels; ++p) {
    if (p != 0 && p != 1 && p != 9 && p != 10) {
      EXPECT_EQ(pooled[p], 0.0f) << p;
    }
  }

  image = Image(0);
  image[27 * kImageSide + 0] = 51;  // bottom-left pixel: bin (8, 0) only, weight 9/28 each way
  pooled = BoxAverage(image.data(), 1);
  EXPECT_EQ(pooled[8 * 9 + 0], static_cast<float>(81.0 * 51 / (784.0 * 255)));
  float total = 0;
  for (float value : pooled) total += value;
  EXPECT_EQ(total, pooled[8 * 9 + 0]);
}

TEST(DataPool, ValuesAreAveragesOfWholeBins) {
  // A horizontal gradient: every output row equals the next, and each bin is the mean of the
  // columns it covers, weighted by overlap.
  std::vector<uint8_t> image(kImagePixels);
  for (size_t i = 0; i < kImageSide; ++i) {
    for (size_t j = 0; j < kImageSide; ++j) image[i * kImageSide + j] = static_cast<uint8_t>(9 * j);
  }
  const std::vector<float> pooled = BoxAverage(image.data(), 1);
  for (size_t b = 0; b < kPooledSide; ++b) {
    double expected = 0;
    for (size_t j = 0; j < kImageSide; ++j) expected += BoxOverlap(b, j) * 9.0 * j;
    expected /= 28.0 * 255.0;
    for (size_t a = 0; a < kPooledSide; ++a) {
      EXPECT_EQ(pooled[a * 9 + b], static_cast<float>(expected)) << a << "," << b;
    }
  }
}

TEST(DataPool, LoadsTheRealPool) {
  std::optional<std::string> folder = datatest::RealDataFolder();
  if (!folder)
    GTEST_SKIP() << "no MNIST here ($RATCHET_DATA or <checkout>/data); scripts/setup gets it";
  Result<DataSearch> search = MakeDataSearch(*folder);
  ASSERT_TRUE(search.ok());
  Result<LocatedDataset> mnist = LocateDataset(*search, "mnist");
  ASSERT_TRUE(mnist.ok() && mnist->present);
  Result<std::shared_ptr<const Pool>> pool = SharedPool(*mnist);
  ASSERT_TRUE(pool.ok()) << pool.status().message();
  EXPECT_EQ((*pool)->rows(), 60000u);
  EXPECT_EQ((*pool)->pixels.size(), 60000u * 81);
  // MNIST's first training image is a 5.
  EXPECT_EQ((*pool)->labels[0], 5);
  Result<std::shared_ptr<const Pool>> again = SharedPool(*mnist);
  ASSERT_TRUE(again.ok());
  EXPECT_EQ(pool->get(), again->get()) << "a process loads each pool once";

  LocatedDataset stale = *mnist;
  stale.labels_sha256 = std::string(64, '0');
  Result<Pool> changed = LoadPool(stale);
  ASSERT_FALSE(changed.ok());
  EXPECT_NE(changed.status().message().find("changed after it was located"), std::string::npos)
      << changed.status().message();
}

TEST(DataPool, LoadingChecksTheRegistryAgain) {
  TempDir dir;
  std::filesystem::create_directories(dir / "fashion");
  const std::string images = datatest::IdxImages(2051, 60000, 28, 28, 0);
  datatest::WriteBytes(dir / "fashion/train-images-idx3-ubyte", images);
  datatest::WriteBytes(dir / "fashion/train-labels-idx1-ubyte", datatest::IdxLabels(2049, 60000));
  LocatedDataset located;
  located.name = "fashion";
  located.present = true;
  located.images_path = (dir / "fashion/train-images-idx3-ubyte");
  located.labels_path = (dir / "fashion/train-labels-idx1-ubyte");
  Result<Pool> pool = LoadPool(located);
  ASSERT_FALSE(pool.ok());
  EXPECT_EQ(pool.status().code(), Status::Code::kBadInput);
  EXPECT_NE(pool.status().message().find("is not the registered file"), std::string::npos);
}

}  // namespace
}  // namespace ratchet
