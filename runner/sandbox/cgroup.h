// A control group of its own for each sandboxed process and everything it starts (as root): the
// kernel counts their memory (the pages of the tmpfs folders they write included) and their
// processes and threads against the rule set's limits, kills them past the memory limit, refuses a
// fork or a thread past the process limit, and keeps count of having done so, so that a method
// which hits a limit is disqualified with a rule that names it (docs/sandbox.md, "Limits").
//
// cgroup v2 where the machine's unified hierarchy offers the memory and pids controllers; else the
// cgroup v1 memory and pids hierarchies (and cpuacct, for the CPU time, where mounted). Groups live
// in a folder `ratchet` at the top of each hierarchy, one per process as
// `<ratchet's pid>-<random>-<n>`.
#ifndef RATCHET_SANDBOX_CGROUP_H_
#define RATCHET_SANDBOX_CGROUP_H_

#include <sys/types.h>

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "core/status.h"

namespace ratchet {

struct GroupLimits {
  // memory.max (v2, with memory.swap.max 0) or memory.limit_in_bytes (v1, with memsw where the
  // kernel accounts swap, and swappiness 0)
  uint64_t memory_bytes = 0;
  uint64_t processes = 0;     // pids.max: processes and threads at once
};

// What the kernel counted for a group so far.
struct GroupUsage {
  // Times the group reached its memory limit and the kernel had to kill (v2: memory.events `oom`;
  // v1: `oom_kill` once `failcnt` or the peak shows the limit was reached).
  uint64_t memory_kills = 0;
  uint64_t process_refusals = 0;   // forks and clones refused at the process limit
  uint64_t memory_peak_bytes = 0;  // 0 where the kernel keeps no peak
  uint64_t cpu_ns = 0;             // CPU time of all its processes, user and system; 0 if not kept
};

// The hierarchies this machine offers, as ProcessGroup uses them: "cgroup v2 at /sys/fs/cgroup",
// or "cgroup v1: memory at ..., pids at ...". An error says what is missing and what to mount.
Result<std::string> DescribeGroups();

class ProcessGroup {
 public:
  // A new, empty group with `limits` set. Groups an earlier ratchet left (its pid gone) are
  // removed first. Errors name the file and errno.
  static Result<std::unique_ptr<ProcessGroup>> Create(const GroupLimits& limits);
  // Kills whatever is left in it (cgroup v2) and removes it, waiting up to a second for the
  // kernel to let go of processes that are still exiting; a group that cannot be removed is left
  // for the next Create to remove.
  ~ProcessGroup();
  ProcessGroup(const ProcessGroup&) = delete;
  ProcessGroup& operator=(const ProcessGroup&) = delete;

  // The group's cgroup.procs in each hierarchy, open for writing (close-on-exec): a child joins by
  // writing "0" to each before it execs (Spawn's join-group step), so that everything it starts
  // is counted from its first instruction on. (cgroup v2: those of the group's `start` folder, as
  // a group with folders below it holds no process itself.)
  const std::vector<int>& join_fds() const { return join_fds_; }
  // Moves process `pid` (all its threads) into the group's `method` folder, below the group and
  // under its limits: from then on what it reads into the page cache is charged there, apart from
  // what its start read (a worker's start runs ratchet's code only). Called before a worker's
  // method is loaded. Errors name the file.
  Status EnterMethod(pid_t pid);
  bool method_entered() const { return method_entered_; }
  Result<GroupUsage> Usage() const;
  // Drops from memory what the kernel can reclaim of what the group's processes brought in since
  // EnterMethod (of all of it, without EnterMethod): above all the pages of files they read that
  // were not in the page cache before (cgroup v2 memory.reclaim, v1 memory.force_empty; a page is
  // charged to the group that first read it). The page cache is the machine's: without this a
  // page of a shared library that one call read stays resident, and a later call tells it from a
  // page nobody read by the time a read takes (docs/sandbox.md, "The page cache"). Called once
  // the group's processes are gone or exiting; what cannot be reclaimed (their anonymous memory
  // while they exit) is left. Returns the bytes of file pages still charged there, or an error
  // naming the file.
  Result<uint64_t> DropPageCache();
  // The group's folders, for messages.
  const std::vector<std::string>& folders() const { return folders_; }

 private:
  ProcessGroup() = default;
  bool v2_ = false;
  // v2: one; v1: one per hierarchy (memory, pids, cpuacct where mounted; one for those mounted
  // together), and which of them holds each controller.
  std::vector<std::string> folders_;
  // The memory folder below the group that a method's process is moved into (v2 and v1), and
  // (v2) the one its processes join first; removed before the group.
  std::string method_folder_, start_folder_;
  bool method_entered_ = false;
  long memory_folder_ = 0, pids_folder_ = 0, cpu_folder_ = -1;
  std::vector<int> join_fds_;
};

}  // namespace ratchet

#endif  // RATCHET_SANDBOX_CGROUP_H_
