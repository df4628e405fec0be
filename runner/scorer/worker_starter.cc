#include "scorer/worker_starter.h"

#include <algorithm>
#include <chrono>
#include <fstream>
#include <iterator>
#include <thread>

#include "contract/nvml.h"
#include "sandbox/reap.h"
#include "sandbox/spawn.h"

namespace ratchet {

SandboxWorkerStarter::SandboxWorkerStarter(WorkerLaunch launch)
    : launch_(std::move(launch)), isolated_(DescribeSandbox().full) {}

Status SandboxWorkerStarter::ClearWorkerUids() {
  return isolated_ ? ReapWorkerUids() : Status::Ok();
}

Result<std::unique_ptr<CallWorker>> SandboxWorkerStarter::Start(uid_t uid) {
  // Whatever of this uid an earlier call left is gone or exiting before another worker takes it.
  if (isolated_) RATCHET_RETURN_IF_ERROR(StopSandboxProcesses(uid));
  Result<std::unique_ptr<WorkerProcess>> worker = WorkerProcess::Start(launch_, uid);
  if (!worker.ok()) return worker.status();
  return std::unique_ptr<CallWorker>(std::move(*worker));
}

Result<CacheSet> SandboxWorkerStarter::ReadCaches(CallWorker& worker) {
  // Half the folder at most: each later worker's copy lies in a folder of the same size beside
  // its own files.
  return ReadCacheTree(worker.folder() + "/" + kWorkerCacheFolder,
                       std::min(kMaxCacheBytes,
                                static_cast<uint64_t>(launch_.limits.folder_bytes) / 2));
}

void SandboxWorkerStarter::SeedCaches(CacheSet caches) {
  launch_.caches = std::make_shared<const std::vector<FolderFile>>(std::move(caches.files));
  launch_.caches_sha256 = caches.sha256;
}

std::vector<pid_t> SandboxWorkerStarter::ProcessesOf(uid_t uid) {
  return isolated_ ? ProcessesOfUser(uid) : std::vector<pid_t>();
}

bool SandboxWorkerStarter::AwaitGone(const std::vector<pid_t>& pids, double timeout_s) {
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::duration<double>(timeout_s);
  for (pid_t pid : pids) {
    for (;;) {
      std::ifstream stat("/proc/" + std::to_string(pid) + "/stat");
      std::string text((std::istreambuf_iterator<char>(stat)), std::istreambuf_iterator<char>());
      const size_t paren = text.rfind(')');
      if (!stat || paren == std::string::npos || paren + 2 >= text.size()) break;  // gone
      const char state = text[paren + 2];
      if (state == 'Z' || state == 'X') break;
      if (std::chrono::steady_clock::now() > deadline) return false;
      std::this_thread::sleep_for(std::chrono::milliseconds(1));
    }
  }
  return true;
}

void SandboxWorkerStarter::KillWorkerUids() {
  if (isolated_) (void)::ratchet::KillWorkerUids();
}

Result<std::unique_ptr<MemoryGauge>> SandboxWorkerStarter::OpenMemoryGauge(
    bool gpu, const std::string& board_uuid) {
  if (!gpu) return HostMemoryGauge();
  Result<NvmlApi> api = BindNvml();
  if (!api.ok()) return api.status();
  return BoardMemoryGauge(*api, board_uuid);
}

}  // namespace ratchet
