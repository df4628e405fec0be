// The control group of a sandboxed process (sandbox/cgroup.h): the kernel holds it to its memory
// and process limits, and counts each time it did, which is how a method that hits a limit is
// named. Root only, like every step of the full sandbox.
#include "sandbox/cgroup.h"

#include <gtest/gtest.h>
#include <fcntl.h>
#include <signal.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <unistd.h>

#include "core/file.h"
#include "probe_fixture.h"

namespace ratchet {
namespace {

class GroupTest : public ProbeTest {
 protected:
  // The probe with `args`, in a new group of `limits`.
  Finished RunInGroup(const std::vector<std::string>& args, const GroupLimits& limits) {
    Result<std::unique_ptr<ProcessGroup>> made = ProcessGroup::Create(limits);
    EXPECT_TRUE(made.ok()) << made.status().ToString();
    if (!made.ok()) return Finished();
    group_ = std::move(*made);
    SpawnSpec spec = ProbeSpec(args);
    spec.processes = limits.processes;
    spec.group_fds = group_->join_fds();
    return Run(spec);
  }

  GroupUsage Usage() {
    Result<GroupUsage> usage = group_->Usage();
    EXPECT_TRUE(usage.ok()) << usage.status().ToString();
    return usage.ok() ? *usage : GroupUsage();
  }

  std::unique_ptr<ProcessGroup> group_;
};

constexpr uint64_t kMiB = uint64_t{1} << 20;

TEST(DescribeGroupsTest, NamesTheHierarchyItUses) {
  if (geteuid() != 0) GTEST_SKIP() << "the groups are made as root";
  Result<std::string> described = DescribeGroups();
  ASSERT_TRUE(described.ok()) << described.status().ToString();
  EXPECT_TRUE(described->rfind("cgroup v2 at ", 0) == 0 || described->rfind("cgroup v1: ", 0) == 0)
      << *described;
}

TEST_F(GroupTest, AProcessPastTheMemoryLimitIsKilledAndCounted) {
  SKIP_UNLESS_ROOT();
  Finished finished = RunInGroup({"hog", "1024"}, {256 * kMiB, 64});
  ASSERT_TRUE(WIFSIGNALED(finished.status)) << "status " << finished.status << " " << finished.report;
  EXPECT_EQ(WTERMSIG(finished.status), SIGKILL);
  EXPECT_GE(Usage().memory_kills, 1u);
}

// The same once the process is in the group's method folder (cgroup v1 counts the kill there).
TEST_F(GroupTest, AMethodPastTheMemoryLimitIsKilledAndCounted) {
  SKIP_UNLESS_ROOT();
  Result<std::unique_ptr<ProcessGroup>> made = ProcessGroup::Create({256 * kMiB, 64});
  ASSERT_TRUE(made.ok()) << made.status().ToString();
  group_ = std::move(*made);
  SpawnSpec spec = ProbeSpec({"hog", "1024", "300"});
  spec.group_fds = group_->join_fds();
  Result<pid_t> pid = Spawn(spec);
  ASSERT_TRUE(pid.ok()) << pid.status().ToString();
  Status entered = group_->EnterMethod(*pid);
  int status = -1;
  ASSERT_TRUE(WaitWithin(*pid, &status, std::chrono::seconds(10)));
  ASSERT_TRUE(entered.ok()) << entered.ToString();
  ASSERT_TRUE(WIFSIGNALED(status)) << "status " << status;
  EXPECT_EQ(WTERMSIG(status), SIGKILL);
  EXPECT_GE(Usage().memory_kills, 1u);
}

TEST_F(GroupTest, AProcessUnderTheMemoryLimitRunsAndIsNotCounted) {
  SKIP_UNLESS_ROOT();
  Json report = Report([&] {
    Result<std::unique_ptr<ProcessGroup>> made = ProcessGroup::Create({256 * kMiB, 64});
    EXPECT_TRUE(made.ok()) << made.status().ToString();
    group_ = std::move(*made);
    SpawnSpec spec = ProbeSpec({"hog", "32"});
    spec.group_fds = group_->join_fds();
    return spec;
  }());
  EXPECT_EQ(report["allocated_mib"], 32);
  const GroupUsage usage = Usage();
  EXPECT_EQ(usage.memory_kills, 0u);
  EXPECT_EQ(usage.process_refusals, 0u);
  EXPECT_GT(usage.cpu_ns + usage.memory_peak_bytes, 0u) << "the group counted nothing";
}

TEST_F(GroupTest, ForksPastTheProcessLimitAreRefusedAndCounted) {
  SKIP_UNLESS_ROOT();
  Finished finished = RunInGroup({"forks", "40"}, {256 * kMiB, 16});
  ASSERT_TRUE(finished.report.is_object()) << finished.err;
  EXPECT_LT(finished.report["started"].get<int64_t>(), 16);
  EXPECT_EQ(finished.report["errno"], EAGAIN);
  EXPECT_GE(Usage().process_refusals, 1u);
}

TEST_F(GroupTest, ForksUnderTheProcessLimitAreNotCounted) {
  SKIP_UNLESS_ROOT();
  Finished finished = RunInGroup({"forks", "8"}, {256 * kMiB, 16});
  ASSERT_TRUE(finished.report.is_object()) << finished.err;
  EXPECT_EQ(finished.report["started"], 8);
  EXPECT_EQ(Usage().process_refusals, 0u);
}

// The child sees its own group as the root of a cgroup namespace: nothing of ratchet's name for
// it (which holds ratchet's process id).
TEST_F(GroupTest, TheChildSeesItsGroupAsTheRoot) {
  SKIP_UNLESS_ROOT();
  Finished finished = RunInGroup({"cgroup"}, {256 * kMiB, 64});
  ASSERT_TRUE(finished.report.is_object()) << finished.err;
  const std::string groups = finished.report["cgroup"].get<std::string>();
  EXPECT_EQ(groups.find("ratchet"), std::string::npos) << groups;
}

// Pages of `path` in the page cache, as mincore says from the test's own mapping.
size_t ResidentPages(const std::string& path) {
  int fd = open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) return 0;
  const size_t size = static_cast<size_t>(lseek(fd, 0, SEEK_END));
  void* mapped = mmap(nullptr, size, PROT_READ, MAP_SHARED, fd, 0);
  close(fd);
  if (mapped == MAP_FAILED) return 0;
  const size_t page = static_cast<size_t>(sysconf(_SC_PAGESIZE));
  std::vector<unsigned char> resident((size + page - 1) / page);
  size_t count = 0;
  if (mincore(mapped, size, resident.data()) == 0) {
    for (unsigned char flag : resident) count += flag & 1;
  }
  munmap(mapped, size);
  return count;
}

// A file of 4 MiB in the worker's folder that is not in the page cache; false where the folder
// keeps its files in memory (a tmpfs), where there is nothing to drop.
bool MakeColdFile(const std::string& path) {
  if (!WriteFileAtomic(path, std::string(4 << 20, 'x'), 0644).ok()) return false;
  int fd = open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) return false;
  const bool evicted =
      fdatasync(fd) == 0 && posix_fadvise(fd, 0, 0, POSIX_FADV_DONTNEED) == 0;
  close(fd);
  return evicted && ResidentPages(path) == 0;
}

// A page a sandboxed process read into the page cache leaves it with the process's group, so
// that no later process can tell by a read's time that it was read (docs/sandbox.md).
TEST_F(GroupTest, WhatTheGroupReadLeavesThePageCache) {
  SKIP_UNLESS_ROOT();
  const std::string path = worker_ + "/cold";
  if (!MakeColdFile(path)) GTEST_SKIP() << worker_ << " keeps its files in memory (tmpfs)";
  Finished finished = RunInGroup({"read", path}, {256 * kMiB, 16});
  ASSERT_TRUE(finished.report.is_object()) << finished.err;
  ASSERT_EQ(finished.report["read_bytes"], 4 << 20) << finished.report.dump();
  ASSERT_GT(ResidentPages(path), 0u) << "the child's read left nothing to drop";
  Result<uint64_t> left = group_->DropPageCache();
  ASSERT_TRUE(left.ok()) << left.status().ToString();
  EXPECT_EQ(ResidentPages(path), 0u);
}

// A worker's start (ratchet's code) reads what every worker reads; its method, moved into the
// group's method folder before it is loaded, reads what it chooses. Only the method's pages are
// dropped: the start's stay resident for the next worker, charged to the group.
TEST_F(GroupTest, WhatTheMethodReadLeavesAndWhatTheStartReadStays) {
  SKIP_UNLESS_ROOT();
  const std::string start = worker_ + "/start", method = worker_ + "/method";
  if (!MakeColdFile(start) || !MakeColdFile(method)) {
    GTEST_SKIP() << worker_ << " keeps its files in memory (tmpfs)";
  }
  Finished started = RunInGroup({"read", start}, {256 * kMiB, 16});
  ASSERT_EQ(started.report["read_bytes"], 4 << 20) << started.err;
  // The second process reads after a pause, by which time it is in the method's folder.
  SpawnSpec spec = ProbeSpec({"read", method, "300"});
  spec.group_fds = group_->join_fds();
  Result<pid_t> pid = Spawn(spec);
  ASSERT_TRUE(pid.ok()) << pid.status().ToString();
  Status entered = group_->EnterMethod(*pid);
  Finished finished;
  ASSERT_TRUE(WaitWithin(*pid, &finished.status, std::chrono::seconds(10)));
  ASSERT_TRUE(entered.ok()) << entered.ToString();
  finished = Read(finished);
  ASSERT_EQ(finished.report["read_bytes"], 4 << 20) << finished.err;
  ASSERT_GT(ResidentPages(method), 0u) << "the method's read left nothing to drop";
  Result<uint64_t> left = group_->DropPageCache();
  ASSERT_TRUE(left.ok()) << left.status().ToString();
  EXPECT_EQ(ResidentPages(method), 0u);
  EXPECT_EQ(ResidentPages(start), 1024u);
}

TEST_F(GroupTest, TheGroupIsRemovedWithItsObject) {
  SKIP_UNLESS_ROOT();
  RunInGroup({"forks", "2"}, {256 * kMiB, 16});
  const std::vector<std::string> folders = group_->folders();
  ASSERT_FALSE(folders.empty());
  for (const std::string& folder : folders) EXPECT_TRUE(PathExists(folder)) << folder;
  group_.reset();
  for (const std::string& folder : folders) EXPECT_FALSE(PathExists(folder)) << folder;
}

}  // namespace
}  // namespace ratchet
