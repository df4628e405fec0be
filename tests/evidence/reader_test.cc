#include "evidence/reader.h"

#include <gtest/gtest.h>
#include <signal.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstdlib>
#include <filesystem>

#include "core/file.h"
#include "core/sha256.h"
#include "evidence/layout.h"
#include "evidence/writer.h"
#include "example.h"
#include "support/temp_dir.h"

namespace ratchet {
namespace {

bool Contains(const std::string& text, const std::string& part) {
  return text.find(part) != std::string::npos;
}

bool HasFinding(const EvidenceSummary& summary, const std::string& file,
                const std::string& problem_part) {
  for (const EvidenceFinding& finding : summary.findings) {
    if (finding.file == file && Contains(finding.problem, problem_part)) return true;
  }
  return false;
}

// Rewrites DIR/MANIFEST.json to match the folder as it now is, as someone covering their tracks
// would: the manifest then verifies, and only the reader's own checks remain.
void Reseal(const std::string& dir) {
  Result<std::vector<FolderItem>> items = ScanFolder(dir);
  ASSERT_TRUE(items.ok());
  std::vector<ManifestEntry> entries;
  for (const FolderItem& item : *items) {
    if (item.kind == FolderItem::Kind::kFile)
      entries.push_back({item.path, item.bytes, item.sha256});
  }
  ASSERT_TRUE(WriteFileAtomic(dir + "/MANIFEST.json", *ManifestText(entries)).ok());
  ASSERT_TRUE(VerifyManifest(dir).empty());
}

TEST(ReadEvidenceTest, RefusesWhatIsNotAnEvidenceDirectory) {
  TempDir temp;
  ASSERT_EQ(mkdir((temp / "plain").c_str(), 0755), 0);
  Result<EvidenceSummary> plain = ReadEvidence(temp / "plain");
  ASSERT_FALSE(plain.ok());
  EXPECT_EQ(plain.status().code(), Status::Code::kBadInput);
  EXPECT_EQ(plain.status().message(),
            temp / "plain" + " is not a ratchet evidence directory (no MANIFEST.json)");
  ASSERT_TRUE(WriteFileAtomic(temp / "file", "x").ok());
  Result<EvidenceSummary> file = ReadEvidence(temp / "file");
  ASSERT_FALSE(file.ok());
  EXPECT_TRUE(Contains(file.status().message(), "not a folder")) << file.status().message();
  Result<EvidenceSummary> nothing = ReadEvidence(temp / "absent");
  ASSERT_FALSE(nothing.ok());
  EXPECT_EQ(nothing.status().message(), temp / "absent" + " does not exist");
}

TEST(ReadEvidenceTest, AnInterruptedRunVerifiesButIsNotComplete) {
  TempDir temp;
  ASSERT_TRUE(WriteExample(temp / "run", "interrupted", 130).ok());
  Result<EvidenceSummary> summary = ReadEvidence(temp / "run");
  ASSERT_TRUE(summary.ok()) << summary.status().message();
  EXPECT_TRUE(summary->findings.empty());
  EXPECT_FALSE(summary->complete);
  EXPECT_FALSE(summary->partial);
  EXPECT_EQ(summary->status, "interrupted");
  EXPECT_EQ(summary->exit_code, 130);
  EXPECT_EQ(summary->message, "stopped by SIGINT");
}

TEST(ReadEvidenceTest, AParentKilledMidRunLeavesOnlyAnIncompletePartialFolder) {
  TempDir temp;
  const std::string final_dir = temp / "run";
  int ready[2];
  ASSERT_EQ(pipe(ready), 0);
  pid_t child = fork();
  ASSERT_GE(child, 0);
  if (child == 0) {
    // The run: begins writing, says so, and waits for the end it will not see.
    Result<EvidenceWriter> writer = EvidenceWriter::Begin(final_dir);
    bool ok = writer.ok() && writer->WriteJson("contract.json", Json::object()).ok() &&
              writer->CommitSeed(ExampleSeedCommit()).ok() &&
              writer->WriteFile("records/ncm/run-1/labels/01.u8", std::string(10000, '\1')).ok();
    char byte = ok ? 'y' : 'n';
    if (write(ready[1], &byte, 1) != 1) _exit(2);
    for (;;) pause();
  }
  close(ready[1]);
  char byte = 0;
  ASSERT_EQ(read(ready[0], &byte, 1), 1);
  close(ready[0]);
  ASSERT_EQ(kill(child, SIGKILL), 0);
  int status = 0;
  ASSERT_EQ(waitpid(child, &status, 0), child);
  ASSERT_EQ(byte, 'y');
  ASSERT_TRUE(WIFSIGNALED(status) && WTERMSIG(status) == SIGKILL);

  EXPECT_FALSE(PathExists(final_dir));
  std::vector<std::string> partials = FindPartialEvidence(final_dir);
  ASSERT_EQ(partials.size(), 1u);
  const std::string partial = partials[0];
  EXPECT_TRUE(IsPartialEvidence(partial));
  EXPECT_FALSE(PathExists(partial + "/MANIFEST.json"));
  EXPECT_FALSE(PathExists(partial + "/status.json"));

  Result<EvidenceSummary> by_name = ReadEvidence(final_dir);
  ASSERT_FALSE(by_name.ok());
  EXPECT_TRUE(Contains(by_name.status().message(), partial + ", which is incomplete"))
      << by_name.status().message();

  Result<EvidenceSummary> summary = ReadEvidence(partial);
  ASSERT_TRUE(summary.ok()) << summary.status().message();
  EXPECT_FALSE(summary->complete);
  EXPECT_TRUE(summary->partial);
  EXPECT_EQ(summary->status, "partial");
  EXPECT_TRUE(HasFinding(*summary, "MANIFEST.json", "missing"));
  EXPECT_EQ(summary->seed_commit, ExampleSeedCommit());  // what it did write is still readable
  EXPECT_FALSE(VerifyManifest(partial).empty());
}

TEST(ReadEvidenceTest, APartialFolderWithAManifestIsStillIncomplete) {
  // Killed between writing MANIFEST.json and renaming the folder into place.
  TempDir temp;
  ASSERT_TRUE(WriteExample(temp / "run").ok());
  const std::string partial = temp / ".run.partial-12345";
  ASSERT_EQ(rename((temp / "run").c_str(), partial.c_str()), 0);
  Result<EvidenceSummary> summary = ReadEvidence(partial);
  ASSERT_TRUE(summary.ok()) << summary.status().message();
  EXPECT_FALSE(summary->complete);
  EXPECT_TRUE(summary->partial);
  EXPECT_FALSE(summary->findings.empty());
}

TEST(ReadEvidenceTest, ARevealThatDoesNotMatchTheCommitIsAFinding) {
  TempDir temp;
  const std::string dir = temp / "run";
  ASSERT_TRUE(WriteExample(dir).ok());
  std::string other = ExampleSeedHex();
  other[63] = other[63] == 'f' ? 'e' : 'f';
  ASSERT_TRUE(WriteFileAtomic(dir + "/seed.reveal", other + "\n").ok());
  Reseal(dir);
  Result<EvidenceSummary> summary = ReadEvidence(dir);
  ASSERT_TRUE(summary.ok()) << summary.status().message();
  EXPECT_TRUE(HasFinding(*summary, "seed.reveal", "not the one seed.commit holds"));
  EXPECT_FALSE(summary->complete);
}

TEST(ReadEvidenceTest, ACompleteRunWithoutItsReportIsNotComplete) {
  TempDir temp;
  const std::string dir = temp / "run";
  ASSERT_TRUE(WriteExample(dir).ok());
  ASSERT_EQ(unlink((dir + "/report.json").c_str()), 0);
  Reseal(dir);
  Result<EvidenceSummary> summary = ReadEvidence(dir);
  ASSERT_TRUE(summary.ok()) << summary.status().message();
  EXPECT_TRUE(HasFinding(*summary, "report.json", "missing"));
  EXPECT_FALSE(summary->complete);
}

TEST(ReadEvidenceTest, AMalformedStatusIsAFinding) {
  TempDir temp;
  const std::string dir = temp / "run";
  ASSERT_TRUE(WriteExample(dir).ok());
  ASSERT_TRUE(WriteFileAtomic(dir + "/status.json",
                              "{\"schema\": \"ratchet.status/1\", \"status\": \"complete\", "
                              "\"exit_code\": 0}\n")
                  .ok());
  Reseal(dir);
  Result<EvidenceSummary> summary = ReadEvidence(dir);
  ASSERT_TRUE(summary.ok()) << summary.status().message();
  EXPECT_TRUE(HasFinding(*summary, "status.json", "field \"message\" is missing"));
  EXPECT_EQ(summary->status, "unknown");
  EXPECT_FALSE(summary->complete);
}

TEST(ReadEvidenceTest, NamesOfPartialFolders) {
  EXPECT_TRUE(IsPartialEvidence("evidence/.run-1.partial-123"));
  EXPECT_TRUE(IsPartialEvidence(".x.partial-0"));
  EXPECT_FALSE(IsPartialEvidence("evidence/run-1"));
  EXPECT_FALSE(IsPartialEvidence("evidence/.run-1.partial-"));
  EXPECT_FALSE(IsPartialEvidence("evidence/.run-1.partial-12a"));
  EXPECT_FALSE(IsPartialEvidence("evidence/run.partial-1"));
}

// The fixed directory under testdata/ pins the format: the writer, given the example's inputs,
// writes it byte for byte, and the reader reads it as complete.
std::string FixtureDir() {
  const char* source = std::getenv("RATCHET_SOURCE_DIR");
  return std::string(source ? source : RATCHET_EVIDENCE_TEST_SOURCE_DIR) +
         "/tests/evidence/testdata/complete";
}

TEST(EvidenceFormatTest, TheWriterWritesThePinnedDirectoryByteForByte) {
  TempDir temp;
  ASSERT_TRUE(WriteExample(temp / "run").ok());
  std::vector<std::string> written, pinned;
  for (const auto& entry : std::filesystem::recursive_directory_iterator(temp / "run")) {
    if (entry.is_regular_file())
      written.push_back(std::filesystem::relative(entry.path(), temp / "run"));
  }
  for (const auto& entry : std::filesystem::recursive_directory_iterator(FixtureDir())) {
    if (entry.is_regular_file())
      pinned.push_back(std::filesystem::relative(entry.path(), FixtureDir()));
  }
  std::sort(written.begin(), written.end());
  std::sort(pinned.begin(), pinned.end());
  ASSERT_EQ(written, pinned);
  for (const std::string& file : written) {
    EXPECT_EQ(*ReadFile(temp / "run/" + file), *ReadFile(FixtureDir() + "/" + file)) << file;
  }
}

TEST(EvidenceFormatTest, ThePinnedDirectoryReadsComplete) {
  Result<EvidenceSummary> summary = ReadEvidence(FixtureDir());
  ASSERT_TRUE(summary.ok()) << summary.status().message();
  for (const EvidenceFinding& finding : summary->findings) {
    ADD_FAILURE() << finding.file << ": " << finding.problem;
  }
  EXPECT_TRUE(summary->complete);
  EXPECT_EQ(summary->manifest.size(), 13u);
  EXPECT_EQ(summary->manifest_sha256, *Sha256File(FixtureDir() + "/MANIFEST.json"));
}

}  // namespace
}  // namespace ratchet
