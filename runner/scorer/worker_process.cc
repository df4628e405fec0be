#include "scorer/worker_process.h"

#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <sys/statvfs.h>
#include <sys/wait.h>
#include <unistd.h>

#include <atomic>
#include <cerrno>
#include <cstdlib>
#include <filesystem>
#include <mutex>
#include <thread>

#include "core/file.h"
#include "rules/rule_ids.h"
#include "sandbox/reap.h"
#include "sandbox/spawn.h"

namespace ratchet {

std::string FormatBytes(int64_t bytes) {
  if (bytes > 0 && bytes % (int64_t{1} << 30) == 0) return std::to_string(bytes >> 30) + " GiB";
  if (bytes > 0 && bytes % (int64_t{1} << 20) == 0) return std::to_string(bytes >> 20) + " MiB";
  return std::to_string(bytes) + " bytes";
}

// The worker's environment: nothing of the parent's but PATH, the locale and the device choice;
// every cache points into the worker's own folder, so nothing outlives the call.
std::vector<std::string> WorkerEnvironment(const std::string& folder,
                                           const std::vector<std::string>& extra,
                                           const std::string& path_first) {
  std::string path = "/usr/local/bin:/usr/bin:/bin";
  if (!path_first.empty() && path_first != "/usr/local/bin" && path_first != "/usr/bin" &&
      path_first != "/bin") {
    path = path_first + ":" + path;
  }
  std::vector<std::string> env = {
      "PATH=" + path,
      "LANG=C.UTF-8",
      "HOME=" + folder,
      // Who the worker is, for getpass.getuser() (torch's compile caches): its uid is in no
      // account database.
      "USER=ratchet-worker",
      "LOGNAME=ratchet-worker",
      "TMPDIR=" + folder + "/tmp",
      "XDG_CACHE_HOME=" + folder + "/cache",
      "TRITON_CACHE_DIR=" + folder + "/cache/triton",
      "TORCHINDUCTOR_CACHE_DIR=" + folder + "/cache/inductor",
      "TORCH_EXTENSIONS_DIR=" + folder + "/cache/torch_extensions",
      "CUDA_CACHE_PATH=" + folder + "/cache/nv",
      "PYTHONDONTWRITEBYTECODE=1",
  };
  for (const char* passed : {"CUDA_VISIBLE_DEVICES"}) {
    if (const char* value = std::getenv(passed)) env.push_back(std::string(passed) + "=" + value);
  }
  env.insert(env.end(), extra.begin(), extra.end());
  return env;
}

namespace {

Status ChownTree(const std::string& root, uid_t uid) {
  if (chown(root.c_str(), uid, kSandboxGid) != 0) return Status::IOError("chown " + root, errno);
  std::error_code error;
  for (auto it = std::filesystem::recursive_directory_iterator(root, error);
       !error && it != std::filesystem::recursive_directory_iterator(); it.increment(error)) {
    if (lchown(it->path().c_str(), uid, kSandboxGid) != 0) {
      return Status::IOError("chown " + it->path().string(), errno);
    }
  }
  return Status::Ok();
}

}  // namespace

// Drains the worker's stdout/stderr pipe on a thread, keeping the last `cap` bytes, so that a
// method that prints without end neither blocks nor fills a disk.
struct WorkerProcess::LogReader {
  int fd = -1;
  size_t cap = 0;
  mutable std::mutex mutex;
  std::string tail;
  uint64_t total = 0;
  std::thread thread;
  // Set once the worker is dead: the reader then stops when the pipe has been quiet for a
  // moment, even if a process the method left outside the sandbox user still holds it open.
  std::atomic<bool> stopping{false};

  void Run() {
    char chunk[65536];
    for (;;) {
      pollfd ready = {fd, POLLIN, 0};
      int n_ready = poll(&ready, 1, 100);
      if (n_ready < 0 && errno == EINTR) continue;
      if (n_ready == 0) {
        if (stopping.load()) break;
        continue;
      }
      ssize_t n = read(fd, chunk, sizeof chunk);
      if (n < 0 && errno == EINTR) continue;
      if (n <= 0) break;
      std::lock_guard<std::mutex> lock(mutex);
      total += static_cast<uint64_t>(n);
      tail.append(chunk, static_cast<size_t>(n));
      if (tail.size() > 2 * cap + sizeof chunk) tail.erase(0, tail.size() - cap);
    }
  }
  ~LogReader() {
    stopping.store(true);
    if (thread.joinable()) thread.join();
    if (fd >= 0) close(fd);
  }
};

void RemoveWorkerFolder(const std::string& folder) {
  // The folder's own tmpfs (a partial sandbox has none: EINVAL), detached even while a dying
  // worker still holds it; its memory goes with the last reference.
  umount2(folder.c_str(), MNT_DETACH);
  std::error_code ignored;
  std::filesystem::remove_all(folder, ignored);
}

bool FolderFull(const std::string& folder) {
  struct statvfs info;
  if (statvfs(folder.c_str(), &info) != 0) return false;
  return info.f_bavail == 0 || (info.f_files > 0 && info.f_favail == 0);
}

bool FileReached(const std::string& folder, uint64_t bytes) {
  std::error_code error;
  for (auto it = std::filesystem::recursive_directory_iterator(folder, error);
       !error && it != std::filesystem::recursive_directory_iterator(); it.increment(error)) {
    std::error_code size_error;
    if (!it->is_symlink(size_error) && it->is_regular_file(size_error) &&
        it->file_size(size_error) == bytes && !size_error) {
      return true;
    }
  }
  return false;
}

Result<std::string> MakeWorkerFolder(const std::vector<std::string>& copies,
                                     const std::vector<FolderFile>& files, uid_t uid,
                                     uint64_t folder_bytes,
                                     const std::vector<FolderFile>* caches) {
  std::string pattern = std::string(kWorkerFolderPrefix) + "XXXXXX";
  if (mkdtemp(pattern.data()) == nullptr) {
    return Status::IOError("mkdtemp " + std::string(kWorkerFolderPrefix) + "*", errno);
  }
  const std::string folder = pattern;
  auto made = [&]() -> Status {
    // Under the full sandbox the folder is a tmpfs of its own, as large as `folder_bytes`:
    // what a worker writes there (its caches, a compile's objects) is bounded and never reaches
    // the machine's disk.
    if (DescribeSandbox().full) {
      const std::string options =
          "size=" + std::to_string(folder_bytes) + ",nr_inodes=65536,mode=0700";
      if (mount("ratchet-worker", folder.c_str(), "tmpfs", MS_NOSUID | MS_NODEV, options.c_str()) !=
          0) {
        return Status::IOError("mount a tmpfs (" + options + ") at " + folder, errno);
      }
    }
    // tmp/ and shm/ are also the view's /tmp, /var/tmp and /dev/shm (view.h, kPrivateTemp).
    for (const char* sub : {"/tmp", "/shm", "/cache"}) {
      std::string path = folder + sub;
      if (mkdir(path.c_str(), 0700) != 0) return Status::IOError("mkdir " + path, errno);
    }
    for (const std::string& source : copies) {
      Result<std::string> bytes = ReadFile(source);
      if (!bytes.ok()) return bytes.status();
      struct stat info;
      const bool executable = stat(source.c_str(), &info) == 0 && (info.st_mode & S_IXUSR);
      RATCHET_RETURN_IF_ERROR(
          WriteFileAtomic(folder + "/" + BaseName(source), *bytes, executable ? 0700 : 0600));
    }
    std::vector<const FolderFile*> given;
    for (const FolderFile& file : files) given.push_back(&file);
    if (caches) {
      for (const FolderFile& file : *caches) given.push_back(&file);
    }
    for (const FolderFile* each : given) {
      const FolderFile& file = *each;
      const std::string path = folder + "/" + file.name;
      for (size_t slash = file.name.find('/'); slash != std::string::npos;
           slash = file.name.find('/', slash + 1)) {
        const std::string sub = folder + "/" + file.name.substr(0, slash);
        if (mkdir(sub.c_str(), 0700) != 0 && errno != EEXIST)
          return Status::IOError("mkdir " + sub, errno);
      }
      RATCHET_RETURN_IF_ERROR(WriteFileAtomic(path, file.bytes, 0600));
      if (file.mtime_ns >= 0) {
        const timespec times[2] = {{0, UTIME_OMIT},
                                   {static_cast<time_t>(file.mtime_ns / 1000000000),
                                    static_cast<long>(file.mtime_ns % 1000000000)}};
        if (utimensat(AT_FDCWD, path.c_str(), times, 0) != 0) {
          return Status::IOError("set the time of " + path, errno);
        }
      }
    }
    if (DescribeSandbox().full) return ChownTree(folder, uid);
    return Status::Ok();
  }();
  if (!made.ok()) {
    RemoveWorkerFolder(folder);
    return made;
  }
  return folder;
}

std::vector<std::string> ExpandFolder(const std::vector<std::string>& argv,
                                      const std::string& folder) {
  std::vector<std::string> out;
  for (std::string arg : argv) {
    for (size_t at; (at = arg.find(kWorkerFolderToken)) != std::string::npos;) {
      arg.replace(at, sizeof kWorkerFolderToken - 1, folder);
    }
    out.push_back(arg);
  }
  return out;
}

Result<std::unique_ptr<WorkerProcess>> WorkerProcess::Start(const WorkerLaunch& launch, uid_t uid) {
  std::unique_ptr<WorkerProcess> worker(new WorkerProcess());
  worker->sandbox_uid_ = DescribeSandbox().full;
  worker->uid_ = uid;
  worker->limits_ = launch.limits;

  Result<std::string> folder =
      MakeWorkerFolder(launch.copies, launch.files, uid,
                       static_cast<uint64_t>(launch.limits.folder_bytes), launch.caches.get());
  if (!folder.ok()) return folder.status();
  worker->folder_ = *folder;
  if (launch.caches) worker->caches_sha256_ = launch.caches_sha256;

  Result<InputLayout> layout = InputLayout::Make(launch.train, launch.test, launch.dims);
  if (!layout.ok()) return layout.status();
  Result<InputBuffer> buffer = InputBuffer::Create(*layout);
  if (!buffer.ok()) return buffer.status();
  worker->buffer_ = std::make_unique<InputBuffer>(std::move(*buffer));
  Result<UniqueFd> read_only = worker->buffer_->ReadOnlyFd();
  if (!read_only.ok()) return read_only.status();

  FrameLimits limits;
  limits.max_json = launch.max_header;
  limits.max_payload = launch.max_reply_bytes;
  Result<WorkerChannel> channel = WorkerChannel::Create(limits);
  if (!channel.ok()) return channel.status();
  worker->channel_ = std::make_unique<WorkerChannel>(std::move(*channel));

  int log_pipe[2];
  if (pipe2(log_pipe, O_CLOEXEC) != 0) return Status::IOError("pipe2 for the worker's log", errno);
  worker->log_ = std::make_unique<LogReader>();
  worker->log_->fd = log_pipe[0];
  worker->log_->cap = launch.log_bytes;

  SpawnSpec spec;
  spec.argv = ExpandFolder(launch.argv, worker->folder_);
  spec.env = WorkerEnvironment(worker->folder_, launch.extra_env, launch.path_first);
  spec.cwd = worker->folder_;
  spec.fds = {{log_pipe[1], 1},
              {log_pipe[1], 2},
              {worker->channel_->worker_command_fd(), 3},
              {worker->channel_->worker_reply_fd(), 4},
              {read_only->get(), 5}};
  spec.covered = launch.covered;
  spec.view_folders = launch.view_folders;
  spec.uid = uid;
  spec.file_size_bytes = static_cast<uint64_t>(launch.limits.file_bytes);
  spec.processes = static_cast<uint64_t>(launch.limits.processes);
  if (worker->sandbox_uid_) {
    GroupLimits group;
    group.memory_bytes = static_cast<uint64_t>(launch.limits.memory_bytes);
    group.processes = static_cast<uint64_t>(launch.limits.processes);
    Result<std::unique_ptr<ProcessGroup>> made = ProcessGroup::Create(group);
    if (!made.ok()) {
      close(log_pipe[1]);
      return made.status().Annotate("the worker's control group");
    }
    worker->group_ = std::move(*made);
    spec.group_fds = worker->group_->join_fds();
  }
  Result<pid_t> pid = Spawn(spec);
  close(log_pipe[1]);
  worker->channel_->CloseWorkerEnds();
  if (!pid.ok()) return pid.status().Annotate("starting the worker " + launch.argv[0]);
  worker->pid_ = *pid;
  LogReader* reader = worker->log_.get();
  worker->log_->thread = std::thread([reader] { reader->Run(); });
  return worker;
}

std::optional<CallFailure> WorkerProcess::Request(const Json& command, double timeout_s,
                                                  const std::string& doing, Frame* reply,
                                                  bool spin) {
  Deadline deadline = Deadline::In(timeout_s);
  if (spin) deadline = deadline.Spinning();
  if (std::optional<CallFailure> failure =
          Failed(channel_->Send(command, deadline, doing), timeout_s, doing)) {
    return failure;
  }
  return Answered(channel_->Receive(deadline, doing), timeout_s, doing, reply);
}

std::optional<CallFailure> WorkerProcess::Send(const Json& command, double timeout_s,
                                               const std::string& doing) {
  return Failed(channel_->Send(command, Deadline::In(timeout_s), doing), timeout_s, doing);
}

std::optional<CallFailure> WorkerProcess::Receive(double timeout_s, const std::string& doing,
                                                  Frame* reply, bool spin) {
  Deadline deadline = Deadline::In(timeout_s);
  return Answered(channel_->Receive(spin ? deadline.Spinning() : deadline, doing), timeout_s, doing,
                  reply);
}

std::optional<CallFailure> WorkerProcess::Failed(const Status& status, double timeout_s,
                                                 const std::string& doing) {
  if (status.ok()) return std::nullopt;
  // Before Close(), which removes the folder whose fullness it reads.
  if (std::optional<CallFailure> limit = LimitHit()) {
    limit->message += " (while " + doing + ")";
    return limit;
  }
  switch (channel_->last_failure()) {
    case FrameFailure::kTimeout:
      return CallFailure{kRuleTimeout, "timed out after " +
                                           std::to_string(static_cast<int64_t>(timeout_s)) +
                                           " s while " + doing};
    case FrameFailure::kClosed: {
      Close();
      if (exit_description_ == "signal " + std::to_string(SIGXFSZ)) {
        return CallFailure{kRuleDisk,
                           "the worker was killed for writing a file past the limit of " +
                               std::to_string(limits_.file_bytes) + " bytes (sandbox." +
                               "file_bytes) while " + doing};
      }
      return CallFailure{kRuleCrash,
                         "the worker's process ended (" + exit_description_ + ") while " + doing};
    }
    case FrameFailure::kMalformed:
    case FrameFailure::kBadJson:
      return CallFailure{kRuleCrash, status.message()};
    default:
      return CallFailure{kRuleCrash, status.message(), /*harness=*/true};
  }
}

std::optional<CallFailure> WorkerProcess::Answered(Result<Frame> frame, double timeout_s,
                                                   const std::string& doing, Frame* reply) {
  if (!frame.ok()) return Failed(frame.status(), timeout_s, doing);
  // Once a method is loaded it shares the worker's process and can write replies of its own, so
  // nothing in a reply decides that a failure is the harness's: the caller marks the steps that
  // come before the method (hello, calibration) as such. Every field is checked for its type.
  const Json& header = frame->header;
  auto text = [&header](const char* key, const std::string& otherwise) {
    auto it = header.find(key);
    return it != header.end() && it->is_string() ? it->get<std::string>() : otherwise;
  };
  auto ok = header.find("ok");
  if (ok == header.end() || !ok->is_boolean()) {
    return CallFailure{kRuleCrash,
                       "the worker sent a reply without a boolean \"ok\" while " + doing};
  }
  if (!ok->get<bool>()) {
    if (std::optional<CallFailure> limit = LimitHit()) {
      limit->message +=
          " (while " + doing + "; the method failed:\n" + text("error", "(no error text)") + ")";
      return limit;
    }
    const std::string kind = text("kind", "method");
    const std::string rule = kind == "import"   ? kRuleImport
                             : kind == "output" ? kRuleOutput
                                                : kRuleCrash;
    return CallFailure{rule, doing + " failed:\n" + text("error", "(no error text)")};
  }
  *reply = std::move(*frame);
  return std::nullopt;
}

Status WorkerProcess::Freeze(bool stop, bool whole_uid) {
  if (pid_ <= 0) return Status::Ok();
  const int sig = stop ? SIGSTOP : SIGCONT;
  Status first;
  if (kill(-pid_, sig) != 0 && errno != ESRCH) {
    first = Status::IOError("kill(-" + std::to_string(pid_) + ", " +
                                (stop ? "SIGSTOP" : "SIGCONT") + ") of the worker's group",
                            errno);
  }
  if (sandbox_uid_ && whole_uid) {
    Status user = FreezeSandboxProcesses(uid_, stop);
    if (first.ok()) first = user;
  }
  return first;
}

Status WorkerProcess::AwaitFrozen(double timeout_s, bool whole_uid) {
  if (pid_ <= 0) return Status::Ok();
  std::vector<pid_t> pids =
      sandbox_uid_ && whole_uid ? ProcessesOfUser(uid_) : std::vector<pid_t>();
  if (std::find(pids.begin(), pids.end(), pid_) == pids.end()) pids.push_back(pid_);
  return AwaitStopped(pids, timeout_s);
}

std::optional<CallFailure> WorkerProcess::EnterMethod() {
  if (!group_ || pid_ <= 0) return std::nullopt;
  Status entered = group_->EnterMethod(pid_);
  if (entered.ok()) return std::nullopt;
  return CallFailure{kRuleCrash, "the worker could not be moved into its method's group: " +
                                     entered.message(),
                     /*harness=*/true};
}

Status WorkerProcess::Kill() {
  Status stopped;
  if (pid_ > 0 && !killed_) {
    kill(-pid_, SIGKILL);
    kill(pid_, SIGKILL);
    // Whatever the method started (a forked child in another session) goes with the sandbox
    // user's processes; its log pipe then closes.
    if (sandbox_uid_) stopped = StopSandboxProcesses(uid_);
    killed_ = true;
    // Before a later call's method can run: what this call's method read into the page cache
    // leaves it. (A worker whose method was never loaded read only what every worker reads.)
    if (group_ && group_->method_entered()) {
      Result<uint64_t> left = group_->DropPageCache();
      if (left.ok()) page_cache_left_ = *left;
      if (stopped.ok() && !left.ok()) {
        stopped = left.status().Annotate("dropping the pages the worker read");
      }
    }
  }
  return stopped;
}

void WorkerProcess::Close() {
  const bool killed_before = killed_;
  if (pid_ > 0) {
    (void)Kill();
    int status = 0;
    while (waitpid(pid_, &status, 0) < 0 && errno == EINTR) {
    }
    exit_description_ = WIFEXITED(status) ? "exit " + std::to_string(WEXITSTATUS(status))
                                          : "signal " + std::to_string(WTERMSIG(status));
    pid_ = -1;
  }
  // Without an earlier Kill(), no other worker can exist yet: wait until every process of the
  // sandbox user is gone, not only exiting.
  if (sandbox_uid_ && !killed_before) KillSandboxProcesses(uid_);
  if (log_) {
    log_->stopping.store(true);
    if (log_->thread.joinable()) log_->thread.join();
  }
  if (!folder_.empty()) {
    RemoveWorkerFolder(folder_);
    folder_.clear();
  }
}

uint64_t WorkerProcess::buffer_bytes() const { return buffer_->bytes(); }

WorkerProcess::~WorkerProcess() {
  Close();
  group_.reset();  // after every process of it is gone
}

std::optional<CallFailure> WorkerProcess::LimitHit() const {
  if (group_) {
    Result<GroupUsage> usage = group_->Usage();
    if (usage.ok() && usage->memory_kills > 0) {
      return CallFailure{kRuleMemory, "the worker went past its memory limit of " +
                                          FormatBytes(limits_.memory_bytes) +
                                          " (sandbox.memory_bytes: its processes and the files of "
                                          "its temporary folders), and the kernel killed it"};
    }
    if (usage.ok() && usage->process_refusals > 0) {
      return CallFailure{kRuleProcesses,
                         "the worker reached its limit of " + std::to_string(limits_.processes) +
                             " processes and threads at once (sandbox.processes): " +
                             std::to_string(usage->process_refusals) +
                             " forks or threads were refused"};
    }
  }
  if (sandbox_uid_ && !folder_.empty() && FolderFull(folder_)) {
    return CallFailure{
        kRuleDisk, "the worker filled its folder, a tmpfs of " + FormatBytes(limits_.folder_bytes) +
                       " (sandbox.folder_bytes) that holds its /tmp and /dev/shm too"};
  }
  if (!folder_.empty() && FileReached(folder_, static_cast<uint64_t>(limits_.file_bytes))) {
    return CallFailure{kRuleDisk, "the worker wrote a file up to the largest size allowed, " +
                                      FormatBytes(limits_.file_bytes) + " (sandbox.file_bytes)"};
  }
  return std::nullopt;
}

Json WorkerProcess::GroupUsageJson() const {
  if (!group_) return Json::object();
  Result<GroupUsage> usage = group_->Usage();
  if (!usage.ok()) return Json::object();
  return Json{{"memory_peak_bytes", usage->memory_peak_bytes},
              {"cpu_ms", static_cast<int64_t>(usage->cpu_ns / 1000000)}};
}

std::string WorkerProcess::log() const {
  if (!log_) return "";
  std::lock_guard<std::mutex> lock(log_->mutex);
  // Kept in the evidence as the worker printed it (logs/NN.log holds these bytes and calls.json
  // their count); whoever quotes it in a message makes it valid UTF-8 there (ValidUtf8).
  return log_->tail.size() > log_->cap ? log_->tail.substr(log_->tail.size() - log_->cap)
                                       : log_->tail;
}

uint64_t WorkerProcess::log_total_bytes() const {
  if (!log_) return 0;
  std::lock_guard<std::mutex> lock(log_->mutex);
  return log_->total;
}

}  // namespace ratchet
