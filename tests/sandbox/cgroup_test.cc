// The control group of a sandboxed process (sandbox/cgroup.h): the kernel holds it to its memory
// and process limits, and counts each time it did, which is how a method that hits a limit is
// named. Root only, like every step of the full sandbox.
#include "sandbox/cgroup.h"

#include <gtest/gtest.h>
#include <signal.h>
#include <sys/wait.h>

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
