#include "evidence/writer.h"

#include <gtest/gtest.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cmath>
#include <filesystem>

#include "core/file.h"
#include "core/sha256.h"
#include "evidence/layout.h"
#include "evidence/manifest.h"
#include "evidence/reader.h"
#include "example.h"
#include "support/temp_dir.h"

namespace ratchet {
namespace {

bool Contains(const std::string& text, const std::string& part) {
  return text.find(part) != std::string::npos;
}

// Every regular file under `dir`, relative, sorted.
std::vector<std::string> FilesUnder(const std::string& dir) {
  std::vector<std::string> files;
  for (const auto& entry : std::filesystem::recursive_directory_iterator(dir)) {
    if (entry.is_regular_file()) {
      files.push_back(std::filesystem::relative(entry.path(), dir).string());
    }
  }
  std::sort(files.begin(), files.end());
  return files;
}

TEST(EvidenceWriterTest, AFinishedRunVerifiesCleanAndReadsComplete) {
  TempDir temp;
  const std::string dir = temp / "run";
  ASSERT_TRUE(WriteExample(dir).ok());
  EXPECT_TRUE(VerifyManifest(dir).empty());
  Result<EvidenceSummary> summary = ReadEvidence(dir);
  ASSERT_TRUE(summary.ok()) << summary.status().message();
  EXPECT_TRUE(summary->complete);
  EXPECT_EQ(summary->status, "complete");
  EXPECT_EQ(summary->exit_code, 0);
  EXPECT_EQ(summary->seed_commit, ExampleSeedCommit());
  EXPECT_EQ(summary->seed_reveal, ExampleSeedHex());
  EXPECT_EQ(summary->contract["lane"]["id"], "0123456789abcdef");
  EXPECT_EQ(summary->report["records"]["ncm"]["ranked_ms"], 61.875);
  // Only the final folder is left: the partial one was renamed into place.
  EXPECT_TRUE(FindPartialEvidence(dir).empty());
  EXPECT_EQ(std::distance(std::filesystem::directory_iterator(temp.path()),
                          std::filesystem::directory_iterator()),
            1);
}

TEST(EvidenceWriterTest, TheManifestListsEveryOtherFileWithItsSizeAndHashOnDisk) {
  TempDir temp;
  const std::string dir = temp / "run";
  ASSERT_TRUE(WriteExample(dir).ok());
  Result<std::vector<ManifestEntry>> manifest = ReadManifest(dir);
  ASSERT_TRUE(manifest.ok()) << manifest.status().message();
  std::vector<std::string> listed;
  for (const ManifestEntry& entry : *manifest) {
    listed.push_back(entry.path);
    EXPECT_EQ(entry.sha256, *Sha256File(dir + "/" + entry.path)) << entry.path;
    EXPECT_EQ(entry.bytes, std::filesystem::file_size(dir + "/" + entry.path)) << entry.path;
  }
  std::vector<std::string> on_disk = FilesUnder(dir);
  on_disk.erase(std::find(on_disk.begin(), on_disk.end(), "MANIFEST.json"));
  EXPECT_EQ(listed, on_disk);  // sorted, and nothing left out
  for (const char* name :
       {"status.json", "seed.commit", "seed.reveal", "contract.json", "report.json",
        "records/ncm/run-1/labels/02.u8", "records/ncm/run-1/submission/ncm.py"}) {
    EXPECT_NE(std::find(listed.begin(), listed.end(), name), listed.end()) << name;
  }
  EXPECT_EQ(*ManifestSha256(dir), *Sha256File(dir + "/MANIFEST.json"));
}

TEST(EvidenceWriterTest, JsonIsIndentedWithSortedKeysAndATrailingNewline) {
  TempDir temp;
  Result<EvidenceWriter> writer = EvidenceWriter::Begin(temp / "run");
  ASSERT_TRUE(writer.ok());
  ASSERT_TRUE(writer->WriteJson("x.json", Json{{"b", 1}, {"a", Json::array({0.5})}}).ok());
  EXPECT_EQ(*ReadFile(writer->partial_path() + "/x.json"),
            "{\n  \"a\": [\n    0.5\n  ],\n  \"b\": 1\n}\n");
  Status nan = writer->WriteJson("y.json", Json{{"calls", Json::array({Json{{"ms", NAN}}})}});
  ASSERT_FALSE(nan.ok());
  EXPECT_TRUE(Contains(nan.message(), "calls[0].ms")) << nan.message();
  EXPECT_FALSE(PathExists(writer->partial_path() + "/y.json"));
}

TEST(EvidenceWriterTest, StatusJsonSaysHowTheRunEnded) {
  TempDir temp;
  ASSERT_TRUE(WriteExample(temp / "run", "interrupted", 130).ok());
  EXPECT_EQ(*ReadFile(temp / "run/status.json"),
            "{\n  \"exit_code\": 130,\n  \"message\": \"stopped by SIGINT\",\n"
            "  \"schema\": \"ratchet.status/1\",\n  \"status\": \"interrupted\"\n}\n");
}

TEST(EvidenceWriterTest, BeginOnAnExistingFolderFailsWithoutTouchingIt) {
  TempDir temp;
  const std::string dir = temp / "run";
  ASSERT_TRUE(WriteExample(dir).ok());
  const std::string manifest = *ReadFile(dir + "/MANIFEST.json");
  Result<EvidenceWriter> again = EvidenceWriter::Begin(dir);
  ASSERT_FALSE(again.ok());
  EXPECT_TRUE(Contains(again.status().message(), "already exists")) << again.status().message();
  EXPECT_EQ(*ReadFile(dir + "/MANIFEST.json"), manifest);
  EXPECT_TRUE(VerifyManifest(dir).empty());
  EXPECT_TRUE(FindPartialEvidence(dir).empty());  // no partial folder was started beside it
}

TEST(EvidenceWriterTest, BeginRefusesASymlinkedParent) {
  TempDir temp;
  ASSERT_EQ(mkdir((temp / "real").c_str(), 0755), 0);
  ASSERT_EQ(symlink((temp / "real").c_str(), (temp / "alias").c_str()), 0);
  EXPECT_FALSE(EvidenceWriter::Begin(temp / "alias/run").ok());
  EXPECT_TRUE(std::filesystem::is_empty(temp / "real"));
}

TEST(EvidenceWriterTest, AFileIsWrittenOnce) {
  TempDir temp;
  Result<EvidenceWriter> writer = EvidenceWriter::Begin(temp / "run");
  ASSERT_TRUE(writer.ok());
  ASSERT_TRUE(writer->WriteFile("contract.json", "{}\n").ok());
  Status twice = writer->WriteFile("contract.json", "{\"other\": 1}\n");
  ASSERT_FALSE(twice.ok());
  EXPECT_TRUE(Contains(twice.message(), "written already")) << twice.message();
  EXPECT_EQ(*ReadFile(writer->partial_path() + "/contract.json"), "{}\n");
}

TEST(EvidenceWriterTest, RefusesBadAndReservedNames) {
  TempDir temp;
  Result<EvidenceWriter> writer = EvidenceWriter::Begin(temp / "run");
  ASSERT_TRUE(writer.ok());
  for (const char* name :
       {"", "../escape", "/etc/passwd", "a//b", "a/", ".hidden", "a/./b", "a/../b", "with space",
        "new\nline", "MANIFEST.json", "status.json", "seed.commit", "seed.reveal"}) {
    EXPECT_FALSE(writer->WriteFile(name, "x").ok()) << name;
  }
  EXPECT_TRUE(std::filesystem::is_empty(writer->partial_path()));
  EXPECT_FALSE(PathExists(temp / "escape"));
}

TEST(EvidenceWriterTest, AFileAndAFolderNeverShareAName) {
  TempDir temp;
  Result<EvidenceWriter> writer = EvidenceWriter::Begin(temp / "run");
  ASSERT_TRUE(writer.ok());
  ASSERT_TRUE(writer->WriteFile("notes/a.txt", "a").ok());
  EXPECT_FALSE(writer->WriteFile("notes", "b").ok());
  ASSERT_TRUE(writer->WriteFile("single", "c").ok());
  EXPECT_FALSE(writer->WriteFile("single/inner", "d").ok());
  EXPECT_EQ(*ReadFile(writer->partial_path() + "/single"), "c");
}

TEST(EvidenceWriterTest, CallsAreRecordedOnlyBetweenSeedCommitAndReveal) {
  TempDir temp;
  Result<EvidenceWriter> writer = EvidenceWriter::Begin(temp / "run");
  ASSERT_TRUE(writer.ok());
  Status early = writer->WriteFile("records/ncm/run-1/calls.json", "[]\n");
  ASSERT_FALSE(early.ok());
  EXPECT_TRUE(Contains(early.message(), "before the run seed is committed")) << early.message();
  ASSERT_TRUE(writer->CommitSeed(ExampleSeedCommit()).ok());
  ASSERT_TRUE(writer->WriteFile("records/ncm/run-1/calls.json", "[]\n").ok());
  ASSERT_TRUE(writer->RevealSeed(ExampleSeedHex()).ok());
  Status late = writer->WriteFile("records/ncm/run-1/judge.json", "{}\n");
  ASSERT_FALSE(late.ok());
  EXPECT_TRUE(Contains(late.message(), "after the run seed was revealed")) << late.message();
  EXPECT_TRUE(writer->WriteJson("report.json", Json::object()).ok());  // the report comes after
}

TEST(EvidenceWriterTest, ARevealThatDoesNotMatchTheCommitIsRefused) {
  TempDir temp;
  Result<EvidenceWriter> writer = EvidenceWriter::Begin(temp / "run");
  ASSERT_TRUE(writer.ok());
  EXPECT_FALSE(writer->RevealSeed(ExampleSeedHex()).ok());  // nothing committed yet
  ASSERT_TRUE(writer->CommitSeed(ExampleSeedCommit()).ok());
  EXPECT_EQ(*ReadFile(writer->partial_path() + "/seed.commit"), ExampleSeedCommit() + "\n");
  EXPECT_FALSE(writer->CommitSeed(ExampleSeedCommit()).ok());  // once
  std::string other = ExampleSeedHex();
  other[0] = other[0] == '0' ? '1' : '0';
  Status wrong = writer->RevealSeed(other);
  ASSERT_FALSE(wrong.ok());
  EXPECT_TRUE(Contains(wrong.message(), ExampleSeedCommit())) << wrong.message();
  EXPECT_FALSE(Contains(wrong.message(), other)) << "a refused seed is not printed";
  EXPECT_FALSE(PathExists(writer->partial_path() + "/seed.reveal"));
  EXPECT_FALSE(writer->RevealSeed("not hex").ok());
  ASSERT_TRUE(writer->RevealSeed(ExampleSeedHex()).ok());
  EXPECT_EQ(*ReadFile(writer->partial_path() + "/seed.reveal"), ExampleSeedHex() + "\n");
}

TEST(EvidenceWriterTest, ACommitmentMustBeASha256) {
  TempDir temp;
  Result<EvidenceWriter> writer = EvidenceWriter::Begin(temp / "run");
  ASSERT_TRUE(writer.ok());
  EXPECT_FALSE(writer->CommitSeed("abc").ok());
  EXPECT_FALSE(writer->CommitSeed(std::string(64, 'G')).ok());
  EXPECT_FALSE(writer->CommitSeed(std::string(64, 'A')).ok());  // lowercase only
  EXPECT_FALSE(PathExists(writer->partial_path() + "/seed.commit"));
}

TEST(EvidenceWriterTest, ACompleteRunNeedsItsContractReportAndSeeds) {
  TempDir temp;
  Result<EvidenceWriter> writer = EvidenceWriter::Begin(temp / "run");
  ASSERT_TRUE(writer.ok());
  ASSERT_TRUE(writer->WriteJson("contract.json", Json::object()).ok());
  ASSERT_TRUE(writer->CommitSeed(ExampleSeedCommit()).ok());
  Status refused = writer->Finish("complete", 0, "");
  ASSERT_FALSE(refused.ok());
  EXPECT_TRUE(Contains(refused.message(), "report.json")) << refused.message();
  EXPECT_FALSE(writer->finished());
  EXPECT_FALSE(writer->Finish("done", 0, "").ok());
  EXPECT_FALSE(writer->Finish("failed", 256, "").ok());
  // A refused Finish changed nothing: the run can still be finished as what it is.
  ASSERT_TRUE(writer->Finish("failed", 3, "no worker").ok());
  Result<EvidenceSummary> summary = ReadEvidence(temp / "run");
  ASSERT_TRUE(summary.ok()) << summary.status().message();
  EXPECT_TRUE(summary->findings.empty());
  EXPECT_FALSE(summary->complete);
  EXPECT_EQ(summary->status, "failed");
  EXPECT_EQ(summary->exit_code, 3);
  EXPECT_EQ(summary->message, "no worker");
}

TEST(EvidenceWriterTest, NothingIsWrittenAfterFinish) {
  TempDir temp;
  Result<EvidenceWriter> writer = EvidenceWriter::Begin(temp / "run");
  ASSERT_TRUE(writer.ok());
  ASSERT_TRUE(writer->Finish("failed", 2, "bad baseline").ok());
  EXPECT_FALSE(writer->WriteFile("late.txt", "x").ok());
  EXPECT_FALSE(writer->Finish("failed", 2, "again").ok());
  EXPECT_FALSE(PathExists(temp / "run/late.txt"));
  EXPECT_TRUE(VerifyManifest(temp / "run").empty());
}

TEST(EvidenceWriterTest, FinishRefusesAPartialFolderChangedBehindItsBack) {
  TempDir temp;
  Result<EvidenceWriter> writer = EvidenceWriter::Begin(temp / "run");
  ASSERT_TRUE(writer.ok());
  ASSERT_TRUE(WriteExampleFiles(&*writer).ok());
  const std::string labels = writer->partial_path() + "/records/ncm/run-1/labels/01.u8";
  std::string bytes = *ReadFile(labels);
  bytes[5000] ^= 1;
  ASSERT_TRUE(WriteFileAtomic(labels, bytes).ok());
  Status status = writer->Finish("complete", 0, "");
  ASSERT_FALSE(status.ok());
  EXPECT_TRUE(Contains(status.message(), "records/ncm/run-1/labels/01.u8")) << status.message();
  EXPECT_FALSE(PathExists(temp / "run"));
  EXPECT_TRUE(IsDirectory(writer->partial_path()));
}

TEST(EvidenceWriterTest, FinishRefusesAFileItDidNotWrite) {
  TempDir temp;
  Result<EvidenceWriter> writer = EvidenceWriter::Begin(temp / "run");
  ASSERT_TRUE(writer.ok());
  ASSERT_TRUE(WriteExampleFiles(&*writer).ok());
  ASSERT_TRUE(WriteFileAtomic(writer->partial_path() + "/records/planted.txt", "x").ok());
  Status status = writer->Finish("complete", 0, "");
  ASSERT_FALSE(status.ok());
  EXPECT_TRUE(Contains(status.message(), "records/planted.txt")) << status.message();
  EXPECT_FALSE(PathExists(temp / "run"));
}

}  // namespace
}  // namespace ratchet
