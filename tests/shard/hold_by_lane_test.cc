// HoldByLane: a sharded run whose shards were scored on boards of more than one kind holds each
// record to the lane its shards were scored on, and compares the time of none whose shards
// are on several lanes.
#include <gtest/gtest.h>

#include <algorithm>

#include "baseline/baseline.h"
#include "contract/contract.h"
#include "shard/collect.h"

namespace ratchet {
namespace {

const char kHash[] = "0000000000000000000000000000000000000000000000000000000000000000";

Json Facts(const std::string& board) {
  Json facts = {{"device", {{"kind", "cuda"}, {"name", board}}}};
  facts["id"] = *LaneId(facts);
  return facts;
}
Json Locked() {
  return {{"rules", {{"id", "mnist-a100/1.2.0"}, {"sha256", kHash}}},
          {"datasets", {{"mnist", {{"images_sha256", kHash}, {"labels_sha256", kHash}}}}}};
}
Json Contract(const Json& facts) {
  return {{"schema", "ratchet.contract/1"}, {"locked", Locked()}, {"lane", facts}};
}
Json Timed(double a_ms, double b_ms) {
  return {{Facts("A")["id"], {{"ranked_ms", a_ms}, {"relative", 0.05}, {"absolute_ms", 0.1}}},
          {Facts("B")["id"], {{"ranked_ms", b_ms}, {"relative", 0.05}, {"absolute_ms", 0.1}}}};
}
Json Record(double a_ms, double b_ms) {
  return {{"submission", "m.py"},
          {"sha256", kHash},
          {"band_bp", 2000},
          {"expected", {{"status", "qualified"}, {"broken", Json::array()}}},
          {"timing", Timed(a_ms, b_ms)},
          {"reason", "qualifies"}};
}

RunRequest Request() {
  Json doc = {{"schema", "ratchet.baseline/1"},
              {"contract", {{"locked", Locked()}}},
              {"lanes",
               {{Facts("A")["id"], {{"facts", Facts("A")}, {"reviewed", {{"by", "r"}, {"reason", "its board"}}}}},
                {Facts("B")["id"], {{"facts", Facts("B")}, {"reviewed", {{"by", "r"}, {"reason", "its board"}}}}}}},
              // Each record is 10 ms on boards of kind A and 20 ms on kind B.
              {"records", {{"on-a", Record(10, 20)}, {"on-b", Record(10, 20)},
                           {"on-both", Record(10, 20)}}}};
  Result<Baseline> baseline = ParseBaseline(doc.dump(), "records.json");
  EXPECT_TRUE(baseline.ok()) << baseline.status().message();
  RunRequest request;
  request.baseline_path = "records.json";
  request.folder = ".";
  request.baseline = *baseline;
  return request;
}

RunOutcome Scored(double on_a, double on_b, double on_both) {
  RunOutcome outcome;
  outcome.inputs.contract = Contract(Facts("A"));
  outcome.inputs.selected = {"on-a", "on-b", "on-both"};
  auto scored = [](double ms) {
    return ScoredRecord{true, kHash, {"qualified", {}}, ms, std::nullopt, std::nullopt};
  };
  outcome.inputs.scored = {{"on-a", scored(on_a)}, {"on-b", scored(on_b)},
                           {"on-both", scored(on_both)}};
  return outcome;
}

std::vector<std::string> Codes(const RunOutcome& outcome) {
  std::vector<std::string> codes;
  for (const RatchetError& error : outcome.ratchet.errors) {
    codes.push_back(error.code + ":" + error.record);
  }
  return codes;
}

bool HasNote(const RunOutcome& outcome, const std::string& text) {
  return std::any_of(outcome.ratchet.notes.begin(), outcome.ratchet.notes.end(),
                     [&](const std::string& note) { return note.find(text) != std::string::npos; });
}

TEST(HoldByLaneTest, EachRecordIsHeldToTheLaneItsShardsWereScoredOn) {
  const std::string a = Facts("A")["id"], b = Facts("B")["id"];
  const std::map<std::string, Json> contracts = {{a, Contract(Facts("A"))},
                                                 {b, Contract(Facts("B"))}};
  const std::map<std::string, std::string> lanes = {{"on-a", a}, {"on-b", b}, {"on-both", ""}};
  {
    // Each at its own lane's reviewed time: no error, though on-b's 20 ms is twice lane A's.
    RunOutcome outcome = Scored(10, 20, 55);
    HoldByLane(Request(), lanes, contracts, a, {"a note given"}, &outcome);
    EXPECT_TRUE(outcome.ratchet.errors.empty()) << ::testing::PrintToString(Codes(outcome));
    EXPECT_EQ(outcome.exit_code, 0);
    EXPECT_EQ(outcome.lane, a);
    EXPECT_TRUE(outcome.ratchet.lane_reviewed);
    EXPECT_TRUE(HasNote(outcome, "on-b: its shards were scored on lane " + b));
    // on-both's 55 ms is on neither lane's tolerance, and is not compared.
    EXPECT_TRUE(HasNote(outcome, "on-both: its runs were scored on more than one lane"));
    EXPECT_TRUE(HasNote(outcome, "a note given"));
  }
  {
    // on-b at lane A's time is an improvement on lane B; on-a at lane B's, a regression on A.
    RunOutcome outcome = Scored(20, 10, 10);
    HoldByLane(Request(), lanes, contracts, a, {}, &outcome);
    EXPECT_EQ(Codes(outcome),
              (std::vector<std::string>{"time-regressed:on-a", "time-improved:on-b"}));
    EXPECT_EQ(outcome.exit_code, 1);
  }
  {
    // A lane the baseline has not reviewed: outcomes compared, timings not, and said once.
    Json other = Facts("C");
    const std::map<std::string, Json> with_c = {{a, Contract(Facts("A"))},
                                                {other["id"], Contract(other)}};
    RunOutcome outcome = Scored(10, 99, 10);
    HoldByLane(Request(), {{"on-a", a}, {"on-b", other["id"]}, {"on-both", a}}, with_c, a, {},
               &outcome);
    EXPECT_TRUE(outcome.ratchet.errors.empty()) << ::testing::PrintToString(Codes(outcome));
    EXPECT_FALSE(outcome.ratchet.lane_reviewed);
    EXPECT_TRUE(HasNote(outcome, "lane " + other["id"].get<std::string>() +
                                     " has not been reviewed"));
  }
}

}  // namespace
}  // namespace ratchet
