// `ratchet compare` as a user runs it, over evidence every figure of which its calls give
// (tests/audit/fixture.h): each side verified first, the records as their calls give them (never
// as report.json says), the exit codes, what comes first, --markdown, the tolerance options, bad
// arguments, and that it writes nothing.
#include <gtest/gtest.h>
#include <sys/stat.h>

#include <filesystem>
#include <map>

#include "../audit/fixture.h"
#include "support/run_binary.h"
#include "support/temp_dir.h"

namespace ratchet {
namespace {

FixtureRecord Timed(const std::string& id, double ms, const std::string& breaks = "") {
  FixtureRecord record;
  record.id = id;
  record.ms = ms;
  record.breaks = breaks;
  return record;
}

// Evidence on one H200 lane with `records`.
FixtureOptions OnH200(std::vector<FixtureRecord> records) {
  FixtureOptions options;
  options.device_kind = "cuda";
  options.records = std::move(records);
  return options;
}

// The line of the text table for `id`, from its first character to its end; "" when none.
std::string Row(const std::string& out, const std::string& id) {
  size_t at = out.find("\n  " + id + " ");
  if (at == std::string::npos) return "";
  return out.substr(at + 3, out.find('\n', at + 1) - at - 3);
}

class CompareCommandTest : public ::testing::Test {
 protected:
  void SetUp() override {
    Status written = WriteFixture(old_, OnH200({Timed("steady", 60.0), Timed("slower", 50.0),
                                                Timed("lost", 30.0), Timed("gone", 20.0)}));
    ASSERT_TRUE(written.ok()) << written.ToString();
    written = WriteFixture(new_, OnH200({Timed("steady", 60.0), Timed("slower", 60.0),
                                         Timed("lost", 30.0, "dispersion-slow"),
                                         Timed("new", 25.0)}));
    ASSERT_TRUE(written.ok()) << written.ToString();
  }

  BinaryRun Compare(std::vector<std::string> args) {
    args.insert(args.begin(), "compare");
    if (std::optional<std::string> data = TestDataFolder()) {
      args.push_back("--data");
      args.push_back(*data);
    }
    return RunRatchet(args);
  }

  TempDir dir_;
  std::string old_ = dir_ / "old";
  std::string new_ = dir_ / "new";
};

TEST_F(CompareCommandTest, TheSameEvidenceTwiceExitsZero) {
  BinaryRun run = Compare({old_, old_});
  EXPECT_EQ(run.exit_code, 0) << run.out << run.err;
  EXPECT_EQ(run.out.rfind("A: " + old_ + " (complete, lane ", 0), 0u) << run.out;
  EXPECT_NE(run.out.find("records: 4 same, 0 regressed"), std::string::npos) << run.out;
  EXPECT_NE(run.out.find("\nverdict: the same\n"), std::string::npos) << run.out;
  EXPECT_EQ(run.err, "");
}

TEST_F(CompareCommandTest, DifferencesExitOneWithARowPerRecordSortedById) {
  BinaryRun run = Compare({old_, new_});
  EXPECT_EQ(run.exit_code, 1) << run.out << run.err;
  EXPECT_EQ(run.out.find("incomplete evidence"), std::string::npos) << run.out;
  const std::vector<std::string> order = {"gone", "lost", "new", "slower", "steady"};
  size_t last = 0;
  for (const std::string& id : order) {
    size_t at = run.out.find("\n  " + id + " ");
    ASSERT_NE(at, std::string::npos) << id << "\n" << run.out;
    EXPECT_GT(at, last) << id;
    last = at;
  }
  EXPECT_EQ(Row(run.out, "gone").rfind("gone    removed ", 0), 0u) << run.out;
  EXPECT_NE(Row(run.out, "lost").find("status qualified -> disqualified; broken [] -> "
                                      "[dispersion-slow]"),
            std::string::npos)
      << run.out;
  EXPECT_EQ(Row(run.out, "new").rfind("new     added ", 0), 0u) << run.out;
  EXPECT_EQ(Row(run.out, "slower").rfind("slower  regressed ", 0), 0u) << run.out;
  EXPECT_EQ(Row(run.out, "steady").rfind("steady  same ", 0), 0u) << run.out;
  EXPECT_NE(run.out.find("verdict: differs: 4 records differ\n"), std::string::npos) << run.out;
}

TEST_F(CompareCommandTest, MarkdownForAPullRequest) {
  BinaryRun run = Compare({"--markdown", old_, new_});
  EXPECT_EQ(run.exit_code, 1) << run.out << run.err;
  EXPECT_EQ(run.out.rfind("## ratchet compare\n\n| | evidence | state |\n", 0), 0u) << run.out;
  EXPECT_NE(run.out.find("\n### Contract\n"), std::string::npos) << run.out;
  EXPECT_NE(run.out.find("\n### Records\n"), std::string::npos) << run.out;
  EXPECT_NE(run.out.find("| record | category | A ranked_ms | B ranked_ms | B/A | note |\n"
                         "| --- | --- | ---: | ---: | ---: | --- |\n"
                         "| `gone` | removed | "),
            std::string::npos)
      << run.out;
  EXPECT_NE(run.out.find("| `slower` | regressed | "), std::string::npos) << run.out;
}

// What a side's report.json says is not what is compared: a report resealed to say that the
// slower record became fast is found, and the record is compared at the time its calls give.
TEST_F(CompareCommandTest, ARecordIsComparedAsItsCallsGiveItNotAsItsReportSays) {
  const BinaryRun honest = Compare({old_, new_});
  const std::string honest_row = Row(honest.out, "slower");
  ASSERT_EQ(honest_row.rfind("slower  regressed ", 0), 0u) << honest.out;

  Status edited = EditJsonAndRemanifest(new_, "report.json", [&](Json& report) {
    Json& entry = report["records"]["slower"];
    entry["ranked_ms"] = 1.0;
    for (Json& run : entry["runs"]) run["ranked_ms"] = 1.0;
  });
  ASSERT_TRUE(edited.ok()) << edited.ToString();
  BinaryRun run = Compare({old_, new_});
  EXPECT_EQ(run.exit_code, 1) << run.out << run.err;
  EXPECT_EQ(run.out.rfind("incomplete evidence: the comparison below is no verdict on the records\n"
                          "  B " + new_ + ": report.json: records.slower.",
                          0),
            0u)
      << run.out;
  EXPECT_EQ(Row(run.out, "slower"), honest_row) << run.out;
}

TEST_F(CompareCommandTest, AContractChangeIsListedFieldByField) {
  FixtureOptions plain = OnH200({Timed("steady", 60.0)});
  FixtureOptions upgraded = plain;
  upgraded.rules = "mnist-a100/1.4.0";
  upgraded.device_name = "NVIDIA H100 80GB HBM3";
  ASSERT_TRUE(WriteFixture(dir_ / "plain", plain).ok());
  Status written = WriteFixture(dir_ / "upgraded", upgraded);
  ASSERT_TRUE(written.ok()) << written.ToString();
  BinaryRun run = Compare({dir_ / "plain", dir_ / "upgraded"});
  EXPECT_EQ(run.exit_code, 1) << run.out << run.err;
  EXPECT_EQ(run.out.find("incomplete evidence"), std::string::npos) << run.out;
  const std::string plain_rules = FixtureLocked(plain)["rules"]["sha256"];
  const std::string upgraded_rules = FixtureLocked(upgraded)["rules"]["sha256"];
  ASSERT_NE(plain_rules, upgraded_rules);
  EXPECT_NE(run.out.find("  lane: the id differs (A " +
                         FixtureLane(plain)["id"].get<std::string>()),
            std::string::npos)
      << run.out;
  // Locked fields first, then the lane's.
  size_t rules = run.out.find("  locked.rules.sha256 ");
  size_t board = run.out.find("  lane.device.name ");
  ASSERT_NE(rules, std::string::npos) << run.out;
  ASSERT_NE(board, std::string::npos) << run.out;
  EXPECT_NE(run.out.find(plain_rules + "  " + upgraded_rules + "\n", rules), std::string::npos)
      << run.out;
  EXPECT_LT(rules, board);
  EXPECT_NE(run.out.find("timings: not compared (different lanes)"), std::string::npos) << run.out;

  run = Compare({"--markdown", dir_ / "plain", dir_ / "upgraded"});
  EXPECT_NE(run.out.find("| field | A | B |\n| --- | --- | --- |\n| `locked.rules.id` | "
                         "`mnist-a100/1.5.0` | `mnist-a100/1.4.0` |\n| `locked.rules.sha256` | `" +
                         plain_rules + "` | `" + upgraded_rules + "` |\n"),
            std::string::npos)
      << run.out;
}

TEST_F(CompareCommandTest, EvidenceThatDoesNotStandExitsOneAndSaysSoFirst) {
  FixtureOptions stopped = OnH200({Timed("steady", 60.0)});
  stopped.status = "interrupted";
  ASSERT_TRUE(WriteFixture(dir_ / "stopped", stopped).ok());
  BinaryRun run = Compare({old_, dir_ / "stopped"});
  EXPECT_EQ(run.exit_code, 1) << run.out << run.err;
  EXPECT_EQ(run.out.rfind("incomplete evidence: the comparison below is no verdict on the records\n"
                          "  B " + dir_ / "stopped" + ": ",
                          0),
            0u)
      << run.out;
  EXPECT_NE(run.out.find("interrupted"), std::string::npos) << run.out;

  // Complete on both sides, but a file changed since: it does not stand.
  ASSERT_TRUE(WriteFixture(dir_ / "copy", OnH200({Timed("steady", 60.0)})).ok());
  ASSERT_EQ(chmod((dir_ / "copy/contract.json").c_str(), 0600), 0);
  ASSERT_EQ(truncate((dir_ / "copy/contract.json").c_str(), 10), 0);
  run = Compare({old_, dir_ / "copy"});
  EXPECT_EQ(run.exit_code, 1) << run.out << run.err;
  EXPECT_EQ(run.out.rfind("incomplete evidence", 0), 0u) << run.out;
  EXPECT_NE(run.out.find("B " + dir_ / "copy" + ": contract.json: "), std::string::npos)
      << run.out;
}

TEST_F(CompareCommandTest, ToleranceOptions) {
  // slower is some 20% slower: the same under a 50% tolerance.
  BinaryRun run = Compare({old_, new_, "--relative", "0.5"});
  EXPECT_EQ(Row(run.out, "slower").rfind("slower  same ", 0), 0u) << run.out;
  run = Compare({old_, new_, "--absolute-ms", "1000"});
  EXPECT_EQ(Row(run.out, "slower").rfind("slower  same ", 0), 0u) << run.out;
  run = Compare({old_, new_, "--relative=0", "--absolute-ms", "0"});
  EXPECT_EQ(Row(run.out, "slower").rfind("slower  regressed ", 0), 0u) << run.out;
  for (const char* bad : {"-0.1", "abc", "nan", "inf", ""}) {
    run = Compare({old_, new_, "--relative", bad});
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
  EXPECT_EQ(Compare({old_, new_}).exit_code, 1);
  EXPECT_EQ(Compare({"--markdown", new_, old_}).exit_code, 1);
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
