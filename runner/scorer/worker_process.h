// One worker: a fresh process started under the sandbox for one call (or one energy window),
// with its own folder, its own input buffer and its own log, killed and reaped when closed.
// Requests that fail become a CallFailure with the rule id of what went wrong.
#ifndef RATCHET_SCORER_WORKER_PROCESS_H_
#define RATCHET_SCORER_WORKER_PROCESS_H_

#include <sys/types.h>

#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "core/canonical_json.h"
#include "core/status.h"
#include "protocol/input_buffer.h"
#include "protocol/worker_channel.h"
#include "rules/rule_set.h"
#include "sandbox/cgroup.h"
#include "sandbox/policy.h"
#include "scorer/call_worker.h"

namespace ratchet {

// A file placed in an untrusted process's folder from bytes ratchet holds (the submission, read
// once, so that what was checked is what runs and what the evidence keeps).
struct FolderFile {
  std::string name;
  std::string bytes;
  // Its modification time, in ns since the epoch, or -1 for the time it is written. A copy of a
  // cache keeps its file's: a build tool (ninja) compares its outputs' times with its inputs'.
  int64_t mtime_ns = -1;
};

// In a WorkerLaunch's argv, stands for the worker's own folder (known only once it exists).
inline constexpr char kWorkerFolderToken[] = "{folder}";

struct WorkerLaunch {
  std::vector<std::string> argv;          // the worker program, argv[0] absolute
  std::vector<std::string> copies;        // files copied into the worker's folder (by base name)
  std::vector<FolderFile> files;          // and files given by their bytes
  // The caches of the run's compile step (scorer/compile_step.h), written into the folder as
  // the worker's own copy, and their sha256 (CachesSha256); none before that step.
  std::shared_ptr<const std::vector<FolderFile>> caches;
  std::string caches_sha256;
  std::vector<std::string> covered;       // dataset folders hidden from the worker
  std::vector<std::string> view_folders;  // read-only folders it needs beyond the view's base
  std::string path_first;                 // a folder put first on its PATH (the interpreter's bin)
  std::vector<std::string> extra_env;     // added to the scrubbed environment
  int64_t train = 0, test = 0, dims = 0;
  uint32_t max_header = 0, max_reply_bytes = 0;
  size_t log_bytes = 0;  // the tail of the worker's output that is kept
  // Its memory, processes, folder and largest file (the rule set's; under a partial sandbox only
  // the largest file applies).
  RuleSet::Sandbox limits;
};

class WorkerProcess : public CallWorker {
 public:
  // Creates the worker's folder, input buffer and pipes, and spawns it as `uid` (one of
  // WorkerUids(); under a partial sandbox it keeps ratchet's). Errors are the harness's.
  static Result<std::unique_ptr<WorkerProcess>> Start(const WorkerLaunch& launch,
                                                      uid_t uid = FirstWorkerUid());
  ~WorkerProcess() override;  // Close()

  // The worker's folder (where `copies` went).
  const std::string& folder() const override { return folder_; }
  InputBuffer& buffer() { return *buffer_; }
  uint64_t buffer_bytes() const override;

  // Sends a command; a reply with "ok": false becomes a CallFailure whose rule follows the
  // reply's "kind" (import -> import, output -> output, anything else -> crash). `doing`
  // completes "timed out while ...".
  // `spin`: wait for the reply without sleeping (Deadline::Spinning).
  std::optional<CallFailure> Request(const Json& command, double timeout_s,
                                     const std::string& doing, Frame* reply,
                                     bool spin = false) override;
  // Request in two halves, for a worker started ahead of its call: the command is sent at once,
  // its reply read later. A failure of either is what Request would have returned.
  std::optional<CallFailure> Send(const Json& command, double timeout_s,
                                  const std::string& doing) override;
  std::optional<CallFailure> Receive(double timeout_s, const std::string& doing, Frame* reply,
                                     bool spin = false) override;
  // Whether a reply waits to be read now, or within `timeout_s` (Receive would then not wait
  // for the worker).
  bool ReplyWaiting(double timeout_s = 0) const override {
    return channel_ && channel_->ReplyWaiting(timeout_s);
  }

  // Stops (SIGSTOP) or continues (SIGCONT) the worker: its process group and, under the full
  // sandbox with `whole_uid`, every process of its uid, so that nothing of it runs while the
  // board's idle power is read or another worker's window is open. Without `whole_uid` (a
  // worker that has no method loaded, whose only process is the one ratchet started) the group
  // alone, which spares a search of every process of the machine. Every signal is sent even when
  // one fails; the first error is returned. Nothing to do once closed.
  Status Freeze(bool stop, bool whole_uid = true) override;
  // Under the full sandbox, moves the worker into its group's method folder (nothing to do
  // otherwise: there is no group).
  std::optional<CallFailure> EnterMethod() override;
  // After Freeze(true): returns once every thread of those processes is stopped (AwaitStopped).
  Status AwaitFrozen(double timeout_s, bool whole_uid = true) override;
  // The uid the worker runs as.
  uid_t uid() const override { return uid_; }
  // The worker's pid (its process group), or -1 once closed.
  pid_t pid() const { return pid_; }
  bool running() const override { return pid_ != -1; }

  // Kills the worker's process group and, under the full sandbox, every process of the sandbox
  // user, returning once each is gone or exiting (StopSandboxProcesses): from then on nothing of
  // the method runs, and another worker may start while these finish dying. Close() then waits
  // for the worker's own process. The error, if any, is StopSandboxProcesses' (a process of the
  // uid that did not begin to exit); a second call does nothing and returns Ok.
  Status Kill() override;
  std::optional<uint64_t> page_cache_left_bytes() const override { return page_cache_left_; }
  const std::string& caches_sha256() const override { return caches_sha256_; }
  // Kills the worker (unless Kill() did), waits for it, and keeps its log; idempotent. After
  // Kill(), Close() only waits: another worker of the sandbox user may be running by then.
  void Close() override;
  // The kept tail of what the worker printed, and how many bytes it printed in all.
  std::string log() const override;
  uint64_t log_total_bytes() const override;
  // The worker's exit as "exit N" / "signal N" once closed ("running" before).
  std::string exit_description() const override { return exit_description_; }

  // The limit of WorkerLaunch::limits the worker went past, as the failure that names it:
  // `memory` (the kernel killed a process of it at the memory limit), `processes` (a fork or a
  // thread was refused at the process limit), `disk` (its folder is full, or it was killed for
  // writing a file past the largest size). nullopt when none (or the worker has no group: a
  // partial sandbox). A request that fails after a limit was hit fails with the limit's rule.
  std::optional<CallFailure> LimitHit() const override;
  // What the worker's group counted so far: {"memory_peak_bytes", "cpu_ms"}; empty without one.
  Json GroupUsageJson() const override;
  // One window of the protocol (scorer/window.h's RunWindow).
  std::optional<CallFailure> RunWindow(const WindowRequest& request, int64_t test_rows,
                                       WindowResult* result) override;

 private:
  WorkerProcess() = default;
  struct LogReader;
  // A failed send or receive as the CallFailure of its kind; nullopt for ok.
  std::optional<CallFailure> Failed(const Status& status, double timeout_s,
                                    const std::string& doing);
  // A reply read (or not) as Request returns it.
  std::optional<CallFailure> Answered(Result<Frame> frame, double timeout_s,
                                      const std::string& doing, Frame* reply);

  std::string folder_;
  std::string caches_sha256_;
  std::unique_ptr<InputBuffer> buffer_;
  std::unique_ptr<WorkerChannel> channel_;
  std::unique_ptr<LogReader> log_;
  std::unique_ptr<ProcessGroup> group_;  // the full sandbox's, removed after the worker
  std::optional<uint64_t> page_cache_left_;  // what Kill() could not drop
  RuleSet::Sandbox limits_;
  pid_t pid_ = -1;
  bool sandbox_uid_ = false;  // the full sandbox: the worker has a uid of its own (uid_)
  uid_t uid_ = kSandboxUid;
  bool killed_ = false;
  std::string exit_description_ = "running";
};

// A fresh private folder under /tmp for one untrusted process, holding copies of `copies` (by
// base name), `files` and `caches` and empty tmp/ and cache/ folders, owned by the sandbox user
// when the sandbox is full (`uid`: one of WorkerUids()), and then a tmpfs of its own of
// `folder_bytes`. The caller removes it with RemoveWorkerFolder.
Result<std::string> MakeWorkerFolder(const std::vector<std::string>& copies,
                                     const std::vector<FolderFile>& files, uid_t uid,
                                     uint64_t folder_bytes,
                                     const std::vector<FolderFile>* caches = nullptr);

// Whether the tmpfs of a worker's folder is full (no block or no inode left).
bool FolderFull(const std::string& folder);
// Whether a regular file under `folder` (symbolic links not followed) is exactly `bytes` long:
// the kernel stops a write at the largest file size (RLIMIT_FSIZE), so a file cut there is that
// long, and a file ratchet put there (the worker, the method's library) is not, but by chance.
bool FileReached(const std::string& folder, uint64_t bytes);

// Detaches a worker folder's tmpfs (if it has one) and removes the folder.
void RemoveWorkerFolder(const std::string& folder);

// The scrubbed environment of an untrusted process whose folder is `folder`; `path_first`, when
// given, goes first on PATH (the interpreter's own bin folder, as activating its environment
// would: where a virtual environment keeps ninja).
std::vector<std::string> WorkerEnvironment(const std::string& folder,
                                           const std::vector<std::string>& extra,
                                           const std::string& path_first = "");

// "8 GiB", "64 MiB": a limit in whole GiB or MiB as such, any other as "N bytes".
std::string FormatBytes(int64_t bytes);

// argv with kWorkerFolderToken replaced by `folder`.
std::vector<std::string> ExpandFolder(const std::vector<std::string>& argv,
                                      const std::string& folder);

}  // namespace ratchet

#endif  // RATCHET_SCORER_WORKER_PROCESS_H_
