// A test fixture that starts the sandbox probe with Spawn, waits for it and reads its report.
// It lays out what a scorer would: a folder reachable by the sandbox uid (0711) holding the
// worker's own 0700 folder, a root-only file and a folder to cover.
#ifndef RATCHET_TESTS_SANDBOX_PROBE_FIXTURE_H_
#define RATCHET_TESTS_SANDBOX_PROBE_FIXTURE_H_

#include <fcntl.h>
#include <gtest/gtest.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <optional>
#include <string>
#include <thread>
#include <vector>

#include "core/canonical_json.h"
#include "core/file.h"
#include "sandbox/lock.h"
#include "sandbox/reap.h"
#include "sandbox/spawn.h"
#include "support/temp_dir.h"

namespace ratchet {

inline bool IsRoot() { return geteuid() == 0; }

#define SKIP_UNLESS_ROOT() \
  if (!IsRoot()) GTEST_SKIP() << "needs root: the sandbox changes uid and mounts only as root"

struct Finished {
  int status = -1;  // from waitpid
  Json report;      // the probe's stdout, parsed (null when it printed nothing parseable)
  std::string err;  // its stderr
};

// Waits for `pid` for at most `limit`; false (and the process killed) when it did not end.
inline bool WaitWithin(pid_t pid, int* status, std::chrono::milliseconds limit) {
  auto deadline = std::chrono::steady_clock::now() + limit;
  while (std::chrono::steady_clock::now() < deadline) {
    pid_t done = waitpid(pid, status, WNOHANG);
    if (done == pid) return true;
    if (done < 0 && errno != EINTR) return false;
    std::this_thread::sleep_for(std::chrono::milliseconds(5));
  }
  kill(pid, SIGKILL);
  waitpid(pid, status, 0);
  return false;
}

class ProbeTest : public ::testing::Test {
 protected:
  void SetUp() override {
    if (IsRoot()) {
      // Other tests and runs on this machine reap uid 65534 too; one at a time.
      Result<SandboxLock> lock = SandboxLock::Acquire(/*wait=*/true);
      ASSERT_TRUE(lock.ok()) << lock.status().ToString();
      lock_.emplace(std::move(lock).value());
    }
    ASSERT_EQ(chmod(dir_.path().c_str(), 0711), 0);
    worker_ = dir_ / "worker";
    ASSERT_EQ(mkdir(worker_.c_str(), 0700), 0);
    if (IsRoot()) {
      ASSERT_EQ(chown(worker_.c_str(), kSandboxUid, kSandboxGid), 0);
    }
    // Everything the probe is meant to see lies in its working folder: as root the child gets
    // empty temporary folders of its own, and of the machine's /tmp only its working folder
    // stays visible (the test's folder is in /tmp).
    secret_ = worker_ + "/secret";
    ASSERT_TRUE(WriteFileAtomic(secret_, "the parent's secret", 0600).ok());
    // The probe runs from a copy in the test's own folder: the build tree may lie in a folder
    // the sandbox user cannot enter (a checkout under a 0700 folder, as mktemp -d makes).
    probe_ = worker_ + "/sandbox_probe";
    Result<std::string> probe = ReadFile(RATCHET_SANDBOX_PROBE);
    ASSERT_TRUE(probe.ok()) << probe.status().ToString();
    ASSERT_TRUE(WriteFileAtomic(probe_, *probe, 0755).ok());
    covered_ = worker_ + "/datasets";
    ASSERT_EQ(mkdir(covered_.c_str(), 0755), 0);
    ASSERT_TRUE(WriteFileAtomic(covered_ + "/data.txt", "a dataset", 0644).ok());
  }

  void TearDown() override {
    for (int fd : open_) close(fd);
    // Whatever a probe left behind must not reach the next test.
    if (IsRoot()) {
      Status reaped = ReapSandbox(kSandboxUid);
      EXPECT_TRUE(reaped.ok()) << reaped.message();
    }
  }

  int OpenForChild(const std::string& path, int flags) {
    int fd = open(path.c_str(), flags | O_CLOEXEC, 0600);
    EXPECT_GE(fd, 0) << path;
    open_.push_back(fd);
    return fd;
  }

  // The probe with `args`, stdout and stderr to files of the test, a minimal environment.
  SpawnSpec ProbeSpec(const std::vector<std::string>& args) {
    SpawnSpec spec;
    spec.argv = {probe_};
    spec.argv.insert(spec.argv.end(), args.begin(), args.end());
    spec.env = {"PATH=/usr/bin:/bin", "LANG=C"};
    spec.cwd = worker_;
    out_path_ = dir_ / ("out-" + std::to_string(++runs_));
    spec.fds = {{OpenForChild(out_path_, O_WRONLY | O_CREAT | O_TRUNC), 1},
                {OpenForChild(out_path_ + ".err", O_WRONLY | O_CREAT | O_TRUNC), 2}};
    return spec;
  }

  SpawnSpec ReportSpec() {
    SpawnSpec spec = ProbeSpec({"report", secret_, covered_});
    spec.covered = {covered_};
    return spec;
  }

  // Spawns, waits (10 s at most) and reads what the probe wrote.
  Finished Run(const SpawnSpec& spec) {
    Finished finished;
    Result<pid_t> pid = Spawn(spec);
    EXPECT_TRUE(pid.ok()) << pid.status().ToString();
    if (!pid.ok()) return finished;
    EXPECT_TRUE(WaitWithin(*pid, &finished.status, std::chrono::seconds(10)))
        << "the probe did not finish";
    return Read(finished);
  }

  Finished Read(Finished finished) {
    Result<std::string> out = ReadFile(out_path_);
    Result<std::string> err = ReadFile(out_path_ + ".err");
    if (err.ok()) finished.err = *err;
    if (out.ok() && !out->empty()) {
      Result<Json> report = ParseJson(*out, out_path_);
      if (report.ok()) finished.report = *report;
    }
    return finished;
  }

  // The probe's report, checked to have exited 0.
  Json Report(const SpawnSpec& spec) {
    Finished finished = Run(spec);
    EXPECT_TRUE(WIFEXITED(finished.status) && WEXITSTATUS(finished.status) == 0)
        << "status " << finished.status << ", stderr: " << finished.err;
    EXPECT_TRUE(finished.report.is_object()) << "stderr: " << finished.err;
    return finished.report;
  }

  std::optional<SandboxLock> lock_;  // destroyed last: after the reap in TearDown
  TempDir dir_;
  std::string worker_, secret_, covered_, out_path_, probe_;
  std::vector<int> open_;
  int runs_ = 0;
};

}  // namespace ratchet

#endif  // RATCHET_TESTS_SANDBOX_PROBE_FIXTURE_H_
