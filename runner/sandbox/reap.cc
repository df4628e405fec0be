#include "sandbox/reap.h"

#include <dirent.h>
#include <fcntl.h>
#include <pwd.h>
#include <signal.h>
#include <sys/mount.h>
#include <sys/ipc.h>
#include <sys/msg.h>
#include <sys/sem.h>
#include <sys/shm.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <cstring>
#include <fstream>
#include <set>
#include <sstream>
#include <thread>
#include <utility>

#include "core/file.h"
#include "sandbox/policy.h"

namespace ratchet {
namespace {

constexpr auto kKillDeadline = std::chrono::seconds(10);
constexpr auto kKillPause = std::chrono::milliseconds(10);
// Folders owned by others are searched this deep; the uid's own folders are removed whole at any
// depth (RemoveTree keeps two descriptors open, not one per level).
constexpr int kMaxSearchDepth = 64;

void Note(Status* first, const Status& status) {
  if (first->ok() && !status.ok()) *first = status;
}

std::string SignalName(int sig) {
  const char* abbrev = sigabbrev_np(sig);
  return abbrev ? std::string("SIG") + abbrev : std::to_string(sig);
}

Status RefuseUid(uid_t uid, const std::string& what) {
  if (uid == 0) return Status::Internal("refusing to " + what + " uid 0 (root)");
  if (uid == geteuid()) {
    return Status::Internal("refusing to " + what + " uid " + std::to_string(uid) +
                            ": it is ratchet's own (a partial sandbox has no uid of its own)");
  }
  return Status::Ok();
}

// From /proc/PID/status: whether `uid` is one of the process's four uids, and whether it is live.
bool ReadProcess(pid_t pid, uid_t uid, bool* matches, bool* live) {
  Result<std::string> text = ReadFile("/proc/" + std::to_string(pid) + "/status", 1 << 16);
  if (!text.ok()) return false;  // gone meanwhile
  std::istringstream lines(*text);
  std::string line;
  char state = '?';
  long threads = 1;
  bool uid_seen = false;
  *matches = false;
  while (std::getline(lines, line)) {
    std::istringstream fields(line);
    std::string key;
    fields >> key;
    if (key == "State:") {
      fields >> state;
    } else if (key == "Threads:") {
      fields >> threads;
    } else if (key == "Uid:") {
      uid_seen = true;
      unsigned long value;
      while (fields >> value) *matches = *matches || value == uid;
    }
  }
  // A main thread that exited shows as a zombie while the process's other threads still run.
  *live = !((state == 'Z' || state == 'X') && threads <= 1);
  return uid_seen;
}

// A helper process takes `uid` and signals every process it may: all of `uid`'s, in one pass
// of the kernel that a fork cannot slip through. Only async-signal-safe calls after fork.
Status SignalAllAs(uid_t uid, int sig) {
  pid_t helper = fork();
  if (helper == 0) {
    if (syscall(SYS_setresuid, uid, uid, uid) != 0) _exit(128 + errno);
    if (kill(-1, sig) != 0 && errno != ESRCH) _exit(errno);
    _exit(0);
  }
  if (helper < 0)
    return Status::IOError("fork (a helper to signal uid " + std::to_string(uid) + ")", errno);
  int status = 0;
  while (waitpid(helper, &status, 0) < 0) {
    if (errno != EINTR) return Status::IOError("waitpid of the signalling helper", errno);
  }
  if (!WIFEXITED(status)) return Status::Internal("the signalling helper died");
  int code = WEXITSTATUS(status);
  if (code >= 128) return Status::IOError("setresuid(" + std::to_string(uid) + ")", code - 128);
  if (code != 0) {
    return Status::IOError("kill(-1, " + SignalName(sig) + ") as uid " + std::to_string(uid), code);
  }
  return Status::Ok();
}

// Whether the kernel has begun to end `pid`: PF_EXITING (0x4) in the flags of /proc/PID/stat, set
// as a process starts to exit, before it lets go of its memory and devices. Such a process never
// runs its own code again. False when it cannot be read (gone meanwhile counts as gone elsewhere).
bool Exiting(pid_t pid) {
  Result<std::string> text = ReadFile("/proc/" + std::to_string(pid) + "/stat", 1 << 12);
  if (!text.ok()) return true;  // gone
  // The command name (field 2) is in parentheses and may hold anything: count from after it.
  size_t close = text->rfind(')');
  if (close == std::string::npos) return false;
  std::istringstream fields(text->substr(close + 1));
  std::string state, field;
  fields >> state;                                  // field 3
  for (int i = 4; i < 9 && fields >> field; ++i) {  // fields 4..8
  }
  unsigned long flags = 0;
  if (!(fields >> flags)) return false;  // field 9
  return (flags & 0x4) != 0;
}

// The state letter (field 3) of /proc/PID/task/TID/stat, or 'X' when it cannot be read (gone);
// 'E' for a thread the kernel is ending (PF_EXITING in field 9), which runs no code of its own.
char TaskState(pid_t pid, const std::string& tid) {
  Result<std::string> text =
      ReadFile("/proc/" + std::to_string(pid) + "/task/" + tid + "/stat", 1 << 12);
  if (!text.ok()) return 'X';
  size_t close = text->rfind(')');
  if (close == std::string::npos || close + 2 >= text->size()) return '?';
  std::istringstream fields(text->substr(close + 1));
  std::string state, field;
  fields >> state;                                  // field 3
  for (int i = 4; i < 9 && fields >> field; ++i) {  // fields 4..8
  }
  unsigned long flags = 0;
  if ((fields >> flags) && (flags & 0x4) != 0) return 'E';
  return state.empty() ? '?' : state[0];
}

// The thread ids of `pid` (empty when it is gone).
std::vector<std::string> Threads(pid_t pid) {
  std::vector<std::string> tids;
  DIR* dir = opendir(("/proc/" + std::to_string(pid) + "/task").c_str());
  if (dir == nullptr) return tids;
  while (dirent* entry = readdir(dir)) {
    if (entry->d_name[0] != '.') tids.emplace_back(entry->d_name);
  }
  closedir(dir);
  return tids;
}

Status KillEveryProcess(uid_t uid, bool until_exiting = false) {
  auto deadline = std::chrono::steady_clock::now() + kKillDeadline;
  for (;;) {
    RATCHET_RETURN_IF_ERROR(SignalUser(uid, SIGKILL));
    std::vector<pid_t> live = ProcessesOfUser(uid);
    if (until_exiting) {
      live.erase(std::remove_if(live.begin(), live.end(), Exiting), live.end());
    }
    if (live.empty()) return Status::Ok();
    if (std::chrono::steady_clock::now() > deadline) {
      std::string pids;
      for (pid_t pid : live) pids += (pids.empty() ? "" : ", ") + std::to_string(pid);
      return Status::Unavailable(std::to_string(live.size()) + " process(es) of uid " +
                                 std::to_string(uid) + " still alive after SIGKILL for " +
                                 std::to_string(kKillDeadline.count()) + " s: " + pids);
    }
    std::this_thread::sleep_for(kKillPause);
  }
}

// /proc/sysvipc/{shm,sem,msg}: a header line naming the columns, then one object per line.
Status RemoveIpcObjects(uid_t uid, const std::string& kind, const std::string& id_column,
                        int (*remove)(int id)) {
  std::string path = "/proc/sysvipc/" + kind;
  Result<std::string> text = ReadFile(path);
  if (!text.ok()) return PathExists(path) ? text.status() : Status::Ok();
  std::istringstream lines(*text);
  std::string line;
  std::getline(lines, line);
  std::vector<std::string> header;
  {
    std::istringstream fields(line);
    for (std::string name; fields >> name;) header.push_back(name);
  }
  auto column = [&](const std::string& name) {
    for (size_t i = 0; i < header.size(); ++i) {
      if (header[i] == name) return static_cast<int>(i);
    }
    return -1;
  };
  int id_at = column(id_column), uid_at = column("uid"), cuid_at = column("cuid");
  if (id_at < 0 || uid_at < 0 || cuid_at < 0) {
    return Status::Internal(path + ": its header has no " + id_column + ", uid or cuid column");
  }
  std::string wanted = std::to_string(uid);
  Status first;
  while (std::getline(lines, line)) {
    std::vector<std::string> fields;
    std::istringstream split(line);
    for (std::string field; split >> field;) fields.push_back(field);
    if (static_cast<int>(fields.size()) <= std::max({id_at, uid_at, cuid_at})) continue;
    // The owner may hand an object to another uid (IPC_SET); its creator stays recorded.
    if (fields[uid_at] != wanted && fields[cuid_at] != wanted) continue;
    int id = std::atoi(fields[id_at].c_str());
    if (remove(id) != 0 && errno != EINVAL && errno != EIDRM) {
      Note(&first, Status::IOError("removing SysV " + kind + " " + std::to_string(id) +
                                       " (IPC_RMID) of uid " + wanted,
                                   errno));
    }
  }
  return first;
}

int RemoveShm(int id) { return shmctl(id, IPC_RMID, nullptr); }
int RemoveSem(int id) { return semctl(id, 0, IPC_RMID); }
int RemoveMsg(int id) { return msgctl(id, IPC_RMID, nullptr); }

// The names in the folder open at `fd`, read from its start.
Result<std::vector<std::string>> ListFolder(int fd, const std::string& path) {
  int copy = fcntl(fd, F_DUPFD_CLOEXEC, 0);
  if (copy < 0) return Status::IOError("dup of folder " + path, errno);
  DIR* dir = fdopendir(copy);
  if (!dir) {
    int error = errno;
    close(copy);
    return Status::IOError("fdopendir " + path, error);
  }
  rewinddir(dir);
  std::vector<std::string> names;
  while (dirent* entry = readdir(dir)) {
    if (std::strcmp(entry->d_name, ".") != 0 && std::strcmp(entry->d_name, "..") != 0) {
      names.push_back(entry->d_name);
    }
  }
  closedir(dir);
  return names;
}

int OpenFolderAt(int parent, const std::string& name) {
  return openat(parent, name.c_str(), O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
}

// Removes the folder `name` in `parent_fd` and everything in it. It walks down one folder at a
// time and back up through "..", checking that ".." is the folder it came from, so any depth
// needs two descriptors and no path longer than one name.
Status RemoveTree(int parent_fd, const std::string& name, dev_t device, const std::string& path) {
  struct Level {
    std::string name;  // the folder entered
    dev_t device;      // the folder it was entered from
    ino_t inode;
  };
  std::vector<Level> levels;
  auto where = [&]() {
    std::string at = path;
    for (const Level& level : levels) at += "/" + level.name;
    return at;
  };
  int fd = OpenFolderAt(parent_fd, name);
  if (fd < 0) return errno == ENOENT ? Status::Ok() : Status::IOError("open folder " + path, errno);
  std::set<std::pair<dev_t, ino_t>> stuck;  // entries that could not be removed: skipped after
  Status first;
  for (;;) {
    Result<std::vector<std::string>> names = ListFolder(fd, where());
    if (!names.ok()) {
      Note(&first, names.status());
      break;
    }
    const std::string* down = nullptr;
    for (const std::string& entry : *names) {
      struct stat st;
      if (fstatat(fd, entry.c_str(), &st, AT_SYMLINK_NOFOLLOW) != 0) continue;
      if (stuck.count({st.st_dev, st.st_ino})) continue;
      if (S_ISDIR(st.st_mode) && st.st_dev == device) {
        down = &entry;
        break;
      }
      if (S_ISDIR(st.st_mode)) {
        stuck.insert({st.st_dev, st.st_ino});
        Note(&first, Status::Unavailable(where() + "/" + entry + " is a mount point; not removed"));
      } else if (unlinkat(fd, entry.c_str(), 0) != 0 && errno != ENOENT) {
        stuck.insert({st.st_dev, st.st_ino});
        Note(&first, Status::IOError("unlink " + where() + "/" + entry, errno));
      }
    }
    if (down) {
      struct stat here;
      int next = OpenFolderAt(fd, *down);
      if (next < 0 || fstat(fd, &here) != 0) {
        struct stat st;
        if (fstatat(fd, down->c_str(), &st, AT_SYMLINK_NOFOLLOW) == 0) {
          stuck.insert({st.st_dev, st.st_ino});
        }
        Note(&first, Status::IOError("open folder " + where() + "/" + *down, errno));
        if (next >= 0) close(next);
        continue;
      }
      levels.push_back({*down, here.st_dev, here.st_ino});
      close(fd);
      fd = next;
      continue;
    }
    if (levels.empty()) break;  // the top folder is as empty as it gets
    Level level = levels.back();
    levels.pop_back();
    struct stat self, up_stat;
    fstat(fd, &self);
    int up = openat(fd, "..", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    close(fd);
    fd = up;
    if (fd < 0 || fstat(fd, &up_stat) != 0 || up_stat.st_dev != level.device ||
        up_stat.st_ino != level.inode) {
      if (fd >= 0) close(fd);
      Note(&first, Status::Unavailable(where() + "/" + level.name +
                                       " moved while it was being removed; stopped there"));
      return first;
    }
    if (unlinkat(fd, level.name.c_str(), AT_REMOVEDIR) != 0) {
      stuck.insert({self.st_dev, self.st_ino});
      Note(&first, Status::IOError("rmdir " + where() + "/" + level.name, errno));
    }
  }
  close(fd);
  if (unlinkat(parent_fd, name.c_str(), AT_REMOVEDIR) != 0 && errno != ENOENT) {
    Note(&first, Status::IOError("rmdir " + path, errno));
  }
  return first;
}

// Removes what `uid` owns in the folder open at `fd` and searches the folders others own.
void RemoveOwned(int fd, const std::set<uid_t>& uids, dev_t device, const std::string& path,
                 int depth, Status* first) {
  Result<std::vector<std::string>> names = ListFolder(fd, path);
  if (!names.ok()) {
    Note(first, names.status());
    return;
  }
  for (const std::string& name : *names) {
    std::string entry_path = path + "/" + name;
    struct stat st;
    if (fstatat(fd, name.c_str(), &st, AT_SYMLINK_NOFOLLOW) != 0) continue;
    if (uids.count(st.st_uid)) {
      if (!S_ISDIR(st.st_mode)) {
        if (unlinkat(fd, name.c_str(), 0) != 0 && errno != ENOENT) {
          Note(first, Status::IOError("unlink " + entry_path, errno));
        }
      } else if (st.st_dev != device) {
        Note(first, Status::Unavailable(entry_path + " is a mount point; not removed"));
      } else {
        Note(first, RemoveTree(fd, name, device, entry_path));
      }
    } else if (S_ISDIR(st.st_mode) && st.st_dev == device && depth < kMaxSearchDepth) {
      int child = OpenFolderAt(fd, name);
      if (child < 0) {
        if (errno != ENOENT) Note(first, Status::IOError("open folder " + entry_path, errno));
        continue;
      }
      RemoveOwned(child, uids, device, entry_path, depth + 1, first);
      close(child);
    }
  }
}

// One walk of `root` for every uid of `uids` (a walk of a large /tmp is most of a reap's time).
Status RemoveOwnedFiles(const std::string& root, const std::set<uid_t>& uids) {
  int fd = open(root.c_str(), O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
  if (fd < 0) return errno == ENOENT ? Status::Ok() : Status::IOError("open folder " + root, errno);
  struct stat st;
  Status first;
  if (fstat(fd, &st) != 0) {
    first = Status::IOError("fstat " + root, errno);
  } else {
    RemoveOwned(fd, uids, st.st_dev, root, 0, &first);
  }
  close(fd);
  return first;
}

}  // namespace

const std::vector<std::string>& WorldWritableFolders() {
  static const std::vector<std::string> folders = {"/tmp", "/var/tmp", "/dev/shm", "/run/lock"};
  return folders;
}

std::vector<pid_t> ProcessesOfUser(uid_t uid) {
  std::vector<pid_t> pids;
  DIR* proc = opendir("/proc");
  if (!proc) return pids;
  pid_t self = getpid();
  while (dirent* entry = readdir(proc)) {
    char* end = nullptr;
    long pid = std::strtol(entry->d_name, &end, 10);
    if (end == entry->d_name || *end != '\0' || pid <= 0 || pid == self) continue;
    bool matches = false, live = false;
    if (ReadProcess(static_cast<pid_t>(pid), uid, &matches, &live) && matches && live) {
      pids.push_back(static_cast<pid_t>(pid));
    }
  }
  closedir(proc);
  return pids;
}

Status SignalUser(uid_t uid, int sig) {
  RATCHET_RETURN_IF_ERROR(RefuseUid(uid, "signal every process of"));
  Status first;
  if (geteuid() == 0) Note(&first, SignalAllAs(uid, sig));
  // kill(-1) reaches processes whose real or saved uid is `uid`; this reaches the rest (an
  // effective or filesystem uid), and every one when not root.
  for (pid_t pid : ProcessesOfUser(uid)) {
    if (kill(pid, sig) != 0 && errno != ESRCH) {
      Note(&first,
           Status::IOError("kill(" + std::to_string(pid) + ", " + SignalName(sig) + ")", errno));
    }
  }
  return first;
}

Status KillSandboxProcesses(uid_t uid) {
  RATCHET_RETURN_IF_ERROR(RefuseUid(uid, "reap"));
  return KillEveryProcess(uid).Annotate("reaping uid " + std::to_string(uid));
}

Status StopSandboxProcesses(uid_t uid) {
  RATCHET_RETURN_IF_ERROR(RefuseUid(uid, "reap"));
  return KillEveryProcess(uid, /*until_exiting=*/true)
      .Annotate("killing uid " + std::to_string(uid));
}

Status FreezeSandboxProcesses(uid_t uid, bool stop) {
  RATCHET_RETURN_IF_ERROR(RefuseUid(uid, stop ? "freeze" : "thaw"));
  return SignalUser(uid, stop ? SIGSTOP : SIGCONT)
      .Annotate(std::string(stop ? "freezing" : "thawing") + " uid " + std::to_string(uid));
}

Status AwaitStopped(const std::vector<pid_t>& pids, double timeout_s) {
  const auto deadline = std::chrono::steady_clock::now() +
                        std::chrono::duration_cast<std::chrono::steady_clock::duration>(
                            std::chrono::duration<double>(timeout_s));
  while (true) {
    std::string running;
    for (pid_t pid : pids) {
      for (const std::string& tid : Threads(pid)) {
        // T: stopped by a signal; t: by a tracer; Z and X: done; E: ending.
        const char state = TaskState(pid, tid);
        if (state != 'T' && state != 't' && state != 'Z' && state != 'X' && state != 'E') {
          running = "thread " + tid + " of process " + std::to_string(pid) + " (state " +
                    std::string(1, state) + ")";
          break;
        }
      }
      if (!running.empty()) break;
    }
    if (running.empty()) return Status::Ok();
    if (std::chrono::steady_clock::now() >= deadline) {
      return Status::Unavailable(running + " still runs " + std::to_string(timeout_s) +
                                 " s after SIGSTOP");
    }
    std::this_thread::sleep_for(std::chrono::microseconds(200));
  }
}

Status CheckWorkerUids() {
  const std::vector<uid_t> uids = WorkerUids();
  for (uid_t uid : uids) {
    if (uid == kSandboxUid) continue;
    passwd entry{}, *found = nullptr;
    char buffer[4096];
    if (getpwuid_r(uid, &entry, buffer, sizeof buffer, &found) == 0 && found != nullptr) {
      const std::string range =
          std::to_string(uids.back()) + "-" + std::to_string(uids.front());
      return Status::Unavailable("uid " + std::to_string(uid) + " belongs to the account '" +
                                 found->pw_name + "', but the workers of ratchet's sandbox slot " +
                                 std::to_string(SandboxSlot()) + " run as uids " + range +
                                 " and kill every process of them: score on a machine where " +
                                 "the sandbox's worker uids (" + std::to_string(kSandboxUid) +
                                 " and below, docs/sandbox.md) belong to no other account");
    }
  }
  return Status::Ok();
}

namespace {

// The tmpfs of every worker folder of `uids` still mounted (one a killed scorer left), detached,
// with what it held, and the folder it covered removed. A folder's owner is its
// worker's uid (MakeWorkerFolder); a folder of another uid (another scorer's worker) is left alone.
void DetachWorkerFolders(const std::set<uid_t>& uids) {
  std::ifstream mounts("/proc/self/mountinfo");
  std::string line;
  std::vector<std::string> points;
  while (std::getline(mounts, line)) {
    std::istringstream fields(line);
    std::string id, parent, device, root, point;
    fields >> id >> parent >> device >> root >> point;
    if (point.rfind(kWorkerFolderPrefix, 0) != 0) continue;
    if (point.find('/', sizeof kWorkerFolderPrefix - 1) != std::string::npos) continue;
    struct stat st;
    if (lstat(point.c_str(), &st) == 0 && S_ISDIR(st.st_mode) && uids.count(st.st_uid)) {
      points.push_back(point);
    }
  }
  for (const std::string& point : points) {
    // Under the tmpfs lies the empty folder the scorer made (root's): it goes too.
    if (umount2(point.c_str(), MNT_DETACH | UMOUNT_NOFOLLOW) == 0) rmdir(point.c_str());
  }
}

// ReapSandbox of every uid of `uids`, with one walk of each world-writable folder for all of them.
Status ReapSandboxUids(const std::vector<uid_t>& uids) {
  Status first;
  std::set<uid_t> reaped;
  std::string names;
  for (uid_t uid : uids) {
    Status refused = RefuseUid(uid, "reap");
    if (!refused.ok()) {
      Note(&first, refused);
      continue;
    }
    reaped.insert(uid);
    names += (names.empty() ? "" : ", ") + std::to_string(uid);
    Status step;
    // Processes first, so none creates anything while the rest is removed.
    Note(&step, KillEveryProcess(uid));
    Note(&step, RemoveIpcObjects(uid, "shm", "shmid", RemoveShm));
    Note(&step, RemoveIpcObjects(uid, "sem", "semid", RemoveSem));
    Note(&step, RemoveIpcObjects(uid, "msg", "msqid", RemoveMsg));
    Note(&first, step.Annotate("reaping uid " + std::to_string(uid)));
  }
  if (reaped.empty()) return first;
  DetachWorkerFolders(reaped);
  Status files;
  for (const std::string& folder : WorldWritableFolders()) {
    Note(&files, RemoveOwnedFiles(folder, reaped));
  }
  Note(&first, files.Annotate((reaped.size() == 1 ? "reaping uid " : "reaping uids ") + names));
  return first;
}

}  // namespace

Status ReapWorkerUids() {
  RATCHET_RETURN_IF_ERROR(CheckWorkerUids());
  return ReapSandboxUids(WorkerUids());
}

Status KillWorkerUids() {
  Status first;
  for (uid_t uid : WorkerUids()) Note(&first, KillSandboxProcesses(uid));
  return first;
}

Status ReapSandbox(uid_t uid) {
  RATCHET_RETURN_IF_ERROR(RefuseUid(uid, "reap"));
  return ReapSandboxUids({uid});
}

}  // namespace ratchet
