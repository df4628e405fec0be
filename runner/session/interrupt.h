// SIGINT and SIGTERM in ratchet-scorer. Once InstallInterruptHandlers has run, either signal sets
// one flag instead of ending the process; the command looks at it between steps (a run's calls,
// the energy column's windows, the telemetry reference, the wait for the sandbox lock) and
// finishes what it began (an evidence folder as interrupted, a telemetry folder removed), so that
// a stopped command never leaves a folder half-written. It then exits 130 (kExitInterrupted).
#ifndef RATCHET_SESSION_INTERRUPT_H_
#define RATCHET_SESSION_INTERRUPT_H_

#include <atomic>

namespace ratchet {

// Clears the flag and installs the handlers, before the command begins any folder: a signal
// that came later would otherwise end the process with the folder still partial. The handlers
// leave SA_RESTART off, so a blocking read or wait returns EINTR and its loop looks at the flag.
void InstallInterruptHandlers();

// Whether SIGINT or SIGTERM came since InstallInterruptHandlers.
bool Interrupted();

// The flag itself, for the steps that look at it on their own (RunInputs, EnergyInputs, the
// telemetry reference, SandboxLock::AcquireWaiting).
const std::atomic<bool>* InterruptFlag();

}  // namespace ratchet

#endif  // RATCHET_SESSION_INTERRUPT_H_
