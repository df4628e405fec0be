// The sandbox slots' worker uids and this process's slot (sandbox/policy.h): apart from the policy
// itself, so that the tool, which takes a slot's lock for the scorer it starts, links them
// without what spawns.
#include <atomic>
#include <vector>

#include "sandbox/policy.h"

namespace ratchet {

namespace {
std::atomic<int> sandbox_slot{0};
}  // namespace

std::vector<uid_t> SlotWorkerUids(int slot) {
  std::vector<uid_t> uids;
  for (size_t i = 0; i < kWorkerUidCount; ++i) {
    uids.push_back(kSandboxUid - static_cast<uid_t>(kWorkerUidCount * static_cast<size_t>(slot) + i));
  }
  return uids;
}

bool IsSandboxWorkerUid(uid_t uid) {
  const uid_t lowest = kSandboxUid - static_cast<uid_t>(kWorkerUidCount * kSandboxSlotCount - 1);
  return uid <= kSandboxUid && uid >= lowest;
}

int SandboxSlot() { return sandbox_slot.load(); }
void SetSandboxSlot(int slot) { sandbox_slot.store(slot); }
std::vector<uid_t> WorkerUids() { return SlotWorkerUids(SandboxSlot()); }
uid_t FirstWorkerUid() { return WorkerUids().front(); }

}  // namespace ratchet
