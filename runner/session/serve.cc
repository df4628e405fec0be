// `ratchet-scorer serve`: reads the tool's requests a line at a time, drives one ScoringSession
// with them and answers each (session/request.h describes the messages). Every line the session
// prints for a person travels to the tool as an "out" or "err" message; the tool prints it.
#include <errno.h>
#include <signal.h>
#include <unistd.h>

#include <map>
#include <memory>
#include <optional>
#include <ostream>
#include <streambuf>
#include <string>

#include "core/exit_codes.h"
#include "session/interrupt.h"
#include "session/request.h"
#include "session/scorer_commands.h"
#include "session/session.h"

namespace ratchet {
namespace {

// A request line longer than this is refused: the largest the tool sends is the report's
// records, a few kilobytes a record.
constexpr size_t kMaxRequestBytes = 64u << 20;

// Writes whole messages to the tool; once a write fails (the tool is gone), the rest are dropped
// and the session ends at its next request, which reads end-of-file.
class Answers {
 public:
  explicit Answers(int fd) : fd_(fd) {}
  void Send(const std::string& kind, const Json& body) {
    if (gone_) return;
    const std::string line = EncodeAnswer(kind, body);
    size_t done = 0;
    while (done < line.size()) {
      ssize_t n = write(fd_, line.data() + done, line.size() - done);
      if (n < 0 && errno == EINTR) continue;
      if (n <= 0) {
        gone_ = true;
        return;
      }
      done += static_cast<size_t>(n);
    }
  }

 private:
  int fd_;
  bool gone_ = false;
};

// A stream whose every line (and every flush) becomes one message of `kind`.
class MessageBuf : public std::streambuf {
 public:
  MessageBuf(Answers& answers, const char* kind) : answers_(answers), kind_(kind) {}
  ~MessageBuf() override { sync(); }

 protected:
  int_type overflow(int_type c) override {
    if (c == traits_type::eof()) return traits_type::not_eof(c);
    pending_ += static_cast<char>(c);
    if (c == '\n') sync();
    return c;
  }
  std::streamsize xsputn(const char* data, std::streamsize size) override {
    for (std::streamsize i = 0; i < size; ++i) overflow(traits_type::to_int_type(data[i]));
    return size;
  }
  int sync() override {
    if (!pending_.empty()) answers_.Send(kind_, pending_);
    pending_.clear();
    return 0;
  }

 private:
  Answers& answers_;
  const char* kind_;
  std::string pending_;
};

// Reads the requests one line at a time.
class Requests {
 public:
  explicit Requests(int fd) : fd_(fd) {}
  // The next line without its newline; nullopt at end-of-file (the tool closed its end or died)
  // or on a read error. A line over kMaxRequestBytes is an error.
  Result<std::optional<std::string>> Next() {
    while (true) {
      size_t newline = buffer_.find('\n');
      if (newline != std::string::npos) {
        std::string line = buffer_.substr(0, newline);
        buffer_.erase(0, newline + 1);
        return std::optional<std::string>(std::move(line));
      }
      if (buffer_.size() > kMaxRequestBytes) {
        return Status::BadInput("a request line over " + std::to_string(kMaxRequestBytes >> 20) +
                                " MiB");
      }
      char chunk[65536];
      ssize_t n = read(fd_, chunk, sizeof chunk);
      if (n < 0 && errno == EINTR) continue;
      if (n <= 0) return std::optional<std::string>();
      buffer_.append(chunk, static_cast<size_t>(n));
    }
  }

 private:
  int fd_;
  std::string buffer_;
};

// The report's records, as the scorer scored them: a record's first scoring is its entry, and a
// scoring of it again (the tool asks for one when an outcome differs by timing rules alone or a
// time lies outside its tolerance) is the entry's "rerun". The tool never writes an outcome.
class ReportRecords {
 public:
  void Add(const RecordSpec& spec, const RecordResult& result) {
    ReportEntry entry = result.ReportOf(spec.band_bp);
    auto it = records_.find(spec.id);
    if (it != records_.end()) {
      it->second.rerun = std::move(entry);
    } else {
      records_.emplace(spec.id, ReportRecord{std::move(entry), std::nullopt});
    }
    last_qualified_[spec.id] = result.qualified;
  }
  const std::map<std::string, ReportRecord>& records() const { return records_; }
  // Whether the last scoring of every record qualified: the exit code a request file gets when
  // it names none.
  bool AllQualified() const {
    for (const auto& [id, qualified] : last_qualified_) {
      if (!qualified) return false;
    }
    return true;
  }

 private:
  std::map<std::string, ReportRecord> records_;
  std::map<std::string, bool> last_qualified_;
};

// A request whose body is not what its kind needs: bad input, as a file of requests written by
// hand may be; the tool never sends one.
Status Malformed(const std::string& kind, const std::string& why) {
  return Status::BadInput("a malformed \"" + kind + "\" request: " + why);
}

// The requests after "begin", each body checked whole before the session acts on it.
struct ScoreRequest {
  RecordSpec record;
  int runs = 1;
  int first_run = 1;
};

struct CompleteRequest {
  std::optional<int> exit_code;        // absent: 0 when every record qualified, else 1
  std::optional<std::string> message;  // absent: "qualified" or "disqualified"
  Json extra = Json::object();         // report.json's further fields, from the tool
};

Result<ScoreRequest> ParseScore(const Json& body) {
  if (!body.is_object()) return Malformed("score", "its body is not an object");
  Result<RecordSpec> record = RecordSpecFromJson(body.value("record", Json()));
  if (!record.ok()) return Malformed("score", record.status().message());
  const Json runs = body.value("runs", Json());
  const Json first_run = body.value("first_run", Json(1));
  auto count = [](const Json& value) {
    return value.is_number_integer() && value.get<int64_t>() >= 1 && value.get<int64_t>() <= 1000;
  };
  if (!count(runs) || !count(first_run)) {
    return Malformed("score", "runs and first_run must be whole numbers from 1 to 1000");
  }
  return ScoreRequest{*record, runs.get<int>(), first_run.get<int>()};
}

Result<CompleteRequest> ParseComplete(const Json& body) {
  if (!body.is_object()) return Malformed("complete", "its body is not an object");
  CompleteRequest request;
  if (body.contains("exit_code")) {
    const Json& code = body["exit_code"];
    if (!code.is_number_integer() || code.get<int64_t>() < 0 || code.get<int64_t>() > 255) {
      return Malformed("complete", "exit_code is not an exit code (0 to 255)");
    }
    request.exit_code = code.get<int>();
  }
  if (body.contains("message")) {
    if (!body["message"].is_string()) return Malformed("complete", "message is not a string");
    request.message = body["message"].get<std::string>();
  }
  if (body.contains("extra")) {
    if (!body["extra"].is_object()) return Malformed("complete", "extra is not an object");
    request.extra = body["extra"];
  }
  return request;
}

// The status the tool fails the session with, or the one that says the request is malformed:
// the session fails either way.
Status FailStatus(const Json& body) {
  if (!body.is_object() || !body.value("code", Json()).is_string() ||
      !body.value("message", Json()).is_string()) {
    return Malformed("fail", "its body is not a status {\"code\", \"message\"}");
  }
  return StatusFromJson(body);
}

int Finished(Answers& answers, int code) {
  answers.Send("finished", {{"exit_code", code}});
  return code;
}

// The scoring session that serve drives, and what it has scored so far.
class Server {
 public:
  Server(ScoringSession& session, Answers& answers, std::ostream& out, std::ostream& err)
      : session_(session), answers_(answers), out_(out), err_(err) {}

  // Acts on one request after "begin": the exit code once the session is finished, nullopt
  // while it goes on.
  std::optional<int> Answer(const Message& message) {
    const std::string& kind = message.kind;
    if (kind == "score") {
      Result<ScoreRequest> request = ParseScore(message.body);
      if (!request.ok()) return Fail(request.status());
      Result<RecordResult> result =
          session_.Score(request->record, request->runs, request->first_run);
      Flush();
      if (!result.ok()) {
        answers_.Send("error", StatusToJson(result.status()));
        return std::nullopt;
      }
      records_.Add(request->record, *result);
      answers_.Send("scored",
                    {{"result", RecordResultToJson(*result)}, {"contract", session_.contract()}});
      return std::nullopt;
    }
    if (kind == "contract") {
      Status written = session_.WriteContract();
      Flush();
      answers_.Send("contract", {{"contract", session_.contract()},
                                 {"error", written.ok() ? Json(nullptr) : StatusToJson(written)}});
      return std::nullopt;
    }
    if (kind == "complete") {
      Result<CompleteRequest> request = ParseComplete(message.body);
      if (!request.ok()) return Fail(request.status());
      // The tool says what the outcomes mean against its baseline (`extra`, the exit code); the
      // records are the scorer's own.
      const int code =
          request->exit_code.value_or(records_.AllQualified() ? kExitSuccess : kExitFinding);
      const std::string text =
          request->message.value_or(code == kExitSuccess ? "qualified" : "disqualified");
      Status completed = session_.Complete(records_.records(), request->extra, code, text);
      Flush();
      return Finished(answers_, completed.ok() ? code : kExitHarness);
    }
    if (kind == "fail") {
      return Fail(FailStatus(message.body));
    }
    if (kind == "interrupt") {
      const int code = session_.Interrupt();
      Flush();
      return Finished(answers_, code);
    }
    return Fail(Status::BadInput("an unknown request \"" + kind + "\""));
  }

  // Finishes the session as failed with `status`: the exit code.
  int Fail(const Status& status) {
    const int code = session_.Fail(status);
    Flush();
    return Finished(answers_, code);
  }

  // The tool closed its end without finishing: it was stopped (a signal reaches both) or died.
  int ToolGone() {
    if (session_.interrupted()) {
      const int code = session_.Interrupt();
      Flush();
      return Finished(answers_, code);
    }
    return Fail(Status::Unavailable("the tool (ratchet) stopped before it finished the run"));
  }

 private:
  void Flush() {
    out_.flush();
    err_.flush();
  }

  ScoringSession& session_;
  Answers& answers_;
  std::ostream& out_;
  std::ostream& err_;
  ReportRecords records_;
};

}  // namespace

int ServeRequests(int in_fd, int out_fd) {
  // The tool may go away while a run is scored: its answers then fail with EPIPE, not a signal.
  signal(SIGPIPE, SIG_IGN);
  Answers answers(out_fd);
  MessageBuf out_buf(answers, "out"), err_buf(answers, "err");
  std::ostream out(&out_buf), err(&err_buf);
  Requests requests(in_fd);

  // The next request; nullopt at end-of-file. A line that is not a message is bad input.
  auto next = [&]() -> Result<std::optional<Message>> {
    Result<std::optional<std::string>> line = requests.Next();
    if (!line.ok()) return line.status();
    if (!*line) return std::optional<Message>();
    Result<Message> message = ParseMessage(**line);
    if (!message.ok()) return Status::BadInput(message.status().message());
    return std::optional<Message>(*message);
  };

  Result<std::optional<Message>> first = next();
  Status begin_error;
  if (!first.ok()) {
    begin_error = first.status();
  } else if (!*first) {
    begin_error = Status::BadInput("no request: the first line must be \"begin\"");
  } else if ((*first)->kind != "begin") {
    begin_error =
        Status::BadInput("the first request must be \"begin\", not \"" + (*first)->kind + "\"");
  }
  Result<SessionOptions> options = begin_error.ok() ? SessionOptionsFromJson((*first)->body)
                                                    : Result<SessionOptions>(begin_error);
  if (!options.ok()) {
    // A body without the fields of SessionOptions reads as the format's Internal error.
    const Status refused = options.status().code() == Status::Code::kInternal
                               ? Malformed("begin", options.status().message())
                               : options.status();
    answers.Send("error", StatusToJson(refused));
    return ExitCodeFor(refused);
  }
  Result<std::unique_ptr<ScoringSession>> begun = ScoringSession::Begin(*options, {out, err});
  if (!begun.ok()) {
    answers.Send("error", StatusToJson(begun.status()));
    return Interrupted() ? kExitInterrupted : ExitCodeFor(begun.status());
  }
  ScoringSession& session = **begun;
  answers.Send("begun", {{"evidence", session.evidence_path()},
                         {"device_kind", session.device_kind()},
                         {"rule_set", session.rules().document}});

  Server server(session, answers, out, err);
  while (true) {
    Result<std::optional<Message>> message = next();
    if (!message.ok()) return server.Fail(message.status());
    if (!*message) return server.ToolGone();
    if (std::optional<int> code = server.Answer(**message)) return *code;
  }
}

}  // namespace ratchet
