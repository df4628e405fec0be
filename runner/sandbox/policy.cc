#include "sandbox/policy.h"

#include <errno.h>
#include <fcntl.h>
#include <sched.h>
#include <sys/ioctl.h>
#include <sys/socket.h>

#include <atomic>
#include <iterator>
#include <vector>

#include "sandbox/answer.h"
#include "sandbox/view.h"

namespace ratchet {
namespace {

constexpr ArgumentTest kAlways{};

// From <linux/fs.h> and <linux/mman.h>, which clash with the C library's headers.
constexpr uint64_t kRwfNoWait = 0x8;
constexpr uint64_t kMadvCold = 20, kMadvPageout = 21;
constexpr uint64_t kClonePidfd = 0x1000;  // CLONE_PIDFD, from <linux/sched.h>
constexpr uint64_t kSoPassPidfd = 76, kSoPeerPidfd = 77;  // from <asm-generic/socket.h>

constexpr ArgumentTest NotEqual(unsigned arg, uint64_t value, const char* name) {
  return ArgumentTest{ArgumentTest::Op::kNotEqual, arg, 0, value, name};
}

// True when the single-bit `flag` is set in the argument.
constexpr ArgumentTest HasFlag(unsigned arg, uint64_t flag, const char* name) {
  return ArgumentTest{ArgumentTest::Op::kMaskedEqual, arg, flag, flag, name};
}

// The kernel reads an ioctl request as a 32-bit number, so the upper half of the register must
// not hide a request from the filter (0xdead00005412 is TIOCSTI to the kernel).
constexpr ArgumentTest LowHalfEquals(unsigned arg, uint64_t value, const char* name) {
  return ArgumentTest{ArgumentTest::Op::kMaskedEqual, arg, 0xffffffffULL, value, name};
}

std::vector<SyscallRule> MakeRules() {
  std::vector<SyscallRule> rules = {
      // Networking: a worker talks to its parent over the pipes it was given, nothing else.
      {"socket", 41, EACCES, NotEqual(0, AF_UNIX, "AF_UNIX")},
      {"socketpair", 53, EACCES, NotEqual(0, AF_UNIX, "AF_UNIX")},
      // io_uring is a second way to open sockets and files that the filter cannot see into;
      // ENOSYS makes runtimes fall back to plain syscalls.
      {"io_uring_setup", 425, ENOSYS, kAlways},
      {"io_uring_enter", 426, ENOSYS, kAlways},
      {"io_uring_register", 427, ENOSYS, kAlways},
      // Reaching into another process.
      {"ptrace", 101, EPERM, kAlways},
      {"process_vm_readv", 310, EPERM, kAlways},
      {"process_vm_writev", 311, EPERM, kAlways},
      // Kernel attack surface a worker has no use for.
      {"bpf", 321, EPERM, kAlways},
      {"perf_event_open", 298, EPERM, kAlways},
      {"userfaultfd", 323, EPERM, kAlways},
      // SysV IPC and POSIX message queues: kernel objects that outlive the worker and are no
      // files, so they could carry data from one call to the next.
      {"shmget", 29, EPERM, kAlways},
      {"shmat", 30, EPERM, kAlways},
      {"shmctl", 31, EPERM, kAlways},
      {"shmdt", 67, EPERM, kAlways},
      {"semget", 64, EPERM, kAlways},
      {"semop", 65, EPERM, kAlways},
      {"semctl", 66, EPERM, kAlways},
      {"semtimedop", 220, EPERM, kAlways},
      {"msgget", 68, EPERM, kAlways},
      {"msgsnd", 69, EPERM, kAlways},
      {"msgrcv", 70, EPERM, kAlways},
      {"msgctl", 71, EPERM, kAlways},
      {"mq_open", 240, EPERM, kAlways},
      {"mq_unlink", 241, EPERM, kAlways},
      {"mq_timedsend", 242, EPERM, kAlways},
      {"mq_timedreceive", 243, EPERM, kAlways},
      {"mq_notify", 244, EPERM, kAlways},
      {"mq_getsetattr", 245, EPERM, kAlways},
      // Kernel keyrings: shared between processes of one uid, another store that outlives a call.
      {"add_key", 248, EPERM, kAlways},
      {"request_key", 249, EPERM, kAlways},
      {"keyctl", 250, EPERM, kAlways},
      // Mounts and namespaces: the covered folders must stay covered.
      {"mount", 165, EPERM, kAlways},
      {"umount2", 166, EPERM, kAlways},
      {"pivot_root", 155, EPERM, kAlways},
      {"unshare", 272, EPERM, kAlways},
      {"setns", 308, EPERM, kAlways},
      {"open_tree", 428, EPERM, kAlways},
      {"move_mount", 429, EPERM, kAlways},
      {"fsopen", 430, EPERM, kAlways},
      {"fsconfig", 431, EPERM, kAlways},
      {"fsmount", 432, EPERM, kAlways},
      {"fspick", 433, EPERM, kAlways},
      {"mount_setattr", 442, EPERM, kAlways},
      {"open_tree_attr", 467, EPERM, kAlways},
      // clone() may create namespaces too; clone3() passes its flags in memory the filter cannot
      // read, so it is refused as unknown and C libraries fall back to clone().
      {"clone", 56, EPERM, HasFlag(0, CLONE_NEWNS, "CLONE_NEWNS")},
      {"clone", 56, EPERM, HasFlag(0, CLONE_NEWCGROUP, "CLONE_NEWCGROUP")},
      {"clone", 56, EPERM, HasFlag(0, CLONE_NEWUTS, "CLONE_NEWUTS")},
      {"clone", 56, EPERM, HasFlag(0, CLONE_NEWIPC, "CLONE_NEWIPC")},
      {"clone", 56, EPERM, HasFlag(0, CLONE_NEWUSER, "CLONE_NEWUSER")},
      {"clone", 56, EPERM, HasFlag(0, CLONE_NEWPID, "CLONE_NEWPID")},
      {"clone", 56, EPERM, HasFlag(0, CLONE_NEWNET, "CLONE_NEWNET")},
      {"clone3", 435, ENOSYS, kAlways},
      // A pidfd's inode number counts every process and thread the machine has created (Linux
      // 6.9 and later): one call could move it for the next to read. Without a pidfd,
      // process_madvise has nothing to act on; it is refused as well.
      {"clone", 56, EPERM, HasFlag(0, kClonePidfd, "CLONE_PIDFD")},
      {"pidfd_open", 434, ENOSYS, kAlways},
      {"process_madvise", 440, EPERM, kAlways},
      // A pidfd by the other doors: a Unix socket's peer (SO_PEERPIDFD), one passed with each
      // message (SO_PASSPIDFD), and pidfs file handles, which also tell whether an inode number
      // is a live process's.
      {"getsockopt", 55, EPERM, LowHalfEquals(2, kSoPeerPidfd, "SO_PEERPIDFD")},
      {"setsockopt", 54, EPERM, LowHalfEquals(2, kSoPassPidfd, "SO_PASSPIDFD")},
      {"open_by_handle_at", 304, EPERM, kAlways},
      // Modules and kexec.
      {"init_module", 175, EPERM, kAlways},
      {"finit_module", 313, EPERM, kAlways},
      {"delete_module", 176, EPERM, kAlways},
      {"kexec_load", 246, EPERM, kAlways},
      {"kexec_file_load", 320, EPERM, kAlways},
      // Pushing bytes into a terminal's input queue (a shell that reads it would run them).
      {"ioctl", 16, EPERM, LowHalfEquals(1, TIOCSTI, "TIOCSTI")},
      // The page cache is shared by every process of the machine: which pages of a bound file
      // are resident says what an earlier call read. Asking it is refused (a read that must not
      // wait fails as on a file that cannot say; Linux AIO, which takes the same flag inside
      // requests the filter cannot see, does not exist), and so is evicting pages, which would
      // let a call set them back for the next.
      {"mincore", 27, ENOSYS, kAlways},
      {"cachestat", 451, ENOSYS, kAlways},
      {"preadv2", 327, EOPNOTSUPP, HasFlag(5, kRwfNoWait, "RWF_NOWAIT")},
      {"pwritev2", 328, EOPNOTSUPP, HasFlag(5, kRwfNoWait, "RWF_NOWAIT")},
      {"io_setup", 206, ENOSYS, kAlways},
      {"io_submit", 209, ENOSYS, kAlways},
      {"fadvise64", 221, EPERM, LowHalfEquals(3, POSIX_FADV_DONTNEED, "POSIX_FADV_DONTNEED")},
      {"madvise", 28, EPERM, LowHalfEquals(2, kMadvCold, "MADV_COLD")},
      {"madvise", 28, EPERM, LowHalfEquals(2, kMadvPageout, "MADV_PAGEOUT")},
      // sysinfo(2) tells the machine's load, free memory, process count and uptime, which one
      // call can move for the next. Refusing it would break the C library's count of physical
      // pages, which ignores the failure and reads an unset struct: the parent answers instead,
      // with the values the covered /proc files show (answer.h).
      {"sysinfo", 99, kAnswered, kAlways},
      // A file system's free blocks and inodes move with every write on the machine, the
      // parent's writing of a call's log among them: statfs and fstatfs are answered with every
      // block and inode free, and ustat, which tells the same of a device, does not exist.
      {"statfs", 137, kAnswered, kAlways},
      {"fstatfs", 138, kAnswered, kAlways},
      {"ustat", 136, ENOSYS, kAlways},
      // Which of a mapping's pages are present, as mincore tells (NUMA placement, ENOSYS as on a
      // kernel without NUMA).
      {"move_pages", 279, ENOSYS, kAlways},
  };
  return rules;
}

const char* ErrnoName(int error) {
  switch (error) {
    case EPERM:
      return "EPERM";
    case EACCES:
      return "EACCES";
    case ENOSYS:
      return "ENOSYS";
    case EOPNOTSUPP:
      return "EOPNOTSUPP";
  }
  return "?";
}

Json TestJson(const ArgumentTest& test) {
  switch (test.op) {
    case ArgumentTest::Op::kAlways:
      return nullptr;
    case ArgumentTest::Op::kNotEqual:
      return {{"arg", test.arg}, {"op", "!="}, {"value", test.value}, {"name", test.value_name}};
    case ArgumentTest::Op::kMaskedEqual:
      return {{"arg", test.arg},
              {"op", "&mask=="},
              {"mask", test.mask},
              {"value", test.value},
              {"name", test.value_name}};
  }
  return nullptr;
}

}  // namespace

const std::vector<SyscallRule>& SeccompRules() {
  static const std::vector<SyscallRule> rules = MakeRules();
  return rules;
}

const std::vector<std::string>& SandboxSteps() {
  static const std::vector<std::string> steps = {"reset-signal-handlers",
                                                 "new-session",
                                                 "parent-death-signal",
                                                 "join-group",
                                                 "map-fds",
                                                 "rlimits",
                                                 "private-mount-namespace",
                                                 "view",
                                                 "cover-folders",
                                                 "process-limit",
                                                 "drop-identity",
                                                 "parent-death-signal",
                                                 "enter-folder",
                                                 "no-new-privs",
                                                 "seccomp-filter",
                                                 "unblock-signals",
                                                 "execve"};
  return steps;
}

Json SandboxPolicyJson() {
  Json rules = Json::array();
  for (const SyscallRule& rule : SeccompRules()) {
    Json described = {{"syscall", rule.name}, {"nr", rule.nr}, {"when", TestJson(rule.test)}};
    if (rule.error == kAnswered) {
      described["answered"] = AnswerDescription(rule.name);
    } else {
      described["errno"] = ErrnoName(rule.error);
    }
    rules.push_back(std::move(described));
  }
  return {
      {"schema", "ratchet.sandbox-policy/1"},
      {"identity",
       {{"uid", kSandboxUid},
        {"worker_uids", "slot s: uid - " + std::to_string(kWorkerUidCount) + " x s - i, i < " +
                            std::to_string(kWorkerUidCount)},
        {"slots", kSandboxSlotCount},
        {"gid", kSandboxGid},
        {"supplementary_groups", Json::array()}}},
      {"steps", SandboxSteps()},
      {"namespaces", {"pid", "mount", "ipc", "network", "cgroup"}},
      {"fds",
       {{"mapped", "kept at their numbers"},
        {"unmapped_0_1_2", "/dev/null"},
        {"others", "closed"}}},
      {"rlimits",
       {{"core", 0},
        {"fsize", "sandbox.file_bytes; a compile's: sandbox.compile_output_bytes"},
        {"nofile", kDefaultOpenFiles},
        {"nproc", "sandbox.processes x " + std::to_string(kProcessesBeyondGroupFactor)},
        {"as", "unlimited"}}},
      {"cgroup",
       {{"hierarchy", "v2 with the memory and pids controllers, else v1 memory and pids"},
        {"one_per", "sandboxed process, joined before map-fds"},
        {"memory_max",
         "sandbox.memory_bytes; a compile's and the source checker's: "
         "sandbox.compile_memory_bytes"},
        {"swap_max", 0},
        {"oom_group", true},
        {"pids_max", "sandbox.processes"},
        {"method_folder",
         "a memory folder below the group (v2: beside `start`, which the process joins), into "
         "which a worker is moved before its method is loaded"},
        {"page_cache",
         "what was read into the page cache in the method folder (in the whole group for a "
         "compile or the source checker) is reclaimed once its processes are gone or exiting, "
         "before a later method runs (v2 memory.reclaim, or memory.high 0 where there is none; "
         "v1 memory.force_empty)"}}},
      {"mounts",
       {{"namespace", "own, recursively private"},
        {"view", ViewPolicyJson()},
        {"work_folder", {{"fstype", "tmpfs"}, {"size", "sandbox.folder_bytes"}}}}},
      {"seccomp",
       {{"architectures", {"x86_64"}},
        {"other_architectures", "kill-process"},
        {"x32_abi", "kill-process"},
        {"default", "allow"},
        {"rules", rules}}},
  };
}

std::string SandboxPolicySha256() {
  static const std::string sha256 = [] {
    // The description holds only integers and strings, which always have a canonical form.
    Result<std::string> hash = CanonicalSha256(SandboxPolicyJson());
    return hash.ok() ? *hash : std::string();
  }();
  return sha256;
}

}  // namespace ratchet
