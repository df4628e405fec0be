// A worker started for a conformance test with the protocol's descriptor layout: fd 0 /dev/null,
// fds 1 and 2 a log file, fd 3 the command pipe, fd 4 the reply pipe, fd 5 the input buffer
// (read-only), nothing else. A minimal posix_spawn, without the sandbox: these tests pin the
// protocol, not the isolation.
#ifndef RATCHET_TESTS_WORKER_WORKER_PROCESS_H_
#define RATCHET_TESTS_WORKER_WORKER_PROCESS_H_

#include <fcntl.h>
#include <signal.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <memory>
#include <optional>
#include <string>
#include <thread>
#include <vector>

#include "core/file.h"
#include "protocol/input_buffer.h"
#include "protocol/worker_channel.h"

extern char** environ;

namespace ratchet {

class WorkerProcess {
 public:
  // Starts argv[0] with the arguments that follow; nullptr and `error` set when it cannot.
  static std::unique_ptr<WorkerProcess> Start(const std::vector<std::string>& argv,
                                              const InputLayout& layout,
                                              const std::string& log_path, std::string* error) {
    std::unique_ptr<WorkerProcess> worker(new WorkerProcess(log_path));
    FrameLimits limits;
    limits.max_payload = kMaxPayloadBytes;
    Result<WorkerChannel> channel = WorkerChannel::Create(limits);
    Result<InputBuffer> buffer = InputBuffer::Create(layout);
    if (!channel.ok() || !buffer.ok()) {
      *error = channel.ok() ? buffer.status().message() : channel.status().message();
      return nullptr;
    }
    worker->channel_.emplace(std::move(channel).value());
    worker->buffer_.emplace(std::move(buffer).value());
    Result<UniqueFd> read_only = worker->buffer_->ReadOnlyFd();
    if (!read_only.ok()) {
      *error = read_only.status().message();
      return nullptr;
    }
    // Sources above the target numbers, so that no dup2 overwrites a source still to be moved.
    UniqueFd commands(fcntl(worker->channel_->worker_command_fd(), F_DUPFD_CLOEXEC, 10));
    UniqueFd replies(fcntl(worker->channel_->worker_reply_fd(), F_DUPFD_CLOEXEC, 10));
    UniqueFd inputs(fcntl(read_only->get(), F_DUPFD_CLOEXEC, 10));

    posix_spawn_file_actions_t actions;
    posix_spawn_file_actions_init(&actions);
    posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0);
    posix_spawn_file_actions_addopen(&actions, 1, log_path.c_str(),
                                     O_WRONLY | O_CREAT | O_TRUNC | O_APPEND, 0600);
    posix_spawn_file_actions_adddup2(&actions, 1, 2);
    posix_spawn_file_actions_adddup2(&actions, commands.get(), 3);
    posix_spawn_file_actions_adddup2(&actions, replies.get(), 4);
    posix_spawn_file_actions_adddup2(&actions, inputs.get(), 5);
    posix_spawn_file_actions_addclosefrom_np(&actions, 6);
    posix_spawnattr_t attributes;
    posix_spawnattr_init(&attributes);
    posix_spawnattr_setflags(&attributes, POSIX_SPAWN_SETPGROUP);
    posix_spawnattr_setpgroup(&attributes, 0);

    std::vector<std::string> copies(argv);
    std::vector<char*> args;
    for (std::string& arg : copies) args.push_back(arg.data());
    args.push_back(nullptr);
    int failed = posix_spawn(&worker->pid_, args[0], &actions, &attributes, args.data(), environ);
    posix_spawn_file_actions_destroy(&actions);
    posix_spawnattr_destroy(&attributes);
    worker->channel_->CloseWorkerEnds();
    if (failed != 0) {
      worker->pid_ = -1;
      *error = "posix_spawn " + argv[0] + ": " + std::to_string(failed);
      return nullptr;
    }
    return worker;
  }

  ~WorkerProcess() {
    if (pid_ > 0) {
      kill(-pid_, SIGKILL);
      waitpid(pid_, nullptr, 0);
    }
  }

  Result<Frame> Request(const Json& command, double timeout_s = 120) {
    return channel_->Request(command, timeout_s, "sending " + command.value("cmd", "?"));
  }

  InputBuffer& buffer() { return *buffer_; }
  pid_t pid() const { return pid_; }
  WorkerChannel& channel() { return *channel_; }

  // Closes the command pipe and waits for the worker to exit: its wait status, or nullopt if it
  // was still running after `timeout_s`.
  std::optional<int> CloseAndWait(double timeout_s) {
    channel_->CloseCommands();
    const auto end = std::chrono::steady_clock::now() +
                     std::chrono::milliseconds(static_cast<int64_t>(timeout_s * 1000));
    while (std::chrono::steady_clock::now() < end) {
      int status = 0;
      if (waitpid(pid_, &status, WNOHANG) == pid_) {
        pid_ = -1;
        return status;
      }
      std::this_thread::sleep_for(std::chrono::milliseconds(10));
    }
    return std::nullopt;
  }

  std::string Log() const {
    Result<std::string> text = ReadFile(log_path_);
    return text.ok() ? *text : "";
  }

 private:
  explicit WorkerProcess(std::string log_path) : log_path_(std::move(log_path)) {}

  std::string log_path_;
  pid_t pid_ = -1;
  std::optional<WorkerChannel> channel_;
  std::optional<InputBuffer> buffer_;
};

}  // namespace ratchet

#endif  // RATCHET_TESTS_WORKER_WORKER_PROCESS_H_
