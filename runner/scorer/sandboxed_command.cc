#include "scorer/sandboxed_command.h"

#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <filesystem>

#include "core/file.h"
#include "core/utf8.h"
#include "protocol/deadline.h"
#include "sandbox/policy.h"
#include "sandbox/reap.h"
#include "sandbox/spawn.h"
#include "scorer/worker_process.h"

namespace ratchet {

Result<SandboxedResult> RunSandboxed(const SandboxedCommand& command) {
  const bool full = DescribeSandbox().full;
  if (full) RATCHET_RETURN_IF_ERROR(ReapWorkerUids());
  Result<std::string> folder =
      MakeWorkerFolder(command.copies, command.files, FirstWorkerUid(), command.folder_bytes);
  if (!folder.ok()) return folder.status();
  auto cleanup = [&] {
    if (full) KillSandboxProcesses(FirstWorkerUid());
    RemoveWorkerFolder(*folder);
  };
  int pipe_fds[2];
  if (pipe2(pipe_fds, O_CLOEXEC) != 0) {
    cleanup();
    return Status::IOError("pipe2", errno);
  }
  SpawnSpec spec;
  spec.argv = ExpandFolder(command.argv, *folder);
  spec.env = WorkerEnvironment(*folder, command.extra_env, command.path_first);
  spec.cwd = *folder;
  spec.fds = {{pipe_fds[1], 1}, {pipe_fds[1], 2}};
  spec.covered = command.covered;
  spec.view_folders = command.view_folders;
  spec.file_size_bytes = command.file_size_bytes;
  spec.processes = command.group.processes;
  std::unique_ptr<ProcessGroup> group;  // removed after the job's processes (declared after
                                        // nothing that outlives them)
  if (full) {
    Result<std::unique_ptr<ProcessGroup>> made = ProcessGroup::Create(command.group);
    if (!made.ok()) {
      close(pipe_fds[0]);
      close(pipe_fds[1]);
      cleanup();
      return made.status().Annotate("the control group of " + BaseName(command.argv[0]));
    }
    group = std::move(*made);
    spec.group_fds = group->join_fds();
  }
  Result<pid_t> pid = Spawn(spec);
  close(pipe_fds[1]);
  if (!pid.ok()) {
    close(pipe_fds[0]);
    cleanup();
    return pid.status().Annotate("starting " + BaseName(command.argv[0]));
  }
  SandboxedResult result;
  const Deadline deadline = Deadline::In(command.timeout_s);
  for (;;) {
    pollfd ready = {pipe_fds[0], POLLIN, 0};
    int n = poll(&ready, 1, deadline.PollTimeoutMs());
    if (n < 0 && errno == EINTR) continue;
    if (n == 0 || deadline.Expired()) {
      result.timed_out = true;
      break;
    }
    char chunk[65536];
    ssize_t got = read(pipe_fds[0], chunk, sizeof chunk);
    if (got < 0 && errno == EINTR) continue;
    if (got <= 0) break;
    result.output.append(chunk, static_cast<size_t>(got));
    if (result.output.size() > 2 * command.output_bytes) {
      result.output.erase(0, result.output.size() - command.output_bytes);
    }
  }
  close(pipe_fds[0]);
  kill(-*pid, SIGKILL);
  int status = 0;
  while (waitpid(*pid, &status, 0) < 0 && errno == EINTR) {
  }
  // The job's words are kept in the evidence: cut at a character and made valid UTF-8, so that
  // no output it prints can stop its verdict being written.
  result.output = ValidUtf8Tail(result.output, command.output_bytes);
  // Paths in the job's folder read as relative to it: the folder's name is ratchet's, not the
  // job's, and changes from run to run.
  const std::string prefix = *folder + "/";
  for (size_t at; (at = result.output.find(prefix)) != std::string::npos;) {
    result.output.erase(at, prefix.size());
  }
  result.exit_code = WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
  // Nothing of the job may run while its outputs are read: a process it left behind could swap
  // an output for a symlink between the check and the read below.
  // (Only the processes: reaping the files now would take the outputs with them.)
  if (full) {
    for (int attempt = 0; !ProcessesOfUser(FirstWorkerUid()).empty(); ++attempt) {
      if (attempt == 100) {
        cleanup();
        return Status::Unavailable("processes of the sandbox user survived SIGKILL after " +
                                   BaseName(command.argv[0]));
      }
      SignalUser(FirstWorkerUid(), SIGKILL);
      usleep(10000);
    }
  }
  if (group) {
    Result<GroupUsage> usage = group->Usage();
    if (usage.ok()) {
      result.memory_hit = usage->memory_kills > 0;
      result.processes_hit = usage->process_refusals > 0;
    }
    result.file_size_hit = FileReached(*folder, command.file_size_bytes);
  }
  Status copied;
  if (!result.timed_out && result.exit_code == 0) {
    for (const auto& [name, destination] : command.outputs) {
      // The job owns its folder: an output that is a symlink could point at a root-only file.
      const std::string produced = *folder + "/" + name;
      struct stat info;
      if (lstat(produced.c_str(), &info) != 0 || !S_ISREG(info.st_mode)) {
        copied =
            Status::BadInput(BaseName(command.argv[0]) + " did not produce a regular file " + name);
        break;
      }
      Result<std::string> bytes = ReadFile(produced);
      if (!bytes.ok()) {
        copied = bytes.status();
        break;
      }
      copied = WriteFileAtomic(destination, *bytes, 0644);
      if (!copied.ok()) break;
    }
  }
  // What the job read (headers a source chose to include, say) leaves the page cache before a
  // method runs.
  if (group) {
    Result<uint64_t> left = group->DropPageCache();
    if (copied.ok() && !left.ok()) copied = left.status().Annotate("dropping the pages it read");
  }
  cleanup();
  if (!copied.ok()) return copied;
  return result;
}

}  // namespace ratchet
