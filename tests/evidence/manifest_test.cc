#include "evidence/manifest.h"

#include <gtest/gtest.h>
#include <sys/stat.h>
#include <unistd.h>

#include <filesystem>

#include "core/file.h"
#include "core/sha256.h"
#include "evidence/reader.h"
#include "example.h"
#include "support/temp_dir.h"

namespace ratchet {
namespace {

bool Contains(const std::string& text, const std::string& part) {
  return text.find(part) != std::string::npos;
}

bool HasFinding(const std::vector<EvidenceFinding>& findings, const std::string& file,
                const std::string& problem_part) {
  for (const EvidenceFinding& finding : findings) {
    if (finding.file == file && Contains(finding.problem, problem_part)) return true;
  }
  return false;
}

std::string Describe(const std::vector<EvidenceFinding>& findings) {
  std::string text;
  for (const EvidenceFinding& finding : findings)
    text += finding.file + ": " + finding.problem + "\n";
  return text.empty() ? "no findings" : text;
}

class ManifestTest : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = temp_ / "run";
    ASSERT_TRUE(WriteExample(dir_).ok());
    ASSERT_TRUE(VerifyManifest(dir_).empty());
  }
  std::string Path(const std::string& relative) const { return dir_ + "/" + relative; }
  bool Complete() const {
    Result<EvidenceSummary> summary = ReadEvidence(dir_);
    return summary.ok() && summary->complete;
  }

  TempDir temp_;
  std::string dir_;
};

TEST_F(ManifestTest, OneChangedByteInAnyFileIsFoundAndNamed) {
  std::vector<std::string> files;
  for (const auto& entry : std::filesystem::recursive_directory_iterator(dir_)) {
    if (entry.is_regular_file()) files.push_back(std::filesystem::relative(entry.path(), dir_));
  }
  ASSERT_GE(files.size(), 13u);  // every file of the layout is in the example
  for (const std::string& file : files) {
    const std::string original = *ReadFile(Path(file));
    ASSERT_FALSE(original.empty()) << file;
    for (size_t at : {size_t{0}, original.size() / 2, original.size() - 1}) {
      std::string changed = original;
      changed[at] ^= 0x01;
      ASSERT_TRUE(WriteFileAtomic(Path(file), changed).ok());
      std::vector<EvidenceFinding> findings = VerifyManifest(dir_);
      if (file == "MANIFEST.json") {
        // The manifest's own bytes: an edit is found, whatever it touched.
        EXPECT_FALSE(findings.empty()) << "byte " << at << " of " << file;
      } else {
        EXPECT_TRUE(HasFinding(findings, file, "changed: sha256 " + Sha256Hex(changed)))
            << "byte " << at << " of " << file << ":\n"
            << Describe(findings);
        EXPECT_EQ(findings.size(), 1u) << Describe(findings);
      }
      EXPECT_FALSE(Complete()) << "byte " << at << " of " << file;
      ASSERT_TRUE(WriteFileAtomic(Path(file), original).ok());
    }
  }
  EXPECT_TRUE(VerifyManifest(dir_).empty());
  EXPECT_TRUE(Complete());
}

TEST_F(ManifestTest, AnEditedManifestChangesItsSha256) {
  const std::string before = *ManifestSha256(dir_);
  std::string text = *ReadFile(Path("MANIFEST.json"));
  text.insert(text.size() - 1, " ");  // still the same JSON
  ASSERT_TRUE(WriteFileAtomic(Path("MANIFEST.json"), text).ok());
  EXPECT_NE(*ManifestSha256(dir_), before);
  EXPECT_TRUE(HasFinding(VerifyManifest(dir_), "MANIFEST.json", "not in the form ratchet writes"));
}

// One read gives all three: the entries, the sha256 of the very bytes read, and the findings;
// a manifest that cannot be read is one finding and no sha256.
TEST_F(ManifestTest, OneReadGivesTheEntriesTheSha256AndTheFindings) {
  const std::string bytes = *ReadFile(Path("MANIFEST.json"));
  VerifiedManifest clean = ReadVerifiedManifest(dir_);
  EXPECT_EQ(clean.sha256, Sha256Hex(bytes));
  EXPECT_EQ(clean.entries.size(), ReadManifest(dir_)->size());
  EXPECT_TRUE(clean.findings.empty()) << Describe(clean.findings);

  std::string edited = bytes;
  edited.insert(edited.size() - 1, " ");
  ASSERT_TRUE(WriteFileAtomic(Path("MANIFEST.json"), edited).ok());
  VerifiedManifest spaced = ReadVerifiedManifest(dir_);
  EXPECT_EQ(spaced.sha256, Sha256Hex(edited));
  EXPECT_TRUE(HasFinding(spaced.findings, "MANIFEST.json", "not in the form ratchet writes"));

  ASSERT_EQ(unlink(Path("MANIFEST.json").c_str()), 0);
  VerifiedManifest gone = ReadVerifiedManifest(dir_);
  EXPECT_TRUE(gone.sha256.empty());
  EXPECT_TRUE(gone.entries.empty());
  EXPECT_EQ(gone.findings.size(), 1u) << Describe(gone.findings);
}

TEST_F(ManifestTest, AMissingFileIsFound) {
  ASSERT_EQ(unlink(Path("records/ncm/run-1/labels/02.u8").c_str()), 0);
  std::vector<EvidenceFinding> findings = VerifyManifest(dir_);
  EXPECT_TRUE(HasFinding(findings, "records/ncm/run-1/labels/02.u8", "missing"))
      << Describe(findings);
  EXPECT_EQ(findings.size(), 1u) << Describe(findings);
  EXPECT_FALSE(Complete());
}

TEST_F(ManifestTest, AnExtraFileOrFolderIsFound) {
  ASSERT_TRUE(WriteFileAtomic(Path("records/ncm/run-1/labels/03.u8"), "x").ok());
  ASSERT_EQ(mkdir(Path("records/other").c_str(), 0755), 0);
  std::vector<EvidenceFinding> findings = VerifyManifest(dir_);
  EXPECT_TRUE(HasFinding(findings, "records/ncm/run-1/labels/03.u8", "extra (not in the manifest)"))
      << Describe(findings);
  EXPECT_TRUE(HasFinding(findings, "records/other", "extra folder")) << Describe(findings);
  EXPECT_EQ(findings.size(), 2u) << Describe(findings);
  EXPECT_FALSE(Complete());
}

TEST_F(ManifestTest, ASymlinkInPlaceOfAFileIsFoundEvenWhenItsTargetMatches) {
  const std::string file = "records/ncm/run-1/calls.json";
  ASSERT_EQ(rename(Path(file).c_str(), (temp_ / "calls.json").c_str()), 0);
  ASSERT_EQ(symlink((temp_ / "calls.json").c_str(), Path(file).c_str()), 0);
  std::vector<EvidenceFinding> findings = VerifyManifest(dir_);
  EXPECT_TRUE(HasFinding(findings, file, "symlink")) << Describe(findings);
  EXPECT_EQ(findings.size(), 1u) << Describe(findings);
  EXPECT_FALSE(Complete());
}

TEST_F(ManifestTest, ASymlinkedFolderIsNeverEntered) {
  ASSERT_EQ(rename(Path("records/ncm/run-1/logs").c_str(), (temp_ / "logs").c_str()), 0);
  ASSERT_EQ(symlink((temp_ / "logs").c_str(), Path("records/ncm/run-1/logs").c_str()), 0);
  std::vector<EvidenceFinding> findings = VerifyManifest(dir_);
  EXPECT_TRUE(HasFinding(findings, "records/ncm/run-1/logs", "symlink")) << Describe(findings);
  EXPECT_TRUE(HasFinding(findings, "records/ncm/run-1/logs/01.log", "missing"))
      << Describe(findings);
  EXPECT_FALSE(Complete());
}

TEST_F(ManifestTest, AFifoInPlaceOfAFileIsFoundWithoutBlocking) {
  const std::string file = "records/ncm/run-1/logs/01.log";
  ASSERT_EQ(unlink(Path(file).c_str()), 0);
  ASSERT_EQ(mkfifo(Path(file).c_str(), 0644), 0);  // opening it to read would wait forever
  std::vector<EvidenceFinding> findings = VerifyManifest(dir_);
  EXPECT_TRUE(HasFinding(findings, file, "not a regular file")) << Describe(findings);
  EXPECT_FALSE(Complete());
}

TEST_F(ManifestTest, ATruncatedManifestIsAFinding) {
  const std::string text = *ReadFile(Path("MANIFEST.json"));
  ASSERT_TRUE(WriteFileAtomic(Path("MANIFEST.json"), text.substr(0, text.size() / 2)).ok());
  Result<std::vector<ManifestEntry>> manifest = ReadManifest(dir_);
  ASSERT_FALSE(manifest.ok());
  EXPECT_TRUE(Contains(manifest.status().message(), "MANIFEST.json is not valid JSON"))
      << manifest.status().message();
  std::vector<EvidenceFinding> findings = VerifyManifest(dir_);
  ASSERT_EQ(findings.size(), 1u) << Describe(findings);
  EXPECT_EQ(findings[0].file, "MANIFEST.json");
  Result<EvidenceSummary> summary = ReadEvidence(dir_);
  ASSERT_TRUE(summary.ok()) << summary.status().message();
  EXPECT_FALSE(summary->complete);
  EXPECT_EQ(summary->status, "complete");  // what status.json says; the findings overrule it
}

TEST_F(ManifestTest, ASymlinkedManifestIsNeverRead) {
  ASSERT_EQ(rename(Path("MANIFEST.json").c_str(), (temp_ / "MANIFEST.json").c_str()), 0);
  ASSERT_EQ(symlink((temp_ / "MANIFEST.json").c_str(), Path("MANIFEST.json").c_str()), 0);
  std::vector<EvidenceFinding> findings = VerifyManifest(dir_);
  EXPECT_TRUE(HasFinding(findings, "MANIFEST.json", "symlink")) << Describe(findings);
  EXPECT_FALSE(ManifestSha256(dir_).ok());
  EXPECT_FALSE(Complete());
}

// The manifest's grammar, on plain text.

constexpr char kHash[] = "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855";

std::string ManifestWith(const std::string& files) {
  return std::string("{\"schema\": \"ratchet.manifest/1\", \"files\": [") + files + "]}";
}

std::string Entry(const std::string& path, const std::string& bytes = "0",
                  const std::string& sha256 = kHash) {
  return "{\"path\": \"" + path + "\", \"bytes\": " + bytes + ", \"sha256\": \"" + sha256 + "\"}";
}

TEST(ParseManifestTest, ReadsWhatManifestTextWrites) {
  std::vector<ManifestEntry> entries = {{"b/c.u8", 10000, kHash}, {"a.json", 2, kHash}};
  Result<std::string> text = ManifestText(entries);
  ASSERT_TRUE(text.ok());
  Result<std::vector<ManifestEntry>> parsed = ParseManifest(*text, "MANIFEST.json");
  ASSERT_TRUE(parsed.ok()) << parsed.status().message();
  ASSERT_EQ(parsed->size(), 2u);
  EXPECT_EQ((*parsed)[0].path, "a.json");  // sorted on the way out
  EXPECT_EQ((*parsed)[1].bytes, 10000u);
}

TEST(ParseManifestTest, RefusesWhatIsNotAManifestNamingTheField) {
  struct Case {
    std::string text, message_part;
  };
  for (const Case& c : std::vector<Case>{
           {"[]", "the top is not an object"},
           {"{\"schema\": \"ratchet.manifest/2\", \"files\": []}", "field \"schema\""},
           {"{\"schema\": \"ratchet.manifest/1\"}", "field \"files\" is missing"},
           {ManifestWith(Entry("b") + "," + Entry("a")), "field \"files[1].path\""},
           {ManifestWith(Entry("a") + "," + Entry("a")), "field \"files[1].path\""},
           {ManifestWith(Entry("../a")), "field \"files[0].path\""},
           {ManifestWith(Entry("MANIFEST.json")), "names the manifest itself"},
           {ManifestWith(Entry("a", "-1")), "field \"files[0].bytes\""},
           {ManifestWith(Entry("a", "1.5")), "field \"files[0].bytes\""},
           {ManifestWith(Entry("a", "0", "abc")), "field \"files[0].sha256\""},
           {ManifestWith(Entry("a", "0", std::string(64, 'E'))), "field \"files[0].sha256\""},
           {ManifestWith("{\"path\": \"a\", \"bytes\": 0, \"sha256\": \"" + std::string(kHash) +
                         "\", \"mode\": 420}"),
            "unknown field \"files[0].mode\""},
           {"{\"schema\": \"ratchet.manifest/1\", \"files\": [], \"signed\": true}",
            "unknown field \"signed\""},
       }) {
    Result<std::vector<ManifestEntry>> parsed = ParseManifest(c.text, "MANIFEST.json");
    ASSERT_FALSE(parsed.ok()) << c.text;
    EXPECT_TRUE(Contains(parsed.status().message(), c.message_part)) << c.text << "\n"
                                                                     << parsed.status().message();
    EXPECT_EQ(parsed.status().message().rfind("MANIFEST.json", 0), 0u) << parsed.status().message();
  }
}

// The comparison, on plain values.

TEST(CompareWithManifestTest, NamesEachDifference) {
  using Kind = FolderItem::Kind;
  std::vector<FolderItem> items = {
      {"a", Kind::kFolder, 0, "", ""},
      {"a/same", Kind::kFile, 3, kHash, ""},
      {"a/longer", Kind::kFile, 4, kHash, ""},
      {"a/other", Kind::kFile, 3, std::string(64, '0'), ""},
      {"a/link", Kind::kSymlink, 0, "", ""},
      {"new", Kind::kFile, 1, kHash, ""},
      {"empty", Kind::kFolder, 0, "", ""},
  };
  std::vector<ManifestEntry> entries = {
      {"a/gone", 1, kHash},  {"a/link", 1, kHash}, {"a/longer", 3, kHash},
      {"a/other", 3, kHash}, {"a/same", 3, kHash},
  };
  std::vector<EvidenceFinding> findings = CompareWithManifest(items, entries);
  std::vector<std::pair<std::string, std::string>> got;
  for (const EvidenceFinding& finding : findings) got.emplace_back(finding.file, finding.problem);
  std::vector<std::pair<std::string, std::string>> want = {
      {"a/gone", "missing"},
      {"a/link", "a symlink where the manifest lists a file (never followed)"},
      {"a/longer", "size 4 bytes, manifest says 3 bytes"},
      {"a/other", "changed: sha256 " + std::string(64, '0') + ", manifest says " + kHash},
      {"empty", "extra folder (no file of the manifest is in it)"},
      {"new", "extra (not in the manifest)"},
  };
  EXPECT_EQ(got, want);
}

}  // namespace
}  // namespace ratchet
