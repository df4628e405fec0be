// The typed writer and reader of a run folder's JSON documents: what the scorer writes reads back
// field for field, and a document with a field missing or of the wrong type is refused with a
// finding that names the file and the field.
#include "evidence/run_files.h"

#include <gtest/gtest.h>

namespace ratchet {
namespace {

// Collects what a strict read found.
struct Found : FieldFindings {
  void Breaks(std::string where, std::string message) override {
    breaks.push_back(where + " -- " + message);
  }
  void Note(std::string where, std::string message) override {
    notes.push_back(where + " -- " + message);
  }
  std::vector<std::string> breaks, notes;
};

CallEntry SomeCall(int64_t number) {
  CallEntry call;
  call.call = number;
  call.dataset = number == 2 ? "fashion" : "mnist";
  call.draw_index = static_cast<uint64_t>(number - 1);
  call.warmup_dataset = "fashion";
  call.warmup_draw_index = 1000 + static_cast<uint64_t>(number - 1);
  call.inputs_sha256 = std::string(64, 'a');
  call.ms = 0.1 + 0.2;  // a double that must come back to the bit
  call.parent_ms = 1.25;
  call.overhead_ms = 0.5;
  call.correct = 9876;
  call.total = 10000;
  call.worker_exit = "signal 9";
  call.log_bytes = 12;
  call.worker = Json{{"device", "cpu"}};
  call.phases = Json{{"steps", {{"hello", 1.5}}}};
  return call;
}

TEST(RunFilesTest, TheNamesOfARunFolder) {
  EXPECT_EQ(RunFile("records/ncm/run-1", kCallsFile), "records/ncm/run-1/calls.json");
  EXPECT_EQ(RunFile("records/ncm/run-1", kJudgeFile), "records/ncm/run-1/judge.json");
  EXPECT_EQ(RunFile("records/ncm/run-1", kEnergyFile), "records/ncm/run-1/energy.json");
  EXPECT_EQ(SubmissionPath("records/ncm/run-1", "ncm.py"), "records/ncm/run-1/submission/ncm.py");
  EXPECT_EQ(LabelsPath("records/ncm/run-1", 3), "records/ncm/run-1/labels/03.u8");
  EXPECT_EQ(LogPath("records/ncm/run-1", 12), "records/ncm/run-1/logs/12.log");
}

TEST(RunFilesTest, CallsReadBackFieldForField) {
  const std::vector<CallEntry> written = {SomeCall(1), SomeCall(2)};
  Found found;
  FieldReader reader("calls.json", &found);
  std::optional<std::vector<CallEntry>> read = ReadCalls(CallsJson(written), reader);
  ASSERT_TRUE(read.has_value()) << (found.breaks.empty() ? "" : found.breaks[0]);
  ASSERT_EQ(read->size(), 2u);
  for (size_t i = 0; i < 2; ++i) {
    const CallEntry& a = written[i];
    const CallEntry& b = (*read)[i];
    EXPECT_EQ(a.call, b.call);
    EXPECT_EQ(a.dataset, b.dataset);
    EXPECT_EQ(a.draw_index, b.draw_index);
    EXPECT_EQ(a.warmup_dataset, b.warmup_dataset);
    EXPECT_EQ(a.warmup_draw_index, b.warmup_draw_index);
    EXPECT_EQ(a.inputs_sha256, b.inputs_sha256);
    EXPECT_EQ(a.ms, b.ms);
    EXPECT_EQ(a.parent_ms, b.parent_ms);
    EXPECT_EQ(a.overhead_ms, b.overhead_ms);
    EXPECT_EQ(a.correct, b.correct);
    EXPECT_EQ(a.total, b.total);
    EXPECT_EQ(a.worker_exit, b.worker_exit);
    EXPECT_EQ(a.log_bytes, b.log_bytes);
    EXPECT_EQ(a.worker, b.worker);
    EXPECT_EQ(a.phases, b.phases);
  }
  EXPECT_TRUE(found.breaks.empty());
}

TEST(RunFilesTest, ACallWithAFieldMissingOrMistypedOrOutOfOrderIsRefusedAndNamed) {
  Json calls = CallsJson({SomeCall(1), SomeCall(2), SomeCall(3)});
  calls[0].erase("inputs_sha256");
  calls[1]["correct"] = "9876";
  calls[2]["call"] = 7;
  Found found;
  FieldReader reader("records/ncm/run-1/calls.json", &found);
  EXPECT_FALSE(ReadCalls(calls, reader).has_value());
  ASSERT_EQ(found.breaks.size(), 3u);
  EXPECT_EQ(found.breaks[0], "records/ncm/run-1/calls.json: calls[0].inputs_sha256 -- missing");
  EXPECT_EQ(
      found.breaks[1],
      "records/ncm/run-1/calls.json: calls[1].correct -- expected an integer, found a string");
  EXPECT_NE(found.breaks[2].find("calls[2].call -- 7 at position 3"), std::string::npos)
      << found.breaks[2];
  Found not_a_list;
  FieldReader top("calls.json", &not_a_list);
  EXPECT_FALSE(ReadCalls(Json::object(), top).has_value());
  ASSERT_EQ(not_a_list.breaks.size(), 1u);
  EXPECT_NE(not_a_list.breaks[0].find("expected an array of calls"), std::string::npos);
}

// What a worker's hello says of its sandbox reads as said only with the types the worker writes.
TEST(RunFilesTest, AHellosSandboxReadsAsSaidOrNotAtAll) {
  const Json hello = {{kHelloDevice, "cpu"},
                      {kHelloSandbox, {{"uid", 61000}, {"no_new_privs", 1}, {"seccomp", 2}}}};
  EXPECT_EQ(HelloMember(hello, kHelloDevice), Json("cpu"));
  EXPECT_TRUE(HelloMember(hello, kHelloUuid).is_null());
  EXPECT_TRUE(HelloMember(Json("cpu"), kHelloDevice).is_null());
  const HelloSandbox said = ReadHelloSandbox(HelloMember(hello, kHelloSandbox));
  EXPECT_EQ(said.uid, std::optional<int64_t>(61000));
  EXPECT_TRUE(said.no_new_privs);
  EXPECT_TRUE(said.seccomp_filter);
  const HelloSandbox unsaid =
      ReadHelloSandbox({{"uid", "61000"}, {"no_new_privs", true}, {"seccomp", 1}});
  EXPECT_FALSE(unsaid.uid);
  EXPECT_FALSE(unsaid.no_new_privs);
  EXPECT_FALSE(unsaid.seccomp_filter);
  EXPECT_FALSE(ReadHelloSandbox(Json::array()).uid);
}

TEST(RunFilesTest, AVerdictReadsBackFieldForField) {
  JudgeEntry qualified;
  qualified.qualified = true;
  qualified.ranked_ms = 1.0 / 3;
  qualified.summary = "MNIST 99.00%";
  qualified.floored = true;
  JudgeEntry stopped;
  stopped.problems = {{"crash", "the worker died"}};
  stopped.failed_call = 4;
  JudgeEntry harness;
  harness.harness_failure = "the harness could not run call 1";
  for (const JudgeEntry& written : {qualified, stopped, harness}) {
    Found found;
    FieldReader reader("judge.json", &found);
    std::optional<JudgeEntry> read = ReadJudge(JudgeJson(written), reader);
    ASSERT_TRUE(read.has_value()) << (found.breaks.empty() ? "" : found.breaks[0]);
    EXPECT_EQ(read->qualified, written.qualified);
    EXPECT_EQ(read->ranked_ms, written.ranked_ms);
    EXPECT_EQ(read->summary, written.summary);
    EXPECT_EQ(read->floored, written.floored);
    EXPECT_EQ(read->failed_call, written.failed_call);
    EXPECT_EQ(read->harness_failure, written.harness_failure);
    ASSERT_EQ(read->problems.size(), written.problems.size());
    for (size_t i = 0; i < read->problems.size(); ++i) {
      EXPECT_EQ(read->problems[i].rule, written.problems[i].rule);
      EXPECT_EQ(read->problems[i].message, written.problems[i].message);
    }
  }
  // The fields of a run that was judged, as the scorer has always written them.
  const Json json = JudgeJson(qualified);
  EXPECT_EQ(json,
            Json::parse(R"({"problems": [], "qualified": true, "ranked_ms": 0.3333333333333333,
                                  "summary": "MNIST 99.00%", "floored": true})"));
}

TEST(RunFilesTest, AVerdictWithAFieldMissingOrMistypedIsRefusedAndNamed) {
  Json judge = JudgeJson(JudgeEntry{});
  judge.erase("floored");
  judge["problems"] = Json::array({Json{{"rule", 3}, {"message", "m"}}});
  Found found;
  FieldReader reader("judge.json", &found);
  EXPECT_FALSE(ReadJudge(judge, reader).has_value());
  ASSERT_EQ(found.breaks.size(), 2u);
  EXPECT_EQ(found.breaks[0], "judge.json: floored -- missing");
  EXPECT_EQ(found.breaks[1], "judge.json: problems[0].rule -- expected a string, found an integer");
  // A stopped run's call number of the wrong type is named, and the verdict still reads.
  Json stopped = JudgeJson(JudgeEntry{});
  stopped["failed_call"] = "4";
  Found stopped_found;
  FieldReader stopped_reader("judge.json", &stopped_found);
  std::optional<JudgeEntry> read = ReadJudge(stopped, stopped_reader);
  ASSERT_TRUE(read.has_value());
  EXPECT_FALSE(read->failed_call.has_value());
  ASSERT_EQ(stopped_found.breaks.size(), 1u);
  EXPECT_EQ(stopped_found.breaks[0],
            "judge.json: failed_call -- expected an integer, found a string");
}

}  // namespace
}  // namespace ratchet
