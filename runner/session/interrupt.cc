#include "session/interrupt.h"

#include <signal.h>

namespace ratchet {
namespace {

std::atomic<bool> g_interrupted{false};

void OnInterrupt(int) { g_interrupted.store(true); }

}  // namespace

void InstallInterruptHandlers() {
  g_interrupted.store(false);
  struct sigaction action = {};
  action.sa_handler = OnInterrupt;
  sigaction(SIGINT, &action, nullptr);
  sigaction(SIGTERM, &action, nullptr);
}

bool Interrupted() { return g_interrupted.load(); }

const std::atomic<bool>* InterruptFlag() { return &g_interrupted; }

}  // namespace ratchet
