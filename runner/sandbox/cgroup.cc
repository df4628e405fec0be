#include "sandbox/cgroup.h"

#include <dirent.h>
#include <fcntl.h>
#include <signal.h>
#include <sys/random.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <cerrno>
#include <chrono>
#include <cstdio>
#include <fstream>
#include <sstream>
#include <thread>

#include "core/file.h"

namespace ratchet {
namespace {

constexpr char kGroupsFolder[] = "ratchet";
constexpr int kRemoveAttempts = 100;  // 10 ms apart
constexpr auto kRemovePause = std::chrono::milliseconds(10);
// How long DropPageCache tries again while pages are left (still mapped by a process that is
// exiting), and how long it waits between tries.
constexpr auto kDropFor = std::chrono::seconds(1);
constexpr auto kDropPause = std::chrono::milliseconds(5);

struct Hierarchies {
  std::string v2;  // the unified hierarchy, when it has memory and pids
  std::string memory, pids, cpuacct;  // v1 mount points
};

bool HasWord(const std::string& text, const std::string& word) {
  std::istringstream words(text);
  for (std::string each; words >> each;) {
    if (each == word) return true;
  }
  return false;
}

bool HasOption(const std::string& options, const std::string& option) {
  std::istringstream parts(options);
  for (std::string each; std::getline(parts, each, ',');) {
    if (each == option) return true;
  }
  return false;
}

// The mounts of /proc/self/mountinfo: "ID PARENT MAJ:MIN ROOT POINT OPTIONS ... - TYPE SOURCE
// SUPER_OPTIONS". Mount points with spaces are escaped (\040) and never a cgroup's here.
Hierarchies FindHierarchies() {
  Hierarchies found;
  std::ifstream mounts("/proc/self/mountinfo");
  for (std::string line; std::getline(mounts, line);) {
    std::istringstream fields(line);
    std::string id, parent, device, root, point, options;
    fields >> id >> parent >> device >> root >> point >> options;
    std::string word;
    while (fields >> word && word != "-") {
    }
    std::string type, source, super;
    fields >> type >> source >> super;
    if (type == "cgroup2" && found.v2.empty()) {
      Result<std::string> controllers = ReadFile(point + "/cgroup.controllers", 4096);
      if (controllers.ok() && HasWord(*controllers, "memory") && HasWord(*controllers, "pids")) {
        found.v2 = point;
      }
    } else if (type == "cgroup") {
      if (HasOption(super, "memory") && found.memory.empty()) found.memory = point;
      if (HasOption(super, "pids") && found.pids.empty()) found.pids = point;
      if (HasOption(super, "cpuacct") && found.cpuacct.empty()) found.cpuacct = point;
    }
  }
  return found;
}

Status WriteText(const std::string& path, const std::string& text) {
  int fd = open(path.c_str(), O_WRONLY | O_CLOEXEC);
  if (fd < 0) return Status::IOError("open " + path, errno);
  ssize_t wrote = write(fd, text.data(), text.size());
  int error = errno;
  close(fd);
  if (wrote != static_cast<ssize_t>(text.size())) {
    return Status::IOError("write '" + text + "' to " + path, wrote < 0 ? error : EIO);
  }
  return Status::Ok();
}

// "KEY N" lines (memory.events, pids.events, cpu.stat, memory.oom_control): N of `key`, or 0.
uint64_t Counter(const std::string& path, const std::string& key) {
  Result<std::string> text = ReadFile(path, 1 << 16);
  if (!text.ok()) return 0;
  std::istringstream lines(*text);
  for (std::string line; std::getline(lines, line);) {
    std::istringstream fields(line);
    std::string name;
    uint64_t value = 0;
    if (fields >> name >> value && name == key) return value;
  }
  return 0;
}

// A file holding one number (memory.peak, cpuacct.usage), or 0.
uint64_t Number(const std::string& path) {
  Result<std::string> text = ReadFile(path, 256);
  if (!text.ok()) return 0;
  try {
    return std::stoull(*text);
  } catch (...) {
    return 0;
  }
}

bool MakeFolder(const std::string& path) { return mkdir(path.c_str(), 0755) == 0 || errno == EEXIST; }

// Removes `folder`, an empty group; retried while processes in it are still exiting.
bool RemoveGroupFolder(const std::string& folder) {
  for (int attempt = 0; attempt < kRemoveAttempts; ++attempt) {
    if (rmdir(folder.c_str()) == 0 || errno == ENOENT) return true;
    if (errno != EBUSY) return false;
    std::this_thread::sleep_for(kRemovePause);
  }
  return false;
}

// Groups under `parent` made more than kStaleAfter ago: no sandboxed process lives that long (a
// run's longest is bounded by run_max_s), so one that old was left by a ratchet that was killed,
// or that could not remove it in time. Removed if empty (a process still in one keeps it, and it
// is tried again next time). The age, not the owner's pid, decides: a ratchet in another PID
// namespace shares the hierarchy, and its pid means nothing here.
constexpr auto kStaleAfter = std::chrono::hours(2);

void RemoveStaleGroups(const std::string& parent) {
  DIR* dir = opendir(parent.c_str());
  if (dir == nullptr) return;
  std::vector<std::string> stale;
  const auto now = std::chrono::system_clock::now();
  while (dirent* entry = readdir(dir)) {
    const std::string name = entry->d_name;
    if (entry->d_type != DT_DIR || name == "." || name == "..") continue;
    struct stat info;
    const std::string folder = parent + "/" + name;
    // A filesystem that keeps no times (0) tells nothing: such a group is left alone.
    if (stat(folder.c_str(), &info) != 0 || info.st_ctime <= 0) continue;
    const auto made = std::chrono::system_clock::from_time_t(info.st_ctime);
    if (now - made > kStaleAfter) stale.push_back(folder);
  }
  closedir(dir);
  for (const std::string& folder : stale) {
    for (const char* below : {"/method", "/start"}) rmdir((folder + below).c_str());
    rmdir(folder.c_str());
  }
}

// "<pid>-<16 random hex>-<n>": unique across ratchets, also one that reuses a pid (a container's
// small pids) while a group of an earlier one is left.
std::string GroupName() {
  static const std::string prefix = [] {
    uint64_t random = 0;
    if (getrandom(&random, sizeof random, 0) != sizeof random) {
      random = static_cast<uint64_t>(
          std::chrono::steady_clock::now().time_since_epoch().count());
    }
    char hex[17];
    snprintf(hex, sizeof hex, "%016llx", static_cast<unsigned long long>(random));
    return std::to_string(getpid()) + "-" + hex + "-";
  }();
  static std::atomic<uint64_t> next{0};
  return prefix + std::to_string(next.fetch_add(1));
}

}  // namespace

Result<std::string> DescribeGroups() {
  Hierarchies found = FindHierarchies();
  if (!found.v2.empty()) return "cgroup v2 at " + found.v2;
  if (!found.memory.empty() && !found.pids.empty()) {
    return "cgroup v1: memory at " + found.memory + ", pids at " + found.pids +
           (found.cpuacct.empty() ? "" : ", cpuacct at " + found.cpuacct);
  }
  return Status::Unavailable(
      "no control groups for the sandbox's memory and process limits: this machine mounts neither "
      "a cgroup v2 hierarchy with the memory and pids controllers nor the cgroup v1 memory and "
      "pids hierarchies (/proc/self/mountinfo); mount cgroup2 at /sys/fs/cgroup with those "
      "controllers enabled, or run ratchet where they are");
}

Result<std::unique_ptr<ProcessGroup>> ProcessGroup::Create(const GroupLimits& limits) {
  Result<std::string> described = DescribeGroups();
  if (!described.ok()) return described.status();
  Hierarchies found = FindHierarchies();
  std::unique_ptr<ProcessGroup> group(new ProcessGroup());
  const std::string name = GroupName();
  std::vector<std::string> parents;
  if (!found.v2.empty()) {
    group->v2_ = true;
    parents = {found.v2 + "/" + kGroupsFolder};
  } else {
    // Hierarchies mounted together (memory and pids on one mount) are one folder.
    for (const std::string& mount : {found.memory, found.pids, found.cpuacct}) {
      const std::string parent = mount + "/" + kGroupsFolder;
      if (!mount.empty() && std::find(parents.begin(), parents.end(), parent) == parents.end()) {
        parents.push_back(parent);
      }
    }
    group->memory_folder_ = 0;
    group->pids_folder_ = std::find(parents.begin(), parents.end(),
                                    found.pids + "/" + kGroupsFolder) - parents.begin();
    group->cpu_folder_ =
        found.cpuacct.empty() ? -1
                              : std::find(parents.begin(), parents.end(),
                                          found.cpuacct + "/" + kGroupsFolder) - parents.begin();
  }
  for (const std::string& parent : parents) {
    if (!MakeFolder(parent)) return Status::IOError("mkdir " + parent, errno);
    RemoveStaleGroups(parent);
  }
  if (group->v2_) {
    // The controllers reach a group only through every folder above it; at the top of the
    // hierarchy they may be enabled although processes live there.
    (void)WriteText(found.v2 + "/cgroup.subtree_control", "+memory +pids");
    Status enabled = WriteText(parents[0] + "/cgroup.subtree_control", "+memory +pids");
    if (!enabled.ok()) {
      return enabled.Annotate(
          "the memory and pids controllers cannot be enabled for " + parents[0] +
          " (the top of the hierarchy must have them in its cgroup.subtree_control, which the "
          "kernel refuses while processes live in a group that is not the real root): run "
          "ratchet where the top group enables them, or move its processes into a group below");
    }
  }
  for (const std::string& parent : parents) {
    const std::string folder = parent + "/" + name;
    if (mkdir(folder.c_str(), 0755) != 0) return Status::IOError("mkdir " + folder, errno);
    group->folders_.push_back(folder);  // removed by the destructor from here on
  }
  const std::string memory = std::to_string(limits.memory_bytes);
  const std::string processes = std::to_string(limits.processes);
  if (group->v2_) {
    const std::string& folder = group->folders_[0];
    RATCHET_RETURN_IF_ERROR(WriteText(folder + "/memory.max", memory));
    // No swap beyond the limit, and a kill at the limit takes every process of the group.
    if (PathExists(folder + "/memory.swap.max")) {
      RATCHET_RETURN_IF_ERROR(WriteText(folder + "/memory.swap.max", "0"));
    }
    RATCHET_RETURN_IF_ERROR(WriteText(folder + "/memory.oom.group", "1"));
    RATCHET_RETURN_IF_ERROR(WriteText(folder + "/pids.max", processes));
  } else {
    const std::string& memory_folder = group->folders_[group->memory_folder_];
    RATCHET_RETURN_IF_ERROR(WriteText(memory_folder + "/memory.limit_in_bytes", memory));
    // Memory and swap together where the kernel accounts swap (after the limit above); and no
    // swapping of the group's pages where it can be asked.
    if (PathExists(memory_folder + "/memory.memsw.limit_in_bytes")) {
      (void)WriteText(memory_folder + "/memory.memsw.limit_in_bytes", memory);
    }
    if (PathExists(memory_folder + "/memory.swappiness")) {
      (void)WriteText(memory_folder + "/memory.swappiness", "0");
    }
    RATCHET_RETURN_IF_ERROR(
        WriteText(group->folders_[group->pids_folder_] + "/pids.max", processes));
  }
  // The method's folder below the group (in the memory hierarchy), and in v2 the start's: a v2
  // group whose controllers reach folders below it holds no process itself.
  const std::string& memory_group = group->folders_[group->v2_ ? 0 : group->memory_folder_];
  if (group->v2_) {
    RATCHET_RETURN_IF_ERROR(WriteText(memory_group + "/cgroup.subtree_control", "+memory"));
    group->start_folder_ = memory_group + "/start";
    if (mkdir(group->start_folder_.c_str(), 0755) != 0) {
      return Status::IOError("mkdir " + group->start_folder_, errno);
    }
  }
  group->method_folder_ = memory_group + "/method";
  if (mkdir(group->method_folder_.c_str(), 0755) != 0) {
    return Status::IOError("mkdir " + group->method_folder_, errno);
  }
  for (const std::string& group_folder : group->folders_) {
    const std::string& folder = group->v2_ ? group->start_folder_ : group_folder;
    const std::string procs = folder + "/cgroup.procs";
    int fd = open(procs.c_str(), O_WRONLY | O_CLOEXEC);
    if (fd < 0) return Status::IOError("open " + procs, errno);
    group->join_fds_.push_back(fd);
  }
  return group;
}

ProcessGroup::~ProcessGroup() {
  for (int fd : join_fds_) close(fd);
  if (v2_ && !folders_.empty() && PathExists(folders_[0] + "/cgroup.kill")) {
    (void)WriteText(folders_[0] + "/cgroup.kill", "1");
  }
  for (const std::string* below : {&method_folder_, &start_folder_}) {
    if (!below->empty()) RemoveGroupFolder(*below);
  }
  for (const std::string& folder : folders_) RemoveGroupFolder(folder);
}

Status ProcessGroup::EnterMethod(pid_t pid) {
  if (method_folder_.empty()) return Status::Internal("the group has no method folder");
  RATCHET_RETURN_IF_ERROR(WriteText(method_folder_ + "/cgroup.procs", std::to_string(pid)));
  method_entered_ = true;
  return Status::Ok();
}

Result<uint64_t> ProcessGroup::DropPageCache() {
  if (folders_.empty()) return uint64_t{0};
  // Reclaim of a group takes its folders below too.
  const std::string& folder = method_entered_ ? method_folder_ : folders_[v2_ ? 0 : memory_folder_];
  const std::string stat = folder + "/memory.stat";
  // The bytes of file pages charged there (tmpfs pages are memory, not cache, and stay).
  auto file_bytes = [&] {
    const uint64_t file = Counter(stat, v2_ ? "file" : "cache");
    const uint64_t shmem = Counter(stat, "shmem");
    return file > shmem ? file - shmem : 0;
  };
  // v2: asks for the file pages (anonymous memory cannot go: no swap), and the kernel says EAGAIN
  // when some could not be reclaimed; before Linux 5.19 there is no memory.reclaim, and lowering
  // memory.high to nothing reclaims the same way. v1: the kernel retries until nothing is charged
  // or nothing more can be reclaimed (EBUSY). A page still mapped by a process that is exiting
  // may be passed over: retried until none is left or kDropFor has passed.
  std::string control = folder + (v2_ ? "/memory.reclaim" : "/memory.force_empty");
  const bool high = v2_ && !PathExists(control);
  if (high) control = folder + "/memory.high";
  const auto until = std::chrono::steady_clock::now() + kDropFor;
  for (;;) {
    const uint64_t left = file_bytes();
    if (left == 0 || std::chrono::steady_clock::now() > until) return left;
    const std::string amount = v2_ && !high ? std::to_string(left) : "0";
    int fd = open(control.c_str(), O_WRONLY | O_CLOEXEC);
    if (fd < 0) return Status::IOError("open " + control, errno);
    ssize_t wrote;
    do {
      wrote = write(fd, amount.data(), amount.size());
    } while (wrote < 0 && errno == EINTR);
    const int error = errno;
    close(fd);
    if (wrote < 0 && error != EAGAIN && error != EBUSY) {
      return Status::IOError("write '" + amount + "' to " + control, error);
    }
    if (file_bytes() > 0) std::this_thread::sleep_for(kDropPause);
  }
}

Result<GroupUsage> ProcessGroup::Usage() const {
  GroupUsage usage;
  if (folders_.empty()) return usage;
  if (v2_) {
    const std::string& folder = folders_[0];
    if (!PathExists(folder + "/memory.events")) {
      return Status::Unavailable("the group " + folder + " is gone");
    }
    // `oom` counts the times the group's own limit was reached with nothing left to reclaim
    // (`oom_kill` would also count a kill by the machine's OOM killer).
    usage.memory_kills = Counter(folder + "/memory.events", "oom");
    usage.process_refusals = Counter(folder + "/pids.events", "max");
    usage.memory_peak_bytes = Number(folder + "/memory.peak");
    usage.cpu_ns = Counter(folder + "/cpu.stat", "usage_usec") * 1000;
  } else {
    const std::string& memory = folders_[memory_folder_];
    if (!PathExists(memory + "/memory.oom_control")) {
      return Status::Unavailable("the group " + memory + " is gone");
    }
    usage.memory_peak_bytes = Number(memory + "/memory.max_usage_in_bytes");
    // A kill counts when the group reached its own limit (failcnt, or a peak within a mebibyte
    // of the limit: some kernels kill without counting a failure): `oom_kill` alone would also
    // count a kill by the machine's OOM killer. v1 counts a kill in the folder of the process
    // killed: the method's folder below the group too.
    const uint64_t limit = Number(memory + "/memory.limit_in_bytes");
    if (Number(memory + "/memory.failcnt") > 0 ||
        (limit > 0 && usage.memory_peak_bytes + (uint64_t{1} << 20) >= limit)) {
      usage.memory_kills = Counter(memory + "/memory.oom_control", "oom_kill") +
                           Counter(method_folder_ + "/memory.oom_control", "oom_kill");
    }
    usage.process_refusals = Counter(folders_[pids_folder_] + "/pids.events", "max");
    if (cpu_folder_ >= 0) usage.cpu_ns = Number(folders_[cpu_folder_] + "/cpuacct.usage");
  }
  return usage;
}

}  // namespace ratchet
