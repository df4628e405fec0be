// A test fixture with a real single-node Slurm cluster: started once for the suite
// (scripts/slurm-test-cluster, from Debian's slurmctld, slurmd and munge), with SLURM_CONF set
// for the test's process and its children, and stopped after. A test is skipped where the
// cluster cannot run (not root, no Slurm installed) and fails where it would not start.
#ifndef RATCHET_TESTS_SUPPORT_SLURM_CLUSTER_H_
#define RATCHET_TESTS_SUPPORT_SLURM_CLUSTER_H_

#include <gtest/gtest.h>
#include <unistd.h>

#include <cstdlib>
#include <string>

#include "core/file.h"
#include "core/subprocess.h"
#include "support/checkout.h"
#include "support/temp_dir.h"

namespace ratchet {

class SlurmClusterTest : public ::testing::Test {
 protected:
  static void SetUpTestSuite() {
    if (geteuid() != 0) {
      skip_ = "the test cluster runs as root";
      return;
    }
    if (FindAllOnPath("sbatch").empty() && !PathExists("/usr/bin/sbatch")) {
      skip_ = "no Slurm here: scripts/setup installs slurmctld, slurmd and munge";
      return;
    }
    cluster_ = new TempDir;
    Result<ProcessResult> started =
        RunProcess({SourceDir() + "/scripts/slurm-test-cluster", "start", cluster_->path()}, 90);
    if (!started.ok() || started->exit_code != 0) {
      failure_ = started.ok() ? started->err : started.status().message();
      return;
    }
    const std::string lead = "export SLURM_CONF=";
    const size_t at = started->out.find(lead);
    if (at == std::string::npos) {
      failure_ = "no SLURM_CONF in: " + started->out;
      return;
    }
    const std::string conf =
        started->out.substr(at + lead.size(), started->out.find('\n', at) - at - lead.size());
    setenv("SLURM_CONF", conf.c_str(), 1);
  }
  static void TearDownTestSuite() {
    if (cluster_ != nullptr) {
      (void)RunProcess({SourceDir() + "/scripts/slurm-test-cluster", "stop", cluster_->path()}, 60);
      delete cluster_;
      cluster_ = nullptr;
    }
  }
  void SetUp() override {
    if (!skip_.empty()) GTEST_SKIP() << skip_;
    ASSERT_TRUE(failure_.empty()) << "the test cluster did not start: " << failure_;
  }

  // SIGKILLs the cluster's slurmd and starts it again: a node that went away and came back.
  static bool RestartSlurmd(std::string* error) {
    Result<ProcessResult> restarted = RunProcess(
        {SourceDir() + "/scripts/slurm-test-cluster", "restart-slurmd", cluster_->path()}, 90);
    if (restarted.ok() && restarted->exit_code == 0) return true;
    *error = restarted.ok() ? restarted->err : restarted.status().message();
    return false;
  }

  static inline TempDir* cluster_ = nullptr;
  static inline std::string skip_, failure_;
};

}  // namespace ratchet

#endif  // RATCHET_TESTS_SUPPORT_SLURM_CLUSTER_H_
