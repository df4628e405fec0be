// Reaping: after a call nothing of the sandbox uid survives, neither process, file nor SysV
// object, and nothing of anyone else is touched.
#include "sandbox/reap.h"

#include <pwd.h>
#include <sys/ipc.h>
#include <sys/mount.h>
#include <sys/msg.h>
#include <sys/sem.h>
#include <sys/shm.h>
#include <sys/syscall.h>

#include <algorithm>
#include <cstring>
#include <filesystem>
#include <fstream>

#include "probe_fixture.h"

namespace ratchet {
namespace {

using ReapTest = ProbeTest;

bool Exists(const std::string& path) {
  struct stat st;
  return lstat(path.c_str(), &st) == 0;
}

bool Contains(const std::vector<pid_t>& pids, pid_t pid) {
  return std::find(pids.begin(), pids.end(), pid) != pids.end();
}

char ProcessState(pid_t pid) {
  std::ifstream stat("/proc/" + std::to_string(pid) + "/stat");
  std::string text((std::istreambuf_iterator<char>(stat)), std::istreambuf_iterator<char>());
  size_t paren = text.rfind(')');
  return paren == std::string::npos || paren + 2 >= text.size() ? '?' : text[paren + 2];
}

// Polls until `pid` is in `state`, for at most two seconds.
bool ReachesState(pid_t pid, char state) {
  for (int i = 0; i < 400; ++i) {
    if (ProcessState(pid) == state) return true;
    std::this_thread::sleep_for(std::chrono::milliseconds(5));
  }
  return false;
}

TEST(ReapRefusalTest, RefusesRootAndItsOwnUid) {
  Status root = ReapSandbox(0);
  EXPECT_FALSE(root.ok());
  EXPECT_NE(root.message().find("refusing to reap uid 0"), std::string::npos) << root.message();
  EXPECT_FALSE(KillSandboxProcesses(0).ok());
  uid_t own = geteuid();
  EXPECT_FALSE(ReapSandbox(own).ok());
  EXPECT_FALSE(KillSandboxProcesses(own).ok());
  Status signal = SignalUser(own, SIGSTOP);
  EXPECT_FALSE(signal.ok());
  EXPECT_NE(signal.message().find("refusing to signal"), std::string::npos) << signal.message();
}

// What a worker leaves in the temporary folders stays in its own (the machine's never see it),
// is out of reach of the next worker, and the processes it leaves die with it.
TEST_F(ReapTest, WhatTheSandboxLeavesDiesWithItsProcesses) {
  SKIP_UNLESS_ROOT();
  // The probe's orphans come to this process, so their end can be seen.
  ASSERT_EQ(prctl(PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0), 0);
  std::string tag = "ratchet-reap-test-" + std::to_string(getpid());
  std::string target = dir_ / "link-target";
  ASSERT_TRUE(WriteFileAtomic(target, "keep me", 0600).ok());
  Json report = Report(ProbeSpec({"leave", tag, target}));
  ASSERT_TRUE(report.is_object());
  size_t written = 0;
  for (const auto& [path, error] : report["errno"].items()) {
    // The view has no /run: the worker cannot even name the machine's /run/lock.
    if (path.rfind("/run/lock/", 0) == 0) {
      EXPECT_EQ(error, ENOENT) << path;
      continue;
    }
    ASSERT_EQ(error, 0) << path;  // the worker wrote it, in a folder of its own
    EXPECT_FALSE(Exists(path)) << path << " reached the machine's own folder";
    ++written;
  }
  EXPECT_GE(written, 5u);
  // The probe left two processes behind (one with its main thread gone); it was the first
  // process of a PID namespace of its own, so the kernel killed them when it exited.
  EXPECT_TRUE(report["sleeper"].is_number() && report["leaderless"].is_number());
  bool gone = false;
  for (int i = 0; i < 500 && !gone; ++i) {
    gone = ProcessesOfUser(kSandboxUid).empty();
    if (!gone) std::this_thread::sleep_for(std::chrono::milliseconds(10));
  }
  EXPECT_TRUE(gone) << "a process the probe left outlived it";

  // Another worker finds none of what it wrote.
  Json look = Report(ProbeSpec({"look", tag}));
  ASSERT_TRUE(look.is_object());
  for (const auto& [path, error] : look.items()) EXPECT_EQ(error, ENOENT) << path;
  ASSERT_TRUE(KillSandboxProcesses(kSandboxUid).ok());
  EXPECT_EQ(ReadFile(target).value(), "keep me");
}

// ReapSandbox kills the uid's processes as KillSandboxProcesses does.
TEST_F(ReapTest, ReapSandboxKillsTheProcessesToo) {
  SKIP_UNLESS_ROOT();
  Result<pid_t> pid = Spawn(ProbeSpec({"sleep"}));
  ASSERT_TRUE(pid.ok()) << pid.status().ToString();
  EXPECT_TRUE(Contains(ProcessesOfUser(kSandboxUid), *pid));
  ASSERT_TRUE(ReapSandbox(kSandboxUid).ok());
  EXPECT_TRUE(ProcessesOfUser(kSandboxUid).empty());
  int status = 0;
  ASSERT_TRUE(WaitWithin(*pid, &status, std::chrono::seconds(5)));
  ASSERT_TRUE(WIFSIGNALED(status));
  EXPECT_EQ(WTERMSIG(status), SIGKILL);
}

TEST_F(ReapTest, RemovesOnlyWhatTheUidOwns) {
  SKIP_UNLESS_ROOT();
  // A shared folder of root's in /tmp, writable by all, with one entry of each owner.
  TempDir shared;
  ASSERT_EQ(chmod(shared.path().c_str(), 01777), 0);
  std::string theirs = shared / "nobody.dat", ours = shared / "root.dat";
  ASSERT_TRUE(WriteFileAtomic(theirs, "x").ok());
  ASSERT_EQ(chown(theirs.c_str(), kSandboxUid, kSandboxGid), 0);
  ASSERT_TRUE(WriteFileAtomic(ours, "y").ok());
  std::string owned_folder = shared / "nobody.d";
  ASSERT_EQ(mkdir(owned_folder.c_str(), 0700), 0);
  ASSERT_TRUE(WriteFileAtomic(owned_folder + "/root-inside", "z").ok());
  ASSERT_EQ(chown(owned_folder.c_str(), kSandboxUid, kSandboxGid), 0);

  ASSERT_TRUE(ReapSandbox(kSandboxUid).ok());
  EXPECT_FALSE(Exists(theirs));
  EXPECT_FALSE(Exists(owned_folder));  // with what it held, whoever owned that
  EXPECT_TRUE(Exists(ours));
  EXPECT_TRUE(Exists(shared.path()));
}

// Every worker uid's files go in one reap, each world-writable folder walked once for all of
// them; a file of a uid outside the worker uids stays, and so does root's.
TEST_F(ReapTest, ReapWorkerUidsRemovesTheFilesOfEveryWorkerUid) {
  SKIP_UNLESS_ROOT();
  if (!CheckWorkerUids().ok()) GTEST_SKIP() << "a worker uid has a user on this machine";
  // Under /tmp itself (not $TMPDIR), root's, as a run's evidence or build folder would be.
  char pattern[] = "/tmp/ratchet-reap-XXXXXX";
  ASSERT_NE(mkdtemp(pattern), nullptr);
  const std::string shared = pattern;
  const std::string nested = shared + "/a/b";
  ASSERT_EQ(mkdir((shared + "/a").c_str(), 0755), 0);
  ASSERT_EQ(mkdir(nested.c_str(), 01777), 0);
  std::vector<std::string> workers;
  for (uid_t uid : SlotWorkerUids(0)) {
    workers.push_back(nested + "/w" + std::to_string(uid));
    ASSERT_TRUE(WriteFileAtomic(workers.back(), "x").ok());
    ASSERT_EQ(chown(workers.back().c_str(), uid, kSandboxGid), 0);
  }
  const std::string stranger = nested + "/stranger", ours = nested + "/root.dat";
  ASSERT_TRUE(WriteFileAtomic(stranger, "s").ok());
  ASSERT_EQ(chown(stranger.c_str(), 4242, 4242), 0);
  ASSERT_TRUE(WriteFileAtomic(ours, "r").ok());

  Status reaped = ReapWorkerUids();
  ASSERT_TRUE(reaped.ok()) << reaped.message();
  for (const std::string& path : workers) EXPECT_FALSE(Exists(path)) << path;
  EXPECT_TRUE(Exists(stranger));
  EXPECT_TRUE(Exists(ours));
  // One uid's reap leaves the files of the other worker uids.
  const std::string other = nested + "/other";
  ASSERT_TRUE(WriteFileAtomic(other, "o").ok());
  ASSERT_EQ(chown(other.c_str(), SlotWorkerUids(0)[1], kSandboxGid), 0);
  ASSERT_TRUE(ReapSandbox(SlotWorkerUids(0)[0]).ok());
  EXPECT_TRUE(Exists(other));
  std::filesystem::remove_all(shared);
}

// A worker folder is a tmpfs of its own; a scorer killed mid-run leaves it mounted. The reap of
// its uid detaches and removes it; the folder of another uid (another scorer's worker) stays.
TEST_F(ReapTest, DetachesAndRemovesAWorkerFolderItsUidLeftMounted) {
  SKIP_UNLESS_ROOT();
  auto mounted_folder = [](uid_t uid) {
    std::string pattern = std::string(kWorkerFolderPrefix) + "XXXXXX";
    EXPECT_NE(mkdtemp(pattern.data()), nullptr);
    EXPECT_EQ(mount("ratchet-worker", pattern.c_str(), "tmpfs", MS_NOSUID | MS_NODEV,
                    "size=1048576,mode=0700"),
              0)
        << std::strerror(errno);
    EXPECT_TRUE(WriteFileAtomic(pattern + "/left.dat", "x").ok());
    EXPECT_EQ(chown((pattern + "/left.dat").c_str(), uid, kSandboxGid), 0);
    EXPECT_EQ(chown(pattern.c_str(), uid, kSandboxGid), 0);
    return pattern;
  };
  const std::string ours = mounted_folder(kSandboxUid);
  const std::string theirs = mounted_folder(SlotWorkerUids(0)[1]);
  Status reaped = ReapSandbox(kSandboxUid);
  EXPECT_TRUE(reaped.ok()) << reaped.message();
  EXPECT_FALSE(Exists(ours));
  EXPECT_TRUE(Exists(theirs + "/left.dat"));
  EXPECT_EQ(umount2(theirs.c_str(), MNT_DETACH), 0);
  std::filesystem::remove_all(theirs);
}

struct IpcIds {
  int shm = -1, sem = -1, msg = -1;
};

bool ShmExists(int id) {
  shmid_ds ds;
  return shmctl(id, IPC_STAT, &ds) == 0;
}
bool SemExists(int id) {
  semid_ds ds;
  return semctl(id, 0, IPC_STAT, &ds) == 0;
}
bool MsgExists(int id) {
  msqid_ds ds;
  return msgctl(id, IPC_STAT, &ds) == 0;
}

// The filter refuses SysV IPC, so the objects come from a process that only took the uid.
TEST_F(ReapTest, RemovesSysVObjectsOfTheUid) {
  SKIP_UNLESS_ROOT();
  int pipe_fds[2];
  ASSERT_EQ(pipe2(pipe_fds, O_CLOEXEC), 0);
  pid_t maker = fork();
  if (maker == 0) {
    if (syscall(SYS_setgroups, 0, nullptr) || syscall(SYS_setresgid, 65534, 65534, 65534) ||
        syscall(SYS_setresuid, 65534, 65534, 65534)) {
      _exit(1);
    }
    IpcIds ids;
    ids.shm = shmget(IPC_PRIVATE, 4096, IPC_CREAT | 0600);
    ids.sem = semget(IPC_PRIVATE, 1, IPC_CREAT | 0600);
    ids.msg = msgget(IPC_PRIVATE, IPC_CREAT | 0600);
    (void)!write(pipe_fds[1], &ids, sizeof ids);
    _exit(0);
  }
  close(pipe_fds[1]);
  IpcIds ids;
  ASSERT_EQ(read(pipe_fds[0], &ids, sizeof ids), static_cast<ssize_t>(sizeof ids));
  close(pipe_fds[0]);
  waitpid(maker, nullptr, 0);
  ASSERT_TRUE(ShmExists(ids.shm) && SemExists(ids.sem) && MsgExists(ids.msg));

  // A segment root created and handed to the uid, and one that stays root's.
  int handed = shmget(IPC_PRIVATE, 4096, IPC_CREAT | 0600);
  int kept = shmget(IPC_PRIVATE, 4096, IPC_CREAT | 0600);
  ASSERT_GE(handed, 0);
  ASSERT_GE(kept, 0);
  shmid_ds ds;
  ASSERT_EQ(shmctl(handed, IPC_STAT, &ds), 0);
  ds.shm_perm.uid = kSandboxUid;
  ASSERT_EQ(shmctl(handed, IPC_SET, &ds), 0);

  Status reaped = ReapSandbox(kSandboxUid);
  EXPECT_TRUE(reaped.ok()) << reaped.message();
  EXPECT_FALSE(ShmExists(ids.shm));
  EXPECT_FALSE(SemExists(ids.sem));
  EXPECT_FALSE(MsgExists(ids.msg));
  EXPECT_FALSE(ShmExists(handed));
  EXPECT_TRUE(ShmExists(kept));
  shmctl(kept, IPC_RMID, nullptr);
}

// A worker started ahead of its call is frozen before another's window opens: AwaitStopped
// returns only once every thread is stopped.
TEST_F(ReapTest, AwaitStoppedWaitsForEveryThreadToStop) {
  SKIP_UNLESS_ROOT();
  Result<pid_t> pid = Spawn(ProbeSpec({"sleep"}));
  ASSERT_TRUE(pid.ok()) << pid.status().message();
  ASSERT_TRUE(ReachesState(*pid, 'S'));
  Status running = AwaitStopped({*pid}, 0.05);
  EXPECT_EQ(running.code(), Status::Code::kUnavailable);
  EXPECT_NE(running.message().find("process " + std::to_string(*pid) + " (state S)"),
            std::string::npos)
      << running.message();
  ASSERT_EQ(kill(*pid, SIGSTOP), 0);
  Status stopped = AwaitStopped({*pid}, 5);
  EXPECT_TRUE(stopped.ok()) << stopped.message();
  EXPECT_TRUE(ReachesState(*pid, 'T'));
  ASSERT_TRUE(ReapSandbox(kSandboxUid).ok());
  int status = 0;
  ASSERT_TRUE(WaitWithin(*pid, &status, std::chrono::seconds(5)));
  // Gone counts as stopped.
  EXPECT_TRUE(AwaitStopped({*pid}, 0.05).ok());
}

TEST(WorkerUidsTest, NoWorkerUidButNobodysBelongsToAnAccountHere) {
  // What CheckWorkerUids guards: the scoring machine gives 65527-65533 to nobody else.
  Status status = CheckWorkerUids();
  bool taken = false;
  for (uid_t uid : SlotWorkerUids(0)) taken = taken || (uid != kSandboxUid && getpwuid(uid) != nullptr);
  EXPECT_EQ(status.ok(), !taken) << status.message();
  if (taken) {
    EXPECT_NE(status.message().find("belongs to the account"), std::string::npos);
  }
}

TEST_F(ReapTest, SignalUserFreezesAndThawsTheSandbox) {
  SKIP_UNLESS_ROOT();
  Result<pid_t> pid = Spawn(ProbeSpec({"sleep"}));
  ASSERT_TRUE(pid.ok()) << pid.status().message();
  ASSERT_TRUE(ReachesState(*pid, 'S'));
  ASSERT_TRUE(SignalUser(kSandboxUid, SIGSTOP).ok());
  EXPECT_TRUE(ReachesState(*pid, 'T'));
  ASSERT_TRUE(SignalUser(kSandboxUid, SIGCONT).ok());
  EXPECT_TRUE(ReachesState(*pid, 'S'));
  ASSERT_TRUE(ReapSandbox(kSandboxUid).ok());
  int status = 0;
  ASSERT_TRUE(WaitWithin(*pid, &status, std::chrono::seconds(5)));
  EXPECT_TRUE(WIFSIGNALED(status) && WTERMSIG(status) == SIGKILL);
}

}  // namespace
}  // namespace ratchet
