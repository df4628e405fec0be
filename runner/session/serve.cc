// `ratchet-scorer serve`: reads the tool's requests a line at a time, drives one ScoringSession
// with them and answers each (session/request.h describes the messages). Every line the session
// prints for a person travels to the tool as an "out" or "err" message; the tool prints it.
#include <errno.h>
#include <signal.h>
#include <unistd.h>

#include <map>
#include <memory>
#include <ostream>
#include <streambuf>
#include <string>

#include "core/exit_codes.h"
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
    const Json entry = result.ReportJson(spec.band_bp);
    if (records_.contains(spec.id)) {
      records_[spec.id]["rerun"] = entry;
    } else {
      records_[spec.id] = entry;
    }
    last_qualified_[spec.id] = result.qualified;
  }
  const Json& json() const { return records_; }
  // Whether the last scoring of every record qualified: the exit code a request file gets when
  // it names none.
  bool AllQualified() const {
    for (const auto& [id, qualified] : last_qualified_) {
      if (!qualified) return false;
    }
    return true;
  }

 private:
  Json records_ = Json::object();
  std::map<std::string, bool> last_qualified_;
};

int Finished(Answers& answers, int code) {
  answers.Send("finished", {{"exit_code", code}});
  return code;
}

}  // namespace

int ServeRequests(int in_fd, int out_fd) {
  // The tool may go away while a run is scored: its answers then fail with EPIPE, not a signal.
  signal(SIGPIPE, SIG_IGN);
  Answers answers(out_fd);
  MessageBuf out_buf(answers, "out"), err_buf(answers, "err");
  std::ostream out(&out_buf), err(&err_buf);
  Requests requests(in_fd);

  auto next = [&]() -> Result<std::optional<Message>> {
    Result<std::optional<std::string>> line = requests.Next();
    if (!line.ok()) return line.status();
    if (!*line) return std::optional<Message>();
    Result<Message> message = ParseMessage(**line);
    if (!message.ok()) return message.status();
    return std::optional<Message>(*message);
  };

  Result<std::optional<Message>> first = next();
  Status begin_error;
  if (!first.ok()) begin_error = first.status();
  else if (!*first) begin_error = Status::BadInput("no request: the first line must be \"begin\"");
  else if ((*first)->kind != "begin") {
    begin_error = Status::BadInput("the first request must be \"begin\", not \"" +
                                   (*first)->kind + "\"");
  }
  Result<SessionOptions> options =
      begin_error.ok() ? SessionOptionsFromJson((*first)->body) : Result<SessionOptions>(begin_error);
  if (!options.ok()) {
    answers.Send("error", StatusToJson(options.status()));
    return ExitCodeFor(options.status());
  }
  Result<std::unique_ptr<ScoringSession>> begun = ScoringSession::Begin(*options, {out, err});
  if (!begun.ok()) {
    answers.Send("error", StatusToJson(begun.status()));
    return ExitCodeFor(begun.status());
  }
  ScoringSession& session = **begun;
  answers.Send("begun", {{"evidence", session.evidence_path()},
                         {"device_kind", session.device_kind()},
                         {"rule_set", session.rules().document}});

  ReportRecords records;
  while (true) {
    Result<std::optional<Message>> message = next();
    if (!message.ok()) return Finished(answers, session.Fail(message.status()));
    if (!*message) {
      // The tool closed its end without finishing: it was stopped (a signal reaches both) or died.
      if (session.interrupted()) return Finished(answers, session.Interrupt());
      return Finished(answers, session.Fail(Status::Unavailable(
                                   "the tool (ratchet) stopped before it finished the run")));
    }
    const std::string& kind = (*message)->kind;
    const Json& body = (*message)->body;
    if (kind == "score") {
      Result<RecordSpec> spec = RecordSpecFromJson(body.value("record", Json()));
      const Json runs = body.value("runs", Json());
      const Json first_run = body.value("first_run", Json(1));
      if (!spec.ok()) return Finished(answers, session.Fail(spec.status()));
      if (!runs.is_number_integer() || runs.get<int64_t>() < 1 || runs.get<int64_t>() > 1000 ||
          !first_run.is_number_integer() || first_run.get<int64_t>() < 1 ||
          first_run.get<int64_t>() > 1000) {
        return Finished(answers, session.Fail(Status::BadInput(
                                     "a \"score\" request needs runs and first_run from 1 to 1000")));
      }
      Result<RecordResult> result = session.Score(*spec, runs.get<int>(), first_run.get<int>());
      out.flush();
      err.flush();
      if (!result.ok()) {
        answers.Send("error", StatusToJson(result.status()));
        continue;
      }
      records.Add(*spec, *result);
      answers.Send("scored", {{"result", RecordResultToJson(*result)},
                              {"contract", session.contract()}});
    } else if (kind == "contract") {
      Status written = session.WriteContract();
      out.flush();
      err.flush();
      answers.Send("contract", {{"contract", session.contract()},
                                {"error", written.ok() ? Json(nullptr) : StatusToJson(written)}});
    } else if (kind == "complete") {
      // The tool says what the outcomes mean against its baseline (`extra`, the exit code); the
      // records are the scorer's own.
      const Json exit_code =
          body.value("exit_code", Json(records.AllQualified() ? kExitSuccess : kExitFinding));
      if (!exit_code.is_number_integer()) {
        return Finished(answers, session.Fail(Status::BadInput("a bad exit_code in \"complete\"")));
      }
      const int code = exit_code.get<int>();
      const std::string text =
          body.value("message", code == kExitSuccess ? "qualified" : "disqualified");
      Status completed =
          session.Complete(records.json(), body.value("extra", Json::object()), code, text);
      out.flush();
      err.flush();
      return Finished(answers, completed.ok() ? code : kExitHarness);
    } else if (kind == "fail") {
      int code = session.Fail(StatusFromJson(body));
      out.flush();
      err.flush();
      return Finished(answers, code);
    } else if (kind == "interrupt") {
      int code = session.Interrupt();
      out.flush();
      err.flush();
      return Finished(answers, code);
    } else {
      return Finished(answers, session.Fail(Status::BadInput("an unknown request \"" + kind + "\"")));
    }
  }
}

}  // namespace ratchet
