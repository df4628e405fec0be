// Spawn as a worker meets it: the probe runs under the sandbox and reports what it can and
// cannot do.
#include "sandbox/spawn.h"

#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/statfs.h>
#include <sys/syscall.h>
#include <sys/sysinfo.h>

#include <algorithm>
#include <cstring>
#include <map>

#include "probe_fixture.h"
#include "sandbox/policy.h"
#include "sandbox/view.h"

namespace ratchet {
namespace {

using SpawnTest = ProbeTest;

Json Ids(unsigned id) { return Json::array({id, id, id}); }

TEST(DescribeSandboxTest, FullOnlyAsRoot) {
  SandboxInfo info = DescribeSandbox();
  EXPECT_EQ(info.full, IsRoot());
  if (IsRoot()) {
    EXPECT_EQ(info.uid, kSandboxUid);
    EXPECT_EQ(info.partial_reason, "");
  } else {
    EXPECT_EQ(info.uid, geteuid());
    EXPECT_NE(info.partial_reason.find("not root"), std::string::npos) << info.partial_reason;
  }
}

TEST_F(SpawnTest, RunsAsNobodyInASessionOfItsOwn) {
  SKIP_UNLESS_ROOT();
  Json report = Report(ReportSpec());
  EXPECT_EQ(report["uid"], Ids(kSandboxUid));
  EXPECT_EQ(report["gid"], Ids(kSandboxGid));
  EXPECT_EQ(report["groups"], 0);
  EXPECT_EQ(report["session_leader"], true);
  // Armed again after the uid change, which clears it.
  EXPECT_EQ(report["pdeathsig"], SIGKILL);
  EXPECT_EQ(report["cwd"], worker_);
  EXPECT_EQ(report["errno"]["write_own_folder"], 0);
}

TEST_F(SpawnTest, FilterIsInstalledWithNoNewPrivileges) {
  Json report = Report(ReportSpec());
  EXPECT_EQ(report["no_new_privs"], 1);
  EXPECT_EQ(report["seccomp"], 2);  // SECCOMP_MODE_FILTER
}

TEST_F(SpawnTest, OnlyUnixSocketsCanBeOpened) {
  Json e = Report(ReportSpec())["errno"];
  EXPECT_EQ(e["socket_inet"], EACCES);
  EXPECT_EQ(e["socket_inet6"], EACCES);
  EXPECT_EQ(e["socket_netlink"], EACCES);
  EXPECT_EQ(e["socket_packet"], EACCES);
  EXPECT_EQ(e["socket_inet_high_bits"], EACCES);
  EXPECT_EQ(e["socketpair_inet"], EACCES);
  EXPECT_EQ(e["socket_unix"], 0);
  EXPECT_EQ(e["socketpair_unix"], 0);
}

TEST_F(SpawnTest, RefusedSyscallsFailAsThePolicySays) {
  Json e = Report(ReportSpec())["errno"];
  for (const char* name : {"io_uring_setup", "io_uring_enter", "clone3"}) {
    EXPECT_EQ(e[name], ENOSYS) << name;
  }
  for (const char* name : {"ptrace_traceme",
                           "ptrace_attach_parent",
                           "process_vm_readv",
                           "process_vm_writev",
                           "bpf",
                           "perf_event_open",
                           "userfaultfd",
                           "shmget",
                           "semget",
                           "msgget",
                           "mq_open",
                           "add_key",
                           "keyctl",
                           "unshare_user",
                           "clone_newuser",
                           "mount_tmpfs",
                           "umount_covered",
                           "fsopen",
                           "finit_module",
                           "tiocsti",
                           "tiocsti_high_bits"}) {
    EXPECT_EQ(e[name], EPERM) << name;
  }
  // What the filter lets through reaches the kernel: a terminal ioctl on /dev/null is ENOTTY,
  // and threads (clone3 refused, clone without namespace flags) and fork still work.
  EXPECT_EQ(e["tiocgwinsz"], ENOTTY);
  EXPECT_EQ(e["thread"], 0);
  EXPECT_EQ(e["fork"], 0);
}

// What is resident in the page cache cannot be asked, nor evicted; reading and advising that
// pages be read still work.
TEST_F(SpawnTest, ThePageCacheCanBeNeitherAskedNorEmptied) {
  Json e = Report(ReportSpec())["errno"];
  for (const char* name : {"mincore", "cachestat", "io_setup"}) EXPECT_EQ(e[name], ENOSYS) << name;
  EXPECT_EQ(e["preadv2_nowait"], EOPNOTSUPP);
  EXPECT_EQ(e["pwritev2_nowait"], EOPNOTSUPP);
  for (const char* name : {"fadvise_dontneed", "madvise_cold", "madvise_pageout"}) {
    EXPECT_EQ(e[name], EPERM) << name;
  }
  for (const char* name : {"preadv2", "fadvise_willneed", "madvise_willneed"}) {
    EXPECT_EQ(e[name], 0) << name;
  }
}

// sysinfo(2) is answered by the parent with the values of the covered /proc files, in the
// process, its threads and its children; a bad pointer fails as the kernel's would.
TEST_F(SpawnTest, SysinfoTellsNothingOfTheMachine) {
  Json report = Report(ReportSpec());
  struct sysinfo machine = {};
  ASSERT_EQ(sysinfo(&machine), 0);
  const uint64_t total = static_cast<uint64_t>(machine.totalram) * machine.mem_unit;
  for (const char* asker : {"sysinfo", "sysinfo_thread"}) {
    const Json& asked = report[asker];
    EXPECT_EQ(asked["rc"], 0) << asker;
    EXPECT_EQ(asked["procs"], 1) << asker;
    EXPECT_EQ(asked["loads"], Json::array({0, 0, 0})) << asker;
    EXPECT_EQ(asked["uptime"], 0) << asker;
    EXPECT_EQ(asked["totalram"], total) << asker;
    EXPECT_EQ(asked["freeram"], total) << asker;
    EXPECT_EQ(asked["totalswap"], 0) << asker;
    EXPECT_EQ(asked["bufferram"], 0) << asker;
  }
  EXPECT_EQ(report["sysinfo_child_procs"], 1);
  EXPECT_EQ(report["errno"]["sysinfo_null"], EFAULT);
  EXPECT_EQ(report["errno"]["sysinfo_unmapped"], EFAULT);
}

// No pidfd can be had: its inode number would count the machine's processes.
TEST_F(SpawnTest, NoPidfdCanBeHad) {
  Json e = Report(ReportSpec())["errno"];
  EXPECT_EQ(e["pidfd_open"], ENOSYS);
  EXPECT_EQ(e["clone_pidfd"], EPERM);
  EXPECT_EQ(e["process_madvise"], EPERM);
  EXPECT_EQ(e["so_peerpidfd"], EPERM);
  EXPECT_EQ(e["so_passpidfd"], EPERM);
  EXPECT_EQ(e["open_by_handle_at"], EPERM);
  EXPECT_EQ(e["so_rcvbuf"], 0) << "another socket option is refused too";
}

// statfs and fstatfs show a file system as it is but for its free counts, which any write on the
// machine moves: every block and inode free. ustat, which tells a device's, does not exist.
TEST_F(SpawnTest, AFileSystemsFreeCountsAreFixed) {
  Json report = Report(ReportSpec());
  // /usr/bin is a read-only bind of the machine's folder (/usr itself is a folder of the view).
  struct statfs usr = {};
  ASSERT_EQ(statfs("/usr/bin", &usr), 0);
  for (const Json& asked : {report["statfs"]["/usr/bin"], report["fstatfs"]}) {
    EXPECT_EQ(asked["rc"], 0) << asked.dump();
    EXPECT_EQ(asked["type"], static_cast<int64_t>(usr.f_type));
    EXPECT_EQ(asked["blocks"], static_cast<uint64_t>(usr.f_blocks));
    EXPECT_EQ(asked["bsize"], static_cast<int64_t>(usr.f_bsize));
    EXPECT_EQ(asked["bfree"], asked["blocks"]);
    EXPECT_EQ(asked["bavail"], asked["blocks"]);
    EXPECT_EQ(asked["ffree"], asked["files"]);
  }
  // A relative path, from the process's own folder.
  const Json& here = report["statfs"]["."];
  EXPECT_EQ(here["rc"], 0) << here.dump();
  EXPECT_EQ(here["bfree"], here["blocks"]);
  Json e = report["errno"];
  EXPECT_EQ(e["statfs_missing"], ENOENT);
  EXPECT_EQ(e["statfs_null_path"], EFAULT);
  EXPECT_EQ(e["statfs_null_buffer"], EFAULT);
  EXPECT_EQ(e["fstatfs_closed"], EBADF);
  EXPECT_EQ(e["ustat"], ENOSYS);
  EXPECT_EQ(e["move_pages"], ENOSYS);
}

// The machine-wide counters of /proc read as the fixed text that covers them, the same for
// every process, and /proc/pressure is empty.
TEST_F(SpawnTest, TheMachinesCountersReadAsFixedText) {
  SKIP_UNLESS_ROOT();
  Json report = Report(ReportSpec());
  std::map<std::string, std::string> covers;
  for (const CoveredFile& cover : MachineCounterCovers()) covers[cover.path] = cover.text;
  ASSERT_TRUE(covers.count("/proc/stat"));
  ASSERT_TRUE(covers.count("/proc/loadavg"));
  for (const auto& [path, text] : report["counters"].items()) {
    if (!covers.count(path)) continue;  // not on this machine
    EXPECT_EQ(text.get<std::string>(), covers[path]) << path;
  }
  EXPECT_NE(covers["/proc/stat"].find("\nprocesses 0\n"), std::string::npos);
  EXPECT_EQ(covers["/proc/loadavg"], "0.00 0.00 0.00 1/1 1\n");
  for (const auto& [folder, listing] : report["listings"].items()) {
    EXPECT_EQ(listing, Json::array()) << folder;
  }
  // Those of them this machine has are among the covered folders.
  const std::vector<std::string>& folders = MachineCounterFolders();
  for (const char* folder : {"/proc/pressure", "/proc/fs", "/sys/fs", "/sys/kernel/irq"}) {
    struct stat info;
    if (stat(folder, &info) != 0) continue;
    EXPECT_NE(std::find(folders.begin(), folders.end(), folder), folders.end()) << folder;
  }
}

TEST_F(SpawnTest, X32SyscallKillsTheProcess) {
  Finished finished = Run(ProbeSpec({"x32"}));
  ASSERT_TRUE(WIFSIGNALED(finished.status)) << "the probe printed " << finished.report.dump();
  EXPECT_EQ(WTERMSIG(finished.status), SIGSYS);
}

// A descriptor the parent leaves open without close-on-exec, at `fd`.
int LeakedFd(int fd) {
  int opened = open("/dev/null", O_RDONLY);  // no O_CLOEXEC, on purpose
  EXPECT_GE(opened, 0);
  EXPECT_EQ(dup2(opened, fd), fd);
  close(opened);
  return fd;
}

uint64_t Inode(int fd) {
  struct stat st;
  EXPECT_EQ(fstat(fd, &st), 0);
  return st.st_ino;
}

// The worker's layout (docs/protocol.md): log on 1 and 2, commands on 3, replies on 4, the input
// buffer on 5; the parent meanwhile holds descriptors without close-on-exec.
TEST_F(SpawnTest, OnlyTheMappedDescriptorsAreOpen) {
  LeakedFd(40);
  LeakedFd(300);
  int commands[2], replies[2];
  ASSERT_EQ(pipe2(commands, O_CLOEXEC), 0);
  ASSERT_EQ(pipe2(replies, O_CLOEXEC), 0);
  open_.insert(open_.end(), {commands[0], commands[1], replies[0], replies[1]});
  int buffer = OpenForChild(dir_ / "inputs", O_RDONLY | O_CREAT);
  SpawnSpec spec = ReportSpec();
  spec.fds.push_back({commands[0], 3});
  spec.fds.push_back({replies[1], 4});
  spec.fds.push_back({buffer, 5});
  Json report = Report(spec);
  close(40);
  close(300);
  EXPECT_EQ(report["fds"], Json::array({0, 1, 2, 3, 4, 5}));
  EXPECT_EQ(report["fd_inodes"]["3"], Inode(commands[0]));
  EXPECT_EQ(report["fd_inodes"]["4"], Inode(replies[1]));
  EXPECT_EQ(report["fd_inodes"]["5"], Inode(buffer));
}

TEST_F(SpawnTest, MappingsMayTradeNumbers) {
  // Each child number is the other mapping's parent number.
  int a = OpenForChild(dir_ / "a", O_RDWR | O_CREAT);
  int b = OpenForChild(dir_ / "b", O_RDWR | O_CREAT);
  ASSERT_EQ(dup2(a, 20), 20);
  ASSERT_EQ(dup2(b, 21), 21);
  open_.insert(open_.end(), {20, 21});
  SpawnSpec spec = ReportSpec();
  spec.fds.push_back({21, 20});
  spec.fds.push_back({20, 21});
  Json report = Report(spec);
  EXPECT_EQ(report["fds"], Json::array({0, 1, 2, 20, 21}));
  EXPECT_EQ(report["fd_inodes"]["20"], Inode(b));
  EXPECT_EQ(report["fd_inodes"]["21"], Inode(a));
}

TEST_F(SpawnTest, OneDescriptorMayServeTwoNumbers) {
  SpawnSpec spec = ReportSpec();
  spec.fds = {{spec.fds[0].parent_fd, 1}, {spec.fds[0].parent_fd, 2}};  // a log for both
  Json report = Report(spec);
  EXPECT_EQ(report["fds"], Json::array({0, 1, 2}));
  EXPECT_EQ(report["fd_inodes"]["1"], report["fd_inodes"]["2"]);
}

TEST_F(SpawnTest, UnmappedStandardDescriptorsAreDevNull) {
  SpawnSpec spec = ReportSpec();
  Json report = Report(spec);  // stdin not mapped
  struct stat null_stat;
  ASSERT_EQ(stat("/dev/null", &null_stat), 0);
  EXPECT_EQ(report["fds"], Json::array({0, 1, 2}));
  EXPECT_EQ(report["fd_inodes"]["0"], static_cast<uint64_t>(null_stat.st_ino));
}

TEST_F(SpawnTest, EnvironmentIsExactlyTheGivenOne) {
  setenv("MNIST_SECRET_SEED", "0123", 1);
  setenv("RATCHET_TEST_TOKEN", "x", 1);
  SpawnSpec spec = ReportSpec();
  spec.env = {"HOME=" + worker_, "TMPDIR=" + worker_ + "/tmp", "EMPTY="};
  Json report = Report(spec);
  EXPECT_EQ(report["env"], Json(spec.env));
}

TEST_F(SpawnTest, ResourceLimitsAreSet) {
  SpawnSpec spec = ReportSpec();
  spec.file_size_bytes = 1 << 20;
  spec.open_files = 64;
  Json limits = Report(spec)["rlimits"];
  EXPECT_EQ(limits["core"], 0);
  EXPECT_EQ(limits["fsize"], 1 << 20);
  EXPECT_EQ(limits["nofile"], 64);
  struct rlimit as;
  ASSERT_EQ(getrlimit(RLIMIT_AS, &as), 0);
  if (as.rlim_cur == RLIM_INFINITY) {
    EXPECT_EQ(limits["as"], "unlimited");  // never lowered
  }
}

TEST_F(SpawnTest, DefaultLimitsAreThePolicys) {
  struct rlimit nofile;
  ASSERT_EQ(getrlimit(RLIMIT_NOFILE, &nofile), 0);
  Json limits = Report(ReportSpec())["rlimits"];
  EXPECT_EQ(limits["fsize"], kDefaultFileSizeBytes);
  EXPECT_EQ(limits["nofile"], std::min<uint64_t>(kDefaultOpenFiles, nofile.rlim_max));
}

TEST_F(SpawnTest, CannotReadRootOnlyFilesOrCoveredFolders) {
  SKIP_UNLESS_ROOT();
  Json report = Report(ReportSpec());
  Json e = report["errno"];
  EXPECT_EQ(e["read_root_only"], EACCES);
  EXPECT_EQ(report["covered_listing"], Json::array());
  EXPECT_EQ(e["read_covered_file"], ENOENT);
  EXPECT_NE(e["write_covered"], 0);
  // The cover is the child's alone.
  EXPECT_EQ(ReadFile(covered_ + "/data.txt").value(), "a dataset");
}

TEST_F(SpawnTest, CannotReadTheParentsMemory) {
  ASSERT_TRUE(MakeParentNonDumpable().ok());
  Json e = Report(ReportSpec())["errno"];
  if (geteuid() == 0) {
    // In a PID namespace of its own the parent is not even in the child's /proc.
    EXPECT_EQ(e["read_parent_mem"], ENOENT);
  } else {
    EXPECT_TRUE(e["read_parent_mem"] == EACCES || e["read_parent_mem"] == EPERM)
        << e["read_parent_mem"];
  }
}

// Spawn's children: none may be left behind by a failed spawn.
void ExpectNoChildren() {
  errno = 0;
  EXPECT_EQ(waitpid(-1, nullptr, WNOHANG), -1);
  EXPECT_EQ(errno, ECHILD);
}

TEST_F(SpawnTest, MissingProgramIsAnExecveError) {
  SpawnSpec spec = ProbeSpec({});
  spec.argv[0] = dir_ / "no-such-worker";
  Result<pid_t> pid = Spawn(spec);
  ASSERT_FALSE(pid.ok());
  EXPECT_EQ(pid.status().code(), Status::Code::kIOError);
  EXPECT_EQ(pid.status().message(), "spawn " + spec.argv[0] + ": execve: " + std::strerror(ENOENT));
  ExpectNoChildren();
}

TEST_F(SpawnTest, MissingFolderIsAChdirError) {
  SpawnSpec spec = ReportSpec();
  spec.cwd = dir_ / "gone";
  Result<pid_t> pid = Spawn(spec);
  ASSERT_FALSE(pid.ok());
  // As root the folder is opened first, to be bound into the child's view.
  const std::string step = geteuid() == 0 ? "open " + spec.cwd + " (O_PATH) for the new root"
                                          : "chdir " + spec.cwd;
  EXPECT_EQ(pid.status().message(),
            "spawn " + spec.argv[0] + ": " + step + ": " + std::strerror(ENOENT));
  ExpectNoChildren();
}

TEST_F(SpawnTest, FolderTheSandboxUidCannotEnterIsAChdirError) {
  SKIP_UNLESS_ROOT();
  SpawnSpec spec = ReportSpec();
  spec.cwd = dir_ / "root-only";
  ASSERT_EQ(mkdir(spec.cwd.c_str(), 0700), 0);
  Result<pid_t> pid = Spawn(spec);
  ASSERT_FALSE(pid.ok());
  EXPECT_EQ(pid.status().message(),
            "spawn " + spec.argv[0] + ": chdir " + spec.cwd + ": " + std::strerror(EACCES));
}

TEST_F(SpawnTest, RefusesAMalformedSpec) {
  SpawnSpec relative = ProbeSpec({});
  relative.argv[0] = "sandbox_probe";
  EXPECT_NE(Spawn(relative).status().message().find("absolute path"), std::string::npos);

  SpawnSpec twice = ProbeSpec({});
  twice.fds.push_back({twice.fds[0].parent_fd, 1});
  EXPECT_NE(Spawn(twice).status().message().find("child fd given twice"), std::string::npos);

  SpawnSpec closed = ProbeSpec({});
  closed.fds.push_back({987, 3});
  Status status = Spawn(closed).status();
  EXPECT_NE(status.message().find("fd mapping 987 -> 3: the parent fd"), std::string::npos)
      << status.message();

  SpawnSpec covered_file = ReportSpec();
  covered_file.covered = {secret_};
  EXPECT_NE(Spawn(covered_file).status().message().find("is not a folder"), std::string::npos);

  SpawnSpec other_uid = ReportSpec();
  other_uid.uid = 1000;
  EXPECT_NE(Spawn(other_uid).status().message().find(
                "is not a worker uid of this process's sandbox slot"),
            std::string::npos);
  // Nor a uid of another slot: another scorer's workers have those.
  SpawnSpec other_slot = ReportSpec();
  other_slot.uid = SlotWorkerUids(SandboxSlot() + 1).front();
  EXPECT_NE(Spawn(other_slot).status().message().find(
                "is not a worker uid of this process's sandbox slot"),
            std::string::npos);
  ExpectNoChildren();
}

// Every worker uid can be taken; a folder of one uid's is closed to the others.
TEST_F(SpawnTest, RunsAsEachWorkerUid) {
  SKIP_UNLESS_ROOT();
  for (uid_t uid : SlotWorkerUids(0)) {
    ASSERT_EQ(chown(worker_.c_str(), uid, kSandboxGid), 0);
    ASSERT_EQ(chown(probe_.c_str(), uid, kSandboxGid), 0);
    SpawnSpec spec = ReportSpec();
    spec.uid = uid;
    Json report = Report(spec);
    EXPECT_EQ(report["uid"], Ids(uid));
    EXPECT_EQ(report["gid"], Ids(kSandboxGid));
  }
  // The folder stays the last uid's: 65534 cannot enter it.
  SpawnSpec locked_out = ReportSpec();
  locked_out.uid = kSandboxUid;
  Status status = Spawn(locked_out).status();
  EXPECT_NE(status.message().find("chdir"), std::string::npos) << status.message();
  ASSERT_EQ(chown(worker_.c_str(), kSandboxUid, kSandboxGid), 0);
  for (uid_t uid : SlotWorkerUids(0)) EXPECT_TRUE(ReapSandbox(uid).ok());
  ExpectNoChildren();
}

TEST_F(SpawnTest, MissingCoveredFolderIsSkipped) {
  SpawnSpec spec = ReportSpec();
  spec.covered.push_back(dir_ / "not-installed");
  EXPECT_TRUE(Report(spec).is_object());
}

TEST_F(SpawnTest, ChildDiesWithItsParent) {
  // Orphans come to this process, so the probe's end can be waited for.
  ASSERT_EQ(prctl(PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0), 0);
  SpawnSpec spec = ProbeSpec({"sleep"});
  int pipe_fds[2];
  ASSERT_EQ(pipe2(pipe_fds, O_CLOEXEC), 0);
  pid_t middle = fork();
  if (middle == 0) {
    Result<pid_t> probe = Spawn(spec);
    pid_t pid = probe.ok() ? *probe : -1;
    (void)!write(pipe_fds[1], &pid, sizeof pid);
    _exit(0);  // the probe's parent dies here
  }
  close(pipe_fds[1]);
  pid_t probe = -1;
  ASSERT_EQ(read(pipe_fds[0], &probe, sizeof probe), static_cast<ssize_t>(sizeof probe));
  close(pipe_fds[0]);
  int status = 0;
  waitpid(middle, &status, 0);
  ASSERT_GT(probe, 0);
  ASSERT_TRUE(WaitWithin(probe, &status, std::chrono::seconds(5)))
      << "the probe outlived its parent";
  ASSERT_TRUE(WIFSIGNALED(status));
  EXPECT_EQ(WTERMSIG(status), SIGKILL);
}

// Not root, the sandbox is partial: the worker keeps the caller's uid, the folders are not
// covered, and only the filter and limits apply. Root plays a user by dropping to another uid.
TEST_F(SpawnTest, PartialSandboxKeepsTheCallersUid) {
  SKIP_UNLESS_ROOT();
  constexpr uid_t kUser = 65520;  // no worker uid: a user of the machine
  ASSERT_EQ(chown(worker_.c_str(), kUser, kUser), 0);
  SpawnSpec dumpable = ReportSpec();
  std::string dumpable_out = out_path_;
  SpawnSpec non_dumpable = ReportSpec();
  pid_t caller = fork();
  if (caller == 0) {
    if (syscall(SYS_setgroups, 0, nullptr) != 0 || syscall(SYS_setresgid, kUser, kUser, kUser) ||
        syscall(SYS_setresuid, kUser, kUser, kUser)) {
      _exit(10);
    }
    SandboxInfo info = DescribeSandbox();
    if (info.full || info.uid != kUser || info.partial_reason.empty()) _exit(11);
    prctl(PR_SET_DUMPABLE, 1, 0, 0, 0);  // as an ordinary user's process is
    for (SpawnSpec* spec : {&dumpable, &non_dumpable}) {
      if (spec == &non_dumpable && !MakeParentNonDumpable().ok()) _exit(12);
      Result<pid_t> pid = Spawn(*spec);
      int status = 0;
      if (!pid.ok() || waitpid(*pid, &status, 0) != *pid || !WIFEXITED(status)) _exit(13);
    }
    _exit(0);
  }
  int status = 0;
  ASSERT_TRUE(WaitWithin(caller, &status, std::chrono::seconds(20)));
  ASSERT_TRUE(WIFEXITED(status));
  ASSERT_EQ(WEXITSTATUS(status), 0);
  Json second = Read(Finished{}).report;
  out_path_ = dumpable_out;
  Json first = Read(Finished{}).report;
  ASSERT_TRUE(first.is_object() && second.is_object());
  for (const Json& report : {first, second}) {
    EXPECT_EQ(report["uid"], Ids(kUser));
    EXPECT_EQ(report["no_new_privs"], 1);
    EXPECT_EQ(report["seccomp"], 2);
    EXPECT_EQ(report["errno"]["socket_inet"], EACCES);
    EXPECT_EQ(report["covered_listing"], Json::array({"data.txt"}));
  }
  // Same uid: only the parent's own refusal keeps its memory from the worker.
  EXPECT_EQ(first["errno"]["read_parent_mem"], 0);
  EXPECT_EQ(second["errno"]["read_parent_mem"], EACCES);
  EXPECT_TRUE(ReapSandbox(kUser).ok());
}

}  // namespace
}  // namespace ratchet
