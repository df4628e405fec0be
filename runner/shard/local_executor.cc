#include "shard/local_executor.h"

#include <fcntl.h>
#include <signal.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <ctime>
#include <thread>

extern char** environ;

namespace ratchet {

AttemptEnd ShardProcessEnd(int wait_status, bool cancelled, std::string* why) {
  if (WIFEXITED(wait_status)) {
    const int code = WEXITSTATUS(wait_status);
    if (code == 0 || code == 1) return AttemptEnd::kScored;
    if (cancelled && code == 130) {
      *why = "the run was interrupted";
      return AttemptEnd::kCancelled;
    }
    *why = "the scorer exited " + std::to_string(code) +
           (code == 130 ? " (interrupted, but not by this run)"
            : code == 2 ? " (bad input)"
            : code == 3 ? " (the harness failed)"
                        : "");
    return AttemptEnd::kFault;
  }
  if (WIFSIGNALED(wait_status)) {
    const int sig = WTERMSIG(wait_status);
    *why = "the scorer was killed by signal " + std::to_string(sig) + " (" + strsignal(sig) + ")";
    if (cancelled) return AttemptEnd::kCancelled;
    return AttemptEnd::kFault;
  }
  *why = "the scorer ended with wait status " + std::to_string(wait_status);
  return AttemptEnd::kFault;
}

LocalExecutor::LocalExecutor(std::vector<std::string> devices, ShardCommandMaker maker)
    : devices_(std::move(devices)), busy_(devices_.size(), false), maker_(std::move(maker)) {
  char name[256] = {};
  if (gethostname(name, sizeof name - 1) == 0) host_ = name;
}

LocalExecutor::~LocalExecutor() {
  for (Running& r : running_) {
    kill(r.pid, SIGKILL);
    int status = 0;
    while (waitpid(r.pid, &status, 0) < 0 && errno == EINTR) {
    }
  }
}

Status LocalExecutor::Start(const Shard& shard, int attempt) {
  size_t slot = 0;
  while (slot < busy_.size() && busy_[slot]) ++slot;
  if (slot == busy_.size()) return Status::Internal("no device is free for " + shard.id);
  const std::string& device = devices_[slot];
  Result<ShardCommand> command = maker_(shard, attempt, device);
  if (!command.ok()) return command.status();
  if (command->argv.empty()) return Status::Internal("an empty command for shard " + shard.id);

  std::map<std::string, std::string> env;
  for (char** e = environ; *e != nullptr; ++e) {
    const std::string entry = *e;
    const size_t eq = entry.find('=');
    if (eq != std::string::npos) env[entry.substr(0, eq)] = entry.substr(eq + 1);
  }
  if (device != "cpu") env["CUDA_VISIBLE_DEVICES"] = device;
  for (const auto& [name, value] : command->env) env[name] = value;
  std::vector<std::string> env_strings;
  for (const auto& [name, value] : env) env_strings.push_back(name + "=" + value);
  std::vector<char*> envp;
  for (std::string& s : env_strings) envp.push_back(s.data());
  envp.push_back(nullptr);
  std::vector<std::string> args = command->argv;
  std::vector<char*> argv;
  for (std::string& s : args) argv.push_back(s.data());
  argv.push_back(nullptr);

  posix_spawn_file_actions_t actions;
  posix_spawn_file_actions_init(&actions);
  auto redirect = [&](int fd, const std::string& path, int flags) {
    posix_spawn_file_actions_addopen(&actions, fd, path.empty() ? "/dev/null" : path.c_str(),
                                     flags, 0644);
  };
  redirect(0, command->stdin_path, O_RDONLY);
  redirect(1, command->stdout_path, O_WRONLY | O_CREAT | O_TRUNC);
  redirect(2, command->stderr_path, O_WRONLY | O_CREAT | O_TRUNC);
  // The shard's process is a process group of its own, with SIGINT, SIGTERM and SIGHUP unblocked and at
  // their defaults: a Ctrl-C on the terminal reaches ratchet alone, which cancels each shard
  // (CancelAll) and so knows a cancelled shard from one that failed.
  posix_spawnattr_t attributes;
  posix_spawnattr_init(&attributes);
  sigset_t none, defaults;
  sigemptyset(&none);
  sigemptyset(&defaults);
  sigaddset(&defaults, SIGINT);
  sigaddset(&defaults, SIGTERM);
  sigaddset(&defaults, SIGHUP);
  sigaddset(&defaults, SIGPIPE);
  posix_spawnattr_setsigmask(&attributes, &none);
  posix_spawnattr_setsigdefault(&attributes, &defaults);
  posix_spawnattr_setpgroup(&attributes, 0);
  posix_spawnattr_setflags(&attributes, POSIX_SPAWN_SETPGROUP | POSIX_SPAWN_SETSIGMASK |
                                            POSIX_SPAWN_SETSIGDEF);
  pid_t pid = -1;
  const int error =
      posix_spawn(&pid, argv[0], &actions, &attributes, argv.data(), envp.data());
  posix_spawnattr_destroy(&attributes);
  posix_spawn_file_actions_destroy(&actions);
  if (error != 0) return Status::IOError("starting " + command->argv[0], error);

  Running r;
  r.shard = shard;
  r.slot = slot;
  r.pid = pid;
  r.start = std::chrono::steady_clock::now();
  r.attempt.attempt = attempt;
  r.attempt.executor = "local";
  r.attempt.host = host_;
  r.attempt.device = device;
  r.attempt.started = UtcNow();
  r.attempt.submitted = r.attempt.started;
  r.attempt.folder = command->folder;
  busy_[slot] = true;
  running_.push_back(std::move(r));
  return Status::Ok();
}

std::optional<std::pair<std::string, ShardAttempt>> LocalExecutor::Wait(
    std::chrono::milliseconds timeout) {
  const auto until = std::chrono::steady_clock::now() + timeout;
  for (;;) {
    for (size_t i = 0; i < running_.size(); ++i) {
      int status = 0;
      const pid_t done = waitpid(running_[i].pid, &status, WNOHANG);
      if (done != running_[i].pid) continue;
      Running r = std::move(running_[i]);
      running_.erase(running_.begin() + static_cast<std::ptrdiff_t>(i));
      busy_[r.slot] = false;
      r.attempt.ended = UtcNow();
      r.attempt.seconds =
          std::chrono::duration<double>(std::chrono::steady_clock::now() - r.start).count();
      r.attempt.end = ShardProcessEnd(status, r.cancelled, &r.attempt.why);
      return std::make_pair(r.shard.id, r.attempt);
    }
    if (running_.empty() || std::chrono::steady_clock::now() >= until) return std::nullopt;
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
  }
}

void LocalExecutor::CancelAll() {
  for (Running& r : running_) {
    r.cancelled = true;
    kill(r.pid, SIGTERM);
  }
}

void LocalExecutor::KillAll() {
  // The shard's whole process group: score-shard and what it started that kept the group.
  for (Running& r : running_) {
    r.cancelled = true;
    kill(-r.pid, SIGKILL);
  }
}

}  // namespace ratchet
