#include "cli/scorer_client.h"

#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cctype>
#include <cstdlib>
#include <ostream>

#include "cli/interrupt.h"
#include "core/exit_codes.h"
#include "core/file.h"

namespace ratchet {
namespace {

// Starts `ratchet-scorer ARGS...` with `stdin_fd` and `stdout_fd` (-1: this process's own) as
// its stdin and stdout; from then on `forwarding` passes SIGINT and SIGTERM on to it, until it
// is reaped (Reap). `ratchet contract` and `ratchet telemetry` start it so, and so does a
// scoring session.
Result<pid_t> StartScorer(const std::vector<std::string>& args, int stdin_fd, int stdout_fd,
                          std::optional<SignalForwarding>& forwarding) {
  Result<std::string> scorer = FindScorer();
  if (!scorer.ok()) return scorer.status();
  std::vector<std::string> words = {*scorer};
  words.insert(words.end(), args.begin(), args.end());
  // Built before the fork: the child only calls what is safe there.
  std::vector<char*> argv;
  for (std::string& word : words) argv.push_back(word.data());
  argv.push_back(nullptr);
  const pid_t parent = getpid();
  const pid_t pid = fork();
  if (pid < 0) return Status::IOError("fork", errno);
  if (pid == 0) {
    // If the tool dies, the scorer is asked to stop as if interrupted: it finishes its evidence.
    prctl(PR_SET_PDEATHSIG, SIGTERM, 0, 0, 0);
    if (getppid() != parent) _exit(kExitHarness);
    if ((stdin_fd >= 0 && dup2(stdin_fd, STDIN_FILENO) < 0) ||
        (stdout_fd >= 0 && dup2(stdout_fd, STDOUT_FILENO) < 0)) {
      _exit(kExitHarness);
    }
    execv(argv[0], argv.data());
    _exit(kExitHarness);
  }
  forwarding.emplace(pid);
  return pid;
}

// Reaps `pid`, started by StartScorer: its exit status, or 128 + the signal that ended it; the
// forwarding forgets the pid before it can be reused. A pid that cannot be waited for is the
// harness's failure.
int Reap(pid_t pid, SignalForwarding& forwarding) {
  siginfo_t info = {};
  while (waitid(P_PID, pid, &info, WEXITED | WNOWAIT) < 0 && errno == EINTR) {
  }
  forwarding.ChildExited();
  int status = 0;
  pid_t reaped;
  while ((reaped = waitpid(pid, &status, 0)) < 0 && errno == EINTR) {
  }
  if (reaped != pid) return kExitHarness;
  return WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
}

// What the tool exits with when the scorer was killed by a signal: the interrupt's code for
// SIGINT and SIGTERM, the harness's for any other (README, "Exit codes").
int ExitCodeOfScorer(int code) {
  if (code <= 128) return code;
  return code == 128 + SIGINT || code == 128 + SIGTERM ? kExitInterrupted : kExitHarness;
}

// `code` as Reap gives it.
Status ScorerStopped(int code) {
  return Status::Unavailable(
      "ratchet-scorer stopped before it answered (" +
      (code > 128 ? "signal " + std::to_string(code - 128) : "exit " + std::to_string(code)) +
      "); its evidence folder, if it began one, is finished as failed or left partial");
}

}  // namespace

bool ScorerInterrupted() { return InterruptForwarded(); }

Result<std::string> FindScorer() {
  Result<std::string> self = SelfExecutable();
  if (!self.ok()) return self.status();
  const std::string scorer = DirName(*self) + "/ratchet-scorer";
  if (access(scorer.c_str(), X_OK) != 0) {
    return Status::Unavailable("no ratchet-scorer beside " + *self +
                               ": ratchet runs the scorer from its own folder; build both "
                               "(cmake --build build) or install them together");
  }
  return scorer;
}

std::string DeviceLockPath() {
  const char* devices = std::getenv("CUDA_VISIBLE_DEVICES");
  std::string key = devices != nullptr ? devices : "";
  const bool plain = !key.empty() && key.size() <= 64 &&
                     std::all_of(key.begin(), key.end(), [](char c) {
                       return std::isalnum(static_cast<unsigned char>(c)) || c == ',' || c == '-';
                     });
  return std::string("/run/ratchet-device-") + (plain ? key : std::string("all")) + ".lock";
}

int RunScorerCommand(const std::string& name, const std::vector<std::string>& args,
                     const std::vector<std::string>& extra, CommandContext& context) {
  std::vector<std::string> words = {name};
  words.insert(words.end(), args.begin(), args.end());
  words.insert(words.end(), extra.begin(), extra.end());
  context.out.flush();
  context.err.flush();
  // The telemetry reference loads the device as a scoring does: one at a time on a device.
  std::optional<SandboxLock> device_lock;
  const bool help = std::find(args.begin(), args.end(), "--help") != args.end() ||
                    std::find(args.begin(), args.end(), "-h") != args.end();
  if (name == "telemetry" && !help && geteuid() == 0) {
    Result<SandboxLock> held =
        SandboxLock::AcquireWaiting(name, context.err, nullptr, DeviceLockPath());
    if (!held.ok()) return ReportError(context.err, name.c_str(), held.status());
    device_lock.emplace(std::move(*held));
  }
  std::optional<SignalForwarding> forwarding;
  Result<pid_t> pid = StartScorer(words, -1, -1, forwarding);
  if (!pid.ok()) return ReportError(context.err, name.c_str(), pid.status());
  return ExitCodeOfScorer(Reap(*pid, *forwarding));
}


Result<std::unique_ptr<ScorerClient>> ScorerClient::Begin(const SessionOptions& options,
                                                          CommandContext& progress,
                                                          bool take_device_lock) {
  // One scorer at a time on a device: as root, the device's lock is taken before the scorer
  // starts (a signal meanwhile ends the tool, which has begun nothing) and held until it exits.
  std::optional<SandboxLock> device_lock;
  if (take_device_lock && geteuid() == 0) {
    Result<SandboxLock> held =
        SandboxLock::AcquireWaiting(options.command, progress.err, nullptr, DeviceLockPath());
    if (!held.ok()) return held.status();
    device_lock.emplace(std::move(*held));
  }
  // What killed runs left where this one's evidence goes is removed before the scorer begins.
  SweepPartialFoldersIn(EvidenceFolder(options), progress.out);
  int to_scorer[2], from_scorer[2];
  if (pipe2(to_scorer, O_CLOEXEC) != 0) return Status::IOError("pipe", errno);
  if (pipe2(from_scorer, O_CLOEXEC) != 0) {
    close(to_scorer[0]);
    close(to_scorer[1]);
    return Status::IOError("pipe", errno);
  }
  std::unique_ptr<ScorerClient> client(new ScorerClient(progress, options.command));
  client->device_lock_ = std::move(device_lock);
  Result<pid_t> pid = StartScorer({"serve"}, to_scorer[0], from_scorer[1], client->forwarding_);
  close(to_scorer[0]);
  close(from_scorer[1]);
  if (!pid.ok()) {
    close(to_scorer[1]);
    close(from_scorer[0]);
    return pid.status();
  }
  client->pid_ = *pid;
  client->requests_ = to_scorer[1];
  client->answers_ = from_scorer[0];

  RATCHET_RETURN_IF_ERROR(client->Send("begin", SessionOptionsToJson(options)));
  Result<Message> answer = client->Receive();
  if (!answer.ok()) return answer.status();
  if (answer->kind == "error") {
    client->Wait();
    client->finished_ = true;
    return StatusFromJson(answer->body);
  }
  if (answer->kind != "begun") {
    return Status::Internal("ratchet-scorer answered \"" + answer->kind + "\" to begin");
  }
  client->evidence_path_ = answer->body.value("evidence", "");
  client->device_kind_ = answer->body.value("device_kind", "cpu");
  client->rule_set_ = answer->body.value("rule_set", Json());
  return client;
}

ScorerClient::~ScorerClient() {
  if (requests_ >= 0) close(requests_);
  requests_ = -1;
  if (!finished_ && pid_ > 0) {
    // The scorer reads end-of-file, finishes its evidence as failed and says so.
    while (Receive().ok()) {
    }
    Wait();
  }
  if (answers_ >= 0) close(answers_);
}

bool ScorerClient::interrupted() const { return InterruptForwarded(); }

Status ScorerClient::Send(const std::string& kind, const Json& body) {
  Result<std::string> encoded = EncodeRequest(kind, body);
  if (!encoded.ok()) return encoded.status();
  const std::string& line = *encoded;
  size_t done = 0;
  while (done < line.size()) {
    ssize_t n = write(requests_, line.data() + done, line.size() - done);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) {
      Wait();
      return ScorerStopped(raw_exit_);
    }
    done += static_cast<size_t>(n);
  }
  return Status::Ok();
}

Result<Message> ScorerClient::Receive() {
  while (true) {
    size_t newline = buffer_.find('\n');
    if (newline != std::string::npos) {
      const std::string line = buffer_.substr(0, newline);
      buffer_.erase(0, newline + 1);
      Result<Message> message = ParseMessage(line);
      if (!message.ok()) return message.status();
      if (message->kind == "out" || message->kind == "err") {
        std::ostream& stream = message->kind == "out" ? progress_.out : progress_.err;
        if (message->body.is_string()) stream << message->body.get<std::string>();
        stream.flush();
        continue;
      }
      return message;
    }
    if (answers_ < 0) {
      Wait();
      return ScorerStopped(raw_exit_);
    }
    char chunk[65536];
    ssize_t n = read(answers_, chunk, sizeof chunk);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) {
      close(answers_);
      answers_ = -1;
      Wait();
      return ScorerStopped(raw_exit_);
    }
    buffer_.append(chunk, static_cast<size_t>(n));
  }
}

int ScorerClient::Wait() {
  if (pid_ <= 0) return exit_code_;
  raw_exit_ = Reap(pid_, *forwarding_);
  exit_code_ = ExitCodeOfScorer(raw_exit_);
  pid_ = -1;
  return exit_code_;
}

Result<RecordResult> ScorerClient::Score(const RecordSpec& record, int runs, int first_run) {
  RATCHET_RETURN_IF_ERROR(Send(
      "score", {{"record", RecordSpecToJson(record)}, {"runs", runs}, {"first_run", first_run}}));
  Result<Message> answer = Receive();
  if (!answer.ok()) return answer.status();
  if (answer->kind == "error") {
    return StatusFromJson(answer->body);
  }
  if (answer->kind != "scored") {
    return Status::Internal("ratchet-scorer answered \"" + answer->kind + "\" to score");
  }
  const Json contract = answer->body.value("contract", Json());
  if (!contract.is_null()) contract_ = contract;
  return RecordResultFromJson(answer->body.value("result", Json()));
}

Status ScorerClient::WriteContract() {
  RATCHET_RETURN_IF_ERROR(Send("contract", Json::object()));
  Result<Message> answer = Receive();
  if (!answer.ok()) return answer.status();
  if (answer->kind != "contract") {
    return Status::Internal("ratchet-scorer answered \"" + answer->kind + "\" to contract");
  }
  const Json contract = answer->body.value("contract", Json());
  if (!contract.is_null()) contract_ = contract;
  const Json error = answer->body.value("error", Json());
  if (error.is_null()) return Status::Ok();
  return StatusFromJson(error);
}

int ScorerClient::FinishWith(const std::string& kind, const Json& body) {
  finished_ = true;
  Status sent = Send(kind, body);
  if (!sent.ok()) {
    // The scorer reads end-of-file and finishes its evidence as failed; it is waited for.
    close(requests_);
    requests_ = -1;
    while (Receive().ok()) {
    }
    Wait();
    const int code = ReportError(progress_.err, command_.c_str(), sent);
    return code;
  }
  Result<Message> answer = Receive();
  close(requests_);
  requests_ = -1;
  const int code = Wait();
  if (!answer.ok()) return ReportError(progress_.err, command_.c_str(), answer.status());
  return code;
}

Status ScorerClient::Complete(const Json& extra, int exit_code, const std::string& message) {
  const int code =
      FinishWith("complete", {{"extra", extra}, {"exit_code", exit_code}, {"message", message}});
  // The scorer has said why it could not finish, when it could not.
  if (code != exit_code) return Status::IOError("finishing the evidence", EIO);
  return Status::Ok();
}

int ScorerClient::Fail(const Status& status) { return FinishWith("fail", StatusToJson(status)); }

int ScorerClient::Interrupt() { return FinishWith("interrupt", Json::object()); }

}  // namespace ratchet
