// IDX files: what a user sees when a file is truncated, mislabelled or not the training split.
#include "data/idx.h"

#include <gtest/gtest.h>

#include "support/temp_dir.h"
#include "test_files.h"

namespace ratchet {
namespace {

using datatest::GzipBytes;
using datatest::IdxImages;
using datatest::IdxLabels;
using datatest::WriteBytes;

std::string Message(const Status& status) { return status.message(); }

TEST(DataIdx, AcceptsTheTrainingSplit) {
  EXPECT_TRUE(CheckIdx(IdxImages(2051, 60000, 28, 28, 7), IdxKind::kImages, "f").ok());
  EXPECT_TRUE(CheckIdx(IdxLabels(2049, 60000), IdxKind::kLabels, "f").ok());
}

TEST(DataIdx, TruncatedImagesSayBothSizes) {
  std::string bytes = IdxImages(2051, 60000, 28, 28, 0);
  bytes.resize(bytes.size() - 100);
  Status status = CheckIdx(bytes, IdxKind::kImages, "/d/mnist/train-images-idx3-ubyte");
  EXPECT_EQ(status.code(), Status::Code::kBadInput);
  EXPECT_NE(Message(status).find("/d/mnist/train-images-idx3-ubyte is truncated"),
            std::string::npos)
      << Message(status);
  EXPECT_NE(Message(status).find("47039916 bytes"), std::string::npos) << Message(status);
  EXPECT_NE(Message(status).find("expected 47040016 bytes"), std::string::npos) << Message(status);
}

TEST(DataIdx, TruncatedHeader) {
  Status status = CheckIdx(IdxImages(2051, 60000, 28, 28, 0).substr(0, 10), IdxKind::kImages, "f");
  EXPECT_EQ(status.code(), Status::Code::kBadInput);
  EXPECT_NE(Message(status).find("shorter than the IDX header"), std::string::npos)
      << Message(status);
  status = CheckIdx("", IdxKind::kLabels, "f");
  EXPECT_NE(Message(status).find("0 bytes long"), std::string::npos) << Message(status);
}

TEST(DataIdx, TrailingBytes) {
  Status status = CheckIdx(IdxLabels(2049, 60000) + "x", IdxKind::kLabels, "f");
  EXPECT_EQ(status.code(), Status::Code::kBadInput);
  EXPECT_NE(Message(status).find("bytes after its data"), std::string::npos) << Message(status);
}

TEST(DataIdx, WrongMagic) {
  Status status = CheckIdx(IdxImages(1234, 60000, 28, 28, 0), IdxKind::kImages, "f");
  EXPECT_EQ(status.code(), Status::Code::kBadInput);
  EXPECT_NE(Message(status).find("expected an IDX images file (magic 2051), found magic 1234"),
            std::string::npos)
      << Message(status);
}

TEST(DataIdx, LabelsWhereImagesShouldBe) {
  Status status = CheckIdx(IdxLabels(2049, 60000), IdxKind::kImages, "x/train-images-idx3-ubyte");
  EXPECT_EQ(status.code(), Status::Code::kBadInput);
  EXPECT_NE(Message(status).find("expected an IDX images file (magic 2051), found magic 2049, an "
                                 "IDX labels file"),
            std::string::npos)
      << Message(status);
  status = CheckIdx(IdxImages(2051, 60000, 28, 28, 0), IdxKind::kLabels, "f");
  EXPECT_NE(Message(status).find("found magic 2051, an IDX images file"), std::string::npos)
      << Message(status);
}

TEST(DataIdx, TestSplitIsNotTheTrainingSplit) {
  Status status = CheckIdx(IdxImages(2051, 10000, 28, 28, 0), IdxKind::kImages, "f");
  EXPECT_EQ(status.code(), Status::Code::kBadInput);
  EXPECT_NE(Message(status).find("holds 10000 images of 28x28; expected the training split: 60000 "
                                 "images of 28x28"),
            std::string::npos)
      << Message(status);
  status = CheckIdx(IdxImages(2051, 60000, 32, 32, 0), IdxKind::kImages, "f");
  EXPECT_NE(Message(status).find("60000 images of 32x32"), std::string::npos) << Message(status);
  status = CheckIdx(IdxLabels(2049, 10000), IdxKind::kLabels, "f");
  EXPECT_NE(Message(status).find("holds 10000 labels"), std::string::npos) << Message(status);
}

TEST(DataIdx, LabelOutOfRange) {
  std::string labels = IdxLabels(2049, 60000);
  labels[8 + 123] = 10;
  Status status = CheckIdx(labels, IdxKind::kLabels, "f");
  EXPECT_EQ(status.code(), Status::Code::kBadInput);
  EXPECT_NE(Message(status).find("label 123 is 10; labels are 0..9"), std::string::npos)
      << Message(status);
}

TEST(DataIdx, CompressedFileWithoutGzName) {
  Status status = CheckIdx(GzipBytes(IdxLabels(2049, 60000)), IdxKind::kLabels, "f");
  EXPECT_EQ(status.code(), Status::Code::kBadInput);
  EXPECT_NE(Message(status).find("gzip-compressed but its name does not end in .gz"),
            std::string::npos)
      << Message(status);
}

TEST(DataIdx, ReadsGzipAndRaw) {
  TempDir dir;
  const std::string labels = IdxLabels(2049, 60000);
  WriteBytes(dir / "raw", labels);
  WriteBytes(dir / "packed.gz", GzipBytes(labels));
  Result<IdxFile> raw = ReadIdxFile(dir / "raw", IdxKind::kLabels);
  ASSERT_TRUE(raw.ok()) << raw.status().message();
  EXPECT_FALSE(raw->gzipped);
  EXPECT_EQ(raw->bytes, labels);
  Result<IdxFile> packed = ReadIdxFile(dir / "packed.gz", IdxKind::kLabels);
  ASSERT_TRUE(packed.ok()) << packed.status().message();
  EXPECT_TRUE(packed->gzipped);
  EXPECT_EQ(packed->bytes, labels);
  EXPECT_EQ(packed->gzip_sha256.size(), 64u);
}

TEST(DataIdx, OversizedGzipContentIsRefusedByStructure) {
  TempDir dir;
  // An images file where labels belong: inflation stops one byte past a labels file's size,
  // and the message is about the magic, not the size.
  WriteBytes(dir / "labels.gz", GzipBytes(IdxImages(2051, 60000, 28, 28, 3)));
  Result<IdxFile> file = ReadIdxFile(dir / "labels.gz", IdxKind::kLabels);
  ASSERT_FALSE(file.ok());
  EXPECT_NE(file.status().message().find("labels.gz (decompressed): expected an IDX labels file"),
            std::string::npos)
      << file.status().message();
}

// More decompressed bytes than the file may have: a corrupt stream or another file; either
// way the message says so, rather than describing the first bytes past the limit.
TEST(DataIdx, GzipThatDecompressesToMoreIsCalledCorruptOrAnotherFile) {
  TempDir dir;
  WriteBytes(dir / "labels.gz", GzipBytes(IdxLabels(2049, 60000) + std::string(1000, '\0')));
  Result<IdxFile> file = ReadIdxFile(dir / "labels.gz", IdxKind::kLabels);
  ASSERT_FALSE(file.ok());
  EXPECT_EQ(file.status().code(), Status::Code::kBadInput);
  EXPECT_EQ(file.status().message(), (dir / "labels.gz") +
                                         " decompresses to more than 60008 bytes: corrupt, or "
                                         "not this dataset");
}

// Four flipped bytes inside the deflate data: whatever they do to the output, the message says the
// file is corrupt; it never describes the IDX content of a stream that was not checked.
TEST(DataIdx, CorruptedGzipIsCalledCorrupt) {
  TempDir dir;
  std::string labels = IdxLabels(2049, 60000);
  uint32_t state = 12345;
  for (size_t i = kIdxLabelsHeader; i < labels.size(); ++i) {
    state = state * 1103515245u + 12345u;
    labels[i] = static_cast<char>((state >> 16) % 10);
  }
  const std::string packed = GzipBytes(labels);
  int more = 0;
  for (size_t at = 20; at + 4 < packed.size() - 8; at += (packed.size() - 28) / 24) {
    std::string corrupt = packed;
    for (size_t i = at; i < at + 4; ++i) corrupt[i] = static_cast<char>(corrupt[i] ^ 0xff);
    WriteBytes(dir / "labels.gz", corrupt);
    Result<IdxFile> file = ReadIdxFile(dir / "labels.gz", IdxKind::kLabels);
    ASSERT_FALSE(file.ok()) << "flipped at " << at;
    const std::string& message = file.status().message();
    EXPECT_EQ(file.status().code(), Status::Code::kBadInput) << message;
    EXPECT_TRUE(message.find("is not valid gzip data") != std::string::npos ||
                message.find("is a truncated gzip file") != std::string::npos ||
                message.find("decompresses to more than 60008 bytes") != std::string::npos)
        << "flipped at " << at << ": " << message;
    more += message.find("decompresses to more") != std::string::npos;
  }
  RecordProperty("decompressed_to_more", more);
}

// The gzip trailer (CRC-32 and length) of a stream whose output ends exactly at the limit is
// still checked.
TEST(DataIdx, GzipIsCheckedToItsEndAtTheLimit) {
  std::string packed = GzipBytes("hello");
  Result<std::string> out = Gunzip(packed, 5, "h.gz");
  ASSERT_TRUE(out.ok()) << out.status().message();
  EXPECT_EQ(*out, "hello");
  out = Gunzip(packed, 4, "h.gz");
  ASSERT_FALSE(out.ok());
  EXPECT_EQ(out.status().message(),
            "h.gz decompresses to more than 4 bytes: corrupt, or not this dataset");
  // Members one after another, the last one empty, end exactly at the limit.
  out = Gunzip(GzipBytes("hel") + GzipBytes("lo") + GzipBytes(""), 5, "h.gz");
  ASSERT_TRUE(out.ok()) << out.status().message();
  EXPECT_EQ(*out, "hello");
  out = Gunzip(GzipBytes("hel") + GzipBytes("lo") + GzipBytes("!"), 5, "h.gz");
  EXPECT_FALSE(out.ok());

  packed[packed.size() - 8] ^= 1;  // the CRC-32
  out = Gunzip(packed, 5, "h.gz");
  ASSERT_FALSE(out.ok());
  EXPECT_EQ(out.status().code(), Status::Code::kBadInput);
  EXPECT_NE(out.status().message().find("incorrect data check"), std::string::npos)
      << out.status().message();

  TempDir dir;
  std::string labels = GzipBytes(IdxLabels(2049, 60000));
  labels[labels.size() - 5] ^= 1;  // the CRC-32 of a file of the right size
  WriteBytes(dir / "labels.gz", labels);
  Result<IdxFile> file = ReadIdxFile(dir / "labels.gz", IdxKind::kLabels);
  ASSERT_FALSE(file.ok());
  EXPECT_NE(file.status().message().find("incorrect data check"), std::string::npos)
      << file.status().message();
}

TEST(DataIdx, TruncatedGzip) {
  TempDir dir;
  std::string packed = GzipBytes(IdxLabels(2049, 60000));
  packed.resize(packed.size() / 2);
  WriteBytes(dir / "cut.gz", packed);
  Result<IdxFile> file = ReadIdxFile(dir / "cut.gz", IdxKind::kLabels);
  ASSERT_FALSE(file.ok());
  EXPECT_EQ(file.status().code(), Status::Code::kBadInput);
  EXPECT_NE(file.status().message().find("truncated gzip"), std::string::npos)
      << file.status().message();
}

TEST(DataIdx, MissingFileNamesTheSyscall) {
  Result<IdxFile> file = ReadIdxFile("/nonexistent/train-images-idx3-ubyte", IdxKind::kImages);
  ASSERT_FALSE(file.ok());
  EXPECT_EQ(file.status().code(), Status::Code::kIOError);
  EXPECT_NE(file.status().message().find("open /nonexistent/train-images-idx3-ubyte"),
            std::string::npos);
}

}  // namespace
}  // namespace ratchet
