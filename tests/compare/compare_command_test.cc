// `ratchet compare` as a user runs it: the exit codes, what comes first, --markdown, the
// tolerance options, bad arguments, and that it writes nothing.
#include <gtest/gtest.h>
#include <sys/stat.h>

#include <filesystem>
#include <map>

#include "support/run_binary.h"
#include "support/temp_dir.h"
#include "test_evidence.h"

namespace ratchet {
namespace {

class CompareCommandTest : public ::testing::Test {
 protected:
  void SetUp() override {
    ASSERT_TRUE(WriteTestEvidence(old_, gpu_,
                                  {Qualified("steady", 61.875), Qualified("slower", 50.0),
                                   Qualified("lost", 30.0), Qualified("gone", 20.0)})
                    .ok());
    ASSERT_TRUE(WriteTestEvidence(new_, gpu_,
                                  {Qualified("steady", 62.0), Qualified("slower", 55.0),
                                   Disqualified("lost", {"accuracy"}), Qualified("new", 25.0)})
                    .ok());
  }

  TempDir dir_;
  std::string old_ = dir_ / "old";
  std::string new_ = dir_ / "new";
  Json gpu_ = TestContract(TestLocked(), CudaMachine());
};

TEST_F(CompareCommandTest, TheSameEvidenceTwiceExitsZero) {
  BinaryRun run = RunRatchet({"compare", old_, old_});
  EXPECT_EQ(run.exit_code, 0) << run.out << run.err;
  EXPECT_EQ(run.out.rfind("A: " + old_ + " (complete, lane ", 0), 0u) << run.out;
  EXPECT_NE(run.out.find("records: 4 same, 0 regressed"), std::string::npos) << run.out;
  EXPECT_NE(run.out.find("\nverdict: the same\n"), std::string::npos) << run.out;
  EXPECT_EQ(run.err, "");
}

TEST_F(CompareCommandTest, DifferencesExitOneWithARowPerRecordSortedById) {
  BinaryRun run = RunRatchet({"compare", old_, new_});
  EXPECT_EQ(run.exit_code, 1) << run.out << run.err;
  const std::string table =
      "  record  category        A ranked_ms  B ranked_ms     B/A  note\n"
      "  gone    removed              20.000            -       -\n"
      "  lost    status-changed       30.000            -       -  status qualified -> "
      "disqualified; broken [] -> [accuracy]\n"
      "  new     added                     -       25.000       -\n"
      "  slower  regressed            50.000       55.000  1.100x  +5.000 ms\n"
      "  steady  same                 61.875       62.000  1.002x\n";
  EXPECT_NE(run.out.find(table), std::string::npos) << run.out;
  EXPECT_NE(run.out.find("verdict: differs: 4 records differ\n"), std::string::npos) << run.out;
}

TEST_F(CompareCommandTest, MarkdownForAPullRequest) {
  BinaryRun run = RunRatchet({"compare", "--markdown", old_, new_});
  EXPECT_EQ(run.exit_code, 1) << run.out << run.err;
  EXPECT_EQ(run.out.rfind("## ratchet compare\n\n| | evidence | state |\n", 0), 0u) << run.out;
  EXPECT_NE(run.out.find("\n### Contract\n"), std::string::npos) << run.out;
  EXPECT_NE(run.out.find("\n### Records\n"), std::string::npos) << run.out;
  EXPECT_NE(run.out.find("| record | category | A ranked_ms | B ranked_ms | B/A | note |\n"
                         "| --- | --- | ---: | ---: | ---: | --- |\n"
                         "| `gone` | removed | 20.000 | - | - | |\n"),
            std::string::npos)
      << run.out;
  EXPECT_NE(run.out.find("| `slower` | regressed | 50.000 | 55.000 | 1.100x | \\+5\\.000 ms |\n"),
            std::string::npos)
      << run.out;
}

TEST_F(CompareCommandTest, AContractChangeIsListedFieldByField) {
  LockedInputs upgraded = TestLocked();
  upgraded.rules_sha256 = std::string(64, '9');
  MachineFacts machine = CudaMachine();
  machine.libtorch = "2.6.0";
  ASSERT_TRUE(WriteTestEvidence(dir_ / "upgraded", TestContract(upgraded, machine),
                                {Qualified("steady", 61.875)})
                  .ok());
  ASSERT_TRUE(WriteTestEvidence(dir_ / "plain", gpu_, {Qualified("steady", 61.875)}).ok());
  BinaryRun run = RunRatchet({"compare", dir_ / "plain", dir_ / "upgraded"});
  EXPECT_EQ(run.exit_code, 1) << run.out << run.err;
  const std::string b = std::string(64, 'b'), nine = std::string(64, '9');
  EXPECT_NE(run.out.find("  locked: 1 field differs"), std::string::npos) << run.out;
  EXPECT_NE(run.out.find("  lane: the id differs (A " + gpu_["lane"]["id"].get<std::string>()),
            std::string::npos)
      << run.out;
  // Locked fields first, then the lane's.
  size_t rules = run.out.find("  locked.rules.sha256      " + b + "  " + nine + "\n");
  size_t libtorch = run.out.find("  lane.toolchain.libtorch  2.5.1");
  EXPECT_NE(rules, std::string::npos) << run.out;
  EXPECT_NE(libtorch, std::string::npos) << run.out;
  EXPECT_LT(rules, libtorch);
  EXPECT_NE(run.out.find("timings: not compared (different lanes)"), std::string::npos) << run.out;

  run = RunRatchet({"compare", "--markdown", dir_ / "plain", dir_ / "upgraded"});
  EXPECT_NE(run.out.find("| field | A | B |\n| --- | --- | --- |\n| `locked.rules.sha256` | `" + b +
                         "` | `" + nine + "` |\n"),
            std::string::npos)
      << run.out;
}

TEST_F(CompareCommandTest, IncompleteEvidenceExitsOneAndSaysSoFirst) {
  ASSERT_TRUE(
      WriteTestEvidence(dir_ / "stopped", gpu_, {Qualified("steady", 61.875)}, "interrupted").ok());
  BinaryRun run = RunRatchet({"compare", old_, dir_ / "stopped"});
  EXPECT_EQ(run.exit_code, 1) << run.out << run.err;
  EXPECT_EQ(run.out.rfind("incomplete evidence: the comparison below is no verdict on the records\n"
                          "  B " +
                              dir_ / "stopped" + ": status.json: the run is interrupted",
                          0),
            0u)
      << run.out;

  // Complete on both sides, but a file changed since: still incomplete.
  ASSERT_TRUE(WriteTestEvidence(dir_ / "copy", gpu_,
                                {Qualified("steady", 61.875), Qualified("slower", 50.0),
                                 Qualified("lost", 30.0), Qualified("gone", 20.0)})
                  .ok());
  ASSERT_EQ(chmod((dir_ / "copy/contract.json").c_str(), 0600), 0);
  ASSERT_EQ(truncate((dir_ / "copy/contract.json").c_str(), 10), 0);
  run = RunRatchet({"compare", old_, dir_ / "copy"});
  EXPECT_EQ(run.exit_code, 1) << run.out << run.err;
  EXPECT_EQ(run.out.rfind("incomplete evidence", 0), 0u) << run.out;
  EXPECT_NE(run.out.find("B " + dir_ / "copy" + ": contract.json: size 10 bytes, manifest says "),
            std::string::npos)
      << run.out;
}

TEST_F(CompareCommandTest, ToleranceOptions) {
  // slower is 10% slower: the same under a 20% tolerance, which leaves lost, gone and new.
  BinaryRun run = RunRatchet({"compare", old_, new_, "--relative", "0.2"});
  EXPECT_NE(run.out.find("  slower  same"), std::string::npos) << run.out;
  run = RunRatchet({"compare", old_, new_, "--relative=0", "--absolute-ms", "0.1"});
  EXPECT_NE(run.out.find("  steady  regressed"), std::string::npos) << run.out;
  run = RunRatchet({"compare", old_, new_, "--absolute-ms", "10"});
  EXPECT_NE(run.out.find("  slower  same"), std::string::npos) << run.out;
  for (const char* bad : {"-0.1", "abc", "nan", "inf", ""}) {
    run = RunRatchet({"compare", old_, new_, "--relative", bad});
    EXPECT_EQ(run.exit_code, 2) << bad;
    EXPECT_EQ(run.out, "") << bad;
    EXPECT_NE(
        run.err.find("ratchet compare: error: --relative must be a number of 0 or more, not '" +
                     std::string(bad) + "'"),
        std::string::npos)
        << run.err;
  }
}

TEST_F(CompareCommandTest, BadArgumentsExitTwo) {
  BinaryRun run = RunRatchet({"compare", old_});
  EXPECT_EQ(run.exit_code, 2);
  EXPECT_EQ(run.out, "");
  EXPECT_NE(run.err.find("ratchet compare: error: name two evidence directories, A and B, not 1"),
            std::string::npos)
      << run.err;

  run = RunRatchet({"compare", old_, new_, old_});
  EXPECT_EQ(run.exit_code, 2);
  EXPECT_NE(run.err.find("not 3"), std::string::npos) << run.err;

  run = RunRatchet({"compare", old_, dir_ / "nowhere"});
  EXPECT_EQ(run.exit_code, 2);
  EXPECT_EQ(run.out, "");
  EXPECT_NE(run.err.find("ratchet compare: error: " + dir_ / "nowhere" + " does not exist"),
            std::string::npos)
      << run.err;

  std::filesystem::create_directory(dir_ / "plain-folder");
  run = RunRatchet({"compare", dir_ / "plain-folder", new_});
  EXPECT_EQ(run.exit_code, 2);
  EXPECT_EQ(run.out, "");
  EXPECT_NE(run.err.find(dir_ / "plain-folder" +
                         " is not a ratchet evidence directory (no MANIFEST.json)"),
            std::string::npos)
      << run.err;

  // Both bad: both named.
  run = RunRatchet({"compare", dir_ / "plain-folder", dir_ / "nowhere"});
  EXPECT_EQ(run.exit_code, 2);
  EXPECT_NE(run.err.find("plain-folder is not a ratchet evidence directory"), std::string::npos);
  EXPECT_NE(run.err.find("nowhere does not exist"), std::string::npos);

  run = RunRatchet({"compare", old_, new_, "--write"});
  EXPECT_EQ(run.exit_code, 2);
  EXPECT_NE(run.err.find("--write"), std::string::npos) << run.err;
}

TEST_F(CompareCommandTest, WritesNothing) {
  auto snapshot = [this] {
    std::map<std::string, std::string> files;
    for (const auto& entry : std::filesystem::recursive_directory_iterator(dir_.path())) {
      struct stat info;
      lstat(entry.path().c_str(), &info);
      files[entry.path().string()] = std::to_string(info.st_size) + " " +
                                     std::to_string(info.st_mtim.tv_sec) + "." +
                                     std::to_string(info.st_mtim.tv_nsec);
    }
    return files;
  };
  const auto before = snapshot();
  ASSERT_EQ(before.count(old_ + "/MANIFEST.json"), 1u);
  EXPECT_EQ(RunRatchet({"compare", old_, new_}).exit_code, 1);
  EXPECT_EQ(RunRatchet({"compare", "--markdown", new_, old_}).exit_code, 1);
  EXPECT_EQ(snapshot(), before);
}

TEST(CompareCommand, IsListedAndHasHelp) {
  BinaryRun run = RunRatchet({"--help"});
  EXPECT_NE(run.out.find("  compare "), std::string::npos) << run.out;
  run = RunRatchet({"compare", "--help"});
  EXPECT_EQ(run.exit_code, 0);
  EXPECT_EQ(run.out.rfind("usage: ratchet compare A B [--markdown]", 0), 0u) << run.out;
}

}  // namespace
}  // namespace ratchet
