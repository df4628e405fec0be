// The messages between the tool and the scorer (session/request.h): what crosses is what arrives.
#include "session/request.h"

#include <gtest/gtest.h>

#include <string>
#include <utility>
#include <vector>

namespace ratchet {
namespace {

RecordResult SampleResult() {
  RecordResult result;
  result.id = "ncm-py";
  result.qualified = false;
  result.harness_error = Status::Unavailable("no worker");
  result.problems = {{"accuracy", "MNIST accuracy 84.832%"}, {"dispersion-slow", "call 3"}};
  result.ranked = {0.1 + 0.2, 1.0 / 3.0, 12345.678901234567};
  result.energy_mj = {4.8000000000000007};
  result.source_sha256 = std::string(64, 'a');
  result.file = "ncm.py";
  result.function = "method";
  result.review_flags = {"a flag"};
  ReportRun run;
  run.run = 1;
  run.problems = {{"accuracy", "MNIST accuracy 84.832%"}};
  run.summary = "MNIST 84.83% correct";
  run.holdout = "fashion";
  run.warmup = "fashion";
  result.runs = {run};
  return result;
}

TEST(ScorerRequest, ARecordResultArrivesAsItWasSent) {
  const RecordResult sent = SampleResult();
  Result<Message> message = ParseMessage(EncodeAnswer("scored", RecordResultToJson(sent)));
  ASSERT_TRUE(message.ok()) << message.status().ToString();
  EXPECT_EQ(message->kind, "scored");
  Result<RecordResult> got = RecordResultFromJson(message->body);
  ASSERT_TRUE(got.ok()) << got.status().ToString();
  EXPECT_EQ(got->id, sent.id);
  EXPECT_EQ(got->qualified, sent.qualified);
  ASSERT_TRUE(got->harness_error.has_value());
  EXPECT_EQ(got->harness_error->code(), Status::Code::kUnavailable);
  EXPECT_EQ(got->harness_error->message(), "no worker");
  ASSERT_EQ(got->problems.size(), 2u);
  EXPECT_EQ(got->problems[1].rule, "dispersion-slow");
  // Every double to the last bit: the report's times are the scorer's, not a rounding of them.
  ASSERT_EQ(got->ranked.size(), sent.ranked.size());
  for (size_t i = 0; i < sent.ranked.size(); ++i) EXPECT_EQ(got->ranked[i], sent.ranked[i]);
  EXPECT_EQ(got->energy_mj, sent.energy_mj);
  EXPECT_EQ(ReportEntryJson(got->ReportOf(540)).dump(), ReportEntryJson(sent.ReportOf(540)).dump());
}

TEST(ScorerRequest, SessionOptionsArriveAsTheyWereSent) {
  SessionOptions sent;
  sent.command = "run";
  sent.data_dir = "/data";
  sent.rules_path = "rules.json";
  sent.out = "evidence/x";
  sent.out_prefix = "run";
  sent.needs_python = true;
  sent.energy = false;
  sent.tool_version = "0.1.0";
  sent.tool_source_sha256 = std::string(64, 'b');
  Result<SessionOptions> got = SessionOptionsFromJson(SessionOptionsToJson(sent));
  ASSERT_TRUE(got.ok()) << got.status().ToString();
  EXPECT_EQ(got->command, "run");
  EXPECT_EQ(got->data_dir, sent.data_dir);
  EXPECT_FALSE(got->python.has_value());
  EXPECT_EQ(got->rules_path, sent.rules_path);
  EXPECT_EQ(got->out, sent.out);
  EXPECT_TRUE(got->needs_python);
  EXPECT_FALSE(got->energy);
  EXPECT_EQ(got->tool_source_sha256, sent.tool_source_sha256);
}

TEST(ScorerRequest, ARequestOfAnotherSchemaIsRefusedAndSaysWhatToDo) {
  Json options = SessionOptionsToJson(SessionOptions());
  options["schema"] = "ratchet.scorer-request/9";
  Result<SessionOptions> got = SessionOptionsFromJson(options);
  ASSERT_FALSE(got.ok());
  EXPECT_EQ(got.status().code(), Status::Code::kBadInput);
  EXPECT_NE(got.status().message().find("of one build"), std::string::npos)
      << got.status().message();
}

TEST(ScorerRequest, AStatusCrossesWithItsCode) {
  for (const Status& status : {Status::Usage("u"), Status::BadInput("b"), Status::Unavailable("n"),
                               Status::IOError("open x", 2), Status::Internal("i")}) {
    const Status got = StatusFromJson(StatusToJson(status));
    EXPECT_EQ(got.code(), status.code()) << status.ToString();
    EXPECT_EQ(got.message(), status.message());
  }
  EXPECT_EQ(StatusFromJson(Json{{"code", "nonsense"}, {"message", "m"}}).code(),
            Status::Code::kInternal);
  EXPECT_EQ(StatusFromJson(Json{{"code", "ok"}, {"message", ""}}).code(), Status::Code::kInternal);
}

TEST(ScorerRequest, AMessageIsAnObjectOfOneMember) {
  EXPECT_FALSE(ParseMessage("").ok());
  EXPECT_FALSE(ParseMessage("[1]").ok());
  EXPECT_FALSE(ParseMessage("{}").ok());
  EXPECT_FALSE(ParseMessage("{\"a\": 1, \"b\": 2}").ok());
  EXPECT_FALSE(ParseMessage("{\"a\": ").ok());
  Result<Message> one = ParseMessage("{\"out\": \"text\"}");
  ASSERT_TRUE(one.ok());
  EXPECT_EQ(one->kind, "out");
}

TEST(ScorerRequest, BytesThatAreNotUtf8CrossAsReplacementCharacters) {
  // A submission's words may hold any bytes; the line is still one line of JSON.
  const std::string line = EncodeAnswer("err", std::string("bad \xff\xfe byte\n"));
  EXPECT_EQ(line.find('\n'), line.size() - 1);
  Result<Message> message = ParseMessage(line.substr(0, line.size() - 1));
  ASSERT_TRUE(message.ok()) << message.status().ToString();
  EXPECT_EQ(message->body.get<std::string>(), "bad \xef\xbf\xbd\xef\xbf\xbd byte\n");
}

TEST(ScorerRequest, ARequestWithAPathThatIsNotUtf8IsRefusedNotChanged) {
  SessionOptions options;
  options.out = std::string("evidence/\xff");
  Result<std::string> line = EncodeRequest("begin", SessionOptionsToJson(options));
  ASSERT_FALSE(line.ok());
  EXPECT_EQ(line.status().code(), Status::Code::kBadInput);
  EXPECT_NE(line.status().message().find("not UTF-8"), std::string::npos);
  options.out = "evidence/x";
  EXPECT_TRUE(EncodeRequest("begin", SessionOptionsToJson(options)).ok());
}

// The scorer checks a record's names itself: a request the tool would never send (a newline in
// the file's name, a function that is no identifier, an id that is no plain name) is refused.
TEST(ScorerRequest, ARecordWhoseNamesTheToolWouldRefuseIsRefused) {
  RecordSpec good;
  good.id = "ncm-py";
  good.spec = "/submissions/ncm.py:method";
  ASSERT_TRUE(RecordSpecFromJson(RecordSpecToJson(good)).ok());
  good.spec = "/submissions/ncm.py";
  ASSERT_TRUE(RecordSpecFromJson(RecordSpecToJson(good)).ok());
  good.spec = "/submissions/ncm.cpp:";
  ASSERT_TRUE(RecordSpecFromJson(RecordSpecToJson(good)).ok());
  for (const auto& [id, spec] : std::vector<std::pair<std::string, std::string>>{
           {"ncm", "/submissions/x.py\nqualified: MNIST 99.99%.py"},
           {"ncm", "/submissions/.hidden.py"},
           {"ncm", "/submissions/ncm.py:m\xc3\xa9thode"},
           {"ncm", "/submissions/ncm.py:method\nqualified"},
           {"ncm", "/submissions/ncm.cpp:1method"},
           {"../ncm", "/submissions/ncm.py"},
           {"a\nb", "/submissions/ncm.py"}}) {
    RecordSpec bad = good;
    bad.id = id;
    bad.spec = spec;
    Result<RecordSpec> read = RecordSpecFromJson(RecordSpecToJson(bad));
    ASSERT_FALSE(read.ok()) << spec;
    EXPECT_EQ(read.status().code(), Status::Code::kBadInput) << spec;
    // The message quotes the name as a JSON string: no line of its own starts in it.
    EXPECT_EQ(read.status().message().find('\n'), std::string::npos) << read.status().message();
  }
}

}  // namespace
}  // namespace ratchet
