// Runs the built ratchet binary as a user would, for black-box tests: the exit code and what it
// wrote to stdout and stderr. $RATCHET_BINARY names the binary (set by tests/CMakeLists.txt).
#ifndef RATCHET_TESTS_SUPPORT_RUN_BINARY_H_
#define RATCHET_TESTS_SUPPORT_RUN_BINARY_H_

#include <fcntl.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstdlib>
#include <string>
#include <vector>

extern char** environ;

namespace ratchet {

struct BinaryRun {
  int exit_code = -1;
  std::string out;
  std::string err;
};

inline std::string RatchetBinary() {
  const char* path = std::getenv("RATCHET_BINARY");
  return path ? path : "ratchet";
}

inline std::string SlurpFd(int fd) {
  std::string text;
  char buffer[4096];
  ssize_t n;
  lseek(fd, 0, SEEK_SET);
  while ((n = read(fd, buffer, sizeof buffer)) > 0) text.append(buffer, static_cast<size_t>(n));
  return text;
}

// `ratchet args...` started and not yet waited for: what a test that signals it, or acts while it
// runs, holds.
struct StartedRatchet {
  pid_t pid = -1;
  int out_fd = -1, err_fd = -1;
};

// Starts `ratchet args...` with the environment of the test plus `extra_env` ("NAME=value").
inline StartedRatchet StartRatchet(const std::vector<std::string>& args,
                                   const std::vector<std::string>& extra_env = {}) {
  StartedRatchet started;
  char out_name[] = "/tmp/ratchet-out-XXXXXX";
  char err_name[] = "/tmp/ratchet-err-XXXXXX";
  started.out_fd = mkstemp(out_name);
  started.err_fd = mkstemp(err_name);
  unlink(out_name);
  unlink(err_name);
  posix_spawn_file_actions_t actions;
  posix_spawn_file_actions_init(&actions);
  posix_spawn_file_actions_adddup2(&actions, started.out_fd, 1);
  posix_spawn_file_actions_adddup2(&actions, started.err_fd, 2);
  std::string binary = RatchetBinary();
  std::vector<char*> argv{binary.data()};
  std::vector<std::string> copies(args);
  for (std::string& arg : copies) argv.push_back(arg.data());
  argv.push_back(nullptr);
  std::vector<std::string> env_copies(extra_env);
  std::vector<char*> envp;
  for (char** e = environ; *e; ++e) envp.push_back(*e);
  for (std::string& e : env_copies) envp.push_back(e.data());
  envp.push_back(nullptr);
  if (posix_spawn(&started.pid, binary.c_str(), &actions, nullptr, argv.data(), envp.data()) != 0) {
    started.pid = -1;
  }
  posix_spawn_file_actions_destroy(&actions);
  return started;
}

// Waits for a started ratchet: its exit code and what it wrote.
inline BinaryRun FinishRatchet(StartedRatchet& started) {
  BinaryRun run;
  if (started.pid > 0) {
    int status = 0;
    waitpid(started.pid, &status, 0);
    run.exit_code = WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
  }
  run.out = SlurpFd(started.out_fd);
  run.err = SlurpFd(started.err_fd);
  close(started.out_fd);
  close(started.err_fd);
  started.pid = -1;
  return run;
}

// Runs `ratchet args...` with the environment of the test plus `extra_env` ("NAME=value").
inline BinaryRun RunRatchet(const std::vector<std::string>& args,
                            const std::vector<std::string>& extra_env = {}) {
  StartedRatchet started = StartRatchet(args, extra_env);
  return FinishRatchet(started);
}

}  // namespace ratchet

#endif  // RATCHET_TESTS_SUPPORT_RUN_BINARY_H_
