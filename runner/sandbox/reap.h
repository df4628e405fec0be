// Finding, signalling and clearing away everything the sandbox uid has: its processes, its files
// in the world-writable folders, its SysV IPC objects. A sandboxed child writes its temporary
// folders and IPC objects in namespaces of its own, which die with its last process, so after
// every call the parent kills the uid's processes (StopSandboxProcesses once the call is over or
// before another worker takes the uid, KillSandboxProcesses when a run ends), and nothing one
// worker leaves behind (a process, a file, a shared segment) reaches the next. ReapSandbox, which
// also searches the machine's world-writable folders and SysV objects, runs before a run's first
// process, for whatever an older run or another scorer left.
#ifndef RATCHET_SANDBOX_REAP_H_
#define RATCHET_SANDBOX_REAP_H_

#include <sys/types.h>

#include <string>
#include <vector>

#include "core/status.h"

namespace ratchet {

// The folders a process of any uid may write to, which ReapSandbox clears of the uid's entries.
const std::vector<std::string>& WorldWritableFolders();

// Every live process with `uid` among its real, effective, saved or filesystem uids. A zombie
// whose threads have all exited runs nothing and holds no memory; it is left out (its parent
// reaps it). A process whose main thread exited while others run is live, and listed.
std::vector<pid_t> ProcessesOfUser(uid_t uid);

// Sends `sig` to every process of `uid`: as root, first through a helper that takes the uid and
// calls kill(-1, sig), which the kernel applies to all of them at once (so a process forking in
// a loop cannot outrun it), then to each process ProcessesOfUser finds. SIGSTOP and SIGCONT
// freeze and thaw a worker's processes. Refuses uid 0 and this process's own uid.
Status SignalUser(uid_t uid, int sig);

// Kills every process of `uid` until none is live (an error names those still alive after ten
// seconds). Refuses uid 0 and this process's own uid.
Status KillSandboxProcesses(uid_t uid);

// Kills every process of `uid` until each is gone or has begun to exit (the kernel is releasing
// its memory and devices, which can take a GPU context hundreds of milliseconds): none can run
// its own code or start another process again. The next worker may start meanwhile; the dying
// ones finish on their own. Refuses uid 0 and this process's own uid.
Status StopSandboxProcesses(uid_t uid);

// Stops (SIGSTOP, `stop` true) or continues (SIGCONT) every process of `uid`, so that none of a
// worker's threads runs while the board's idle power is read. Refuses uid 0 and this process's
// own uid.
Status FreezeSandboxProcesses(uid_t uid, bool stop);

// Returns once every thread of `pids` is stopped (or gone, or exiting): a SIGSTOP takes effect
// only when each thread next leaves the kernel, so a thread inside a driver call runs on until
// that call returns. Unavailable, naming a thread still running, after `timeout_s`.
Status AwaitStopped(const std::vector<pid_t>& pids, double timeout_s);

// Refuses a machine where a worker uid of this process's slot other than kSandboxUid belongs to an
// account (a user of that uid would see ratchet kill its processes and remove its files).
Status CheckWorkerUids();

// CheckWorkerUids, then ReapSandbox of every worker uid of this process's slot (each
// world-writable folder walked once for all of them): before the first sandboxed process of a
// command, whatever an earlier run on the slot left (a method's child that outlived a killed
// ratchet) goes. Another slot's uids are another scorer's, and are left alone.
Status ReapWorkerUids();

// KillSandboxProcesses of every worker uid of this process's slot; the first error is returned,
// every uid is tried.
Status KillWorkerUids();

// Kills every process of `uid` until none is live (an error names those still alive after ten
// seconds), removes every SysV shared memory segment, semaphore set and message queue that
// `uid` owns or created, and every file and folder it owns in WorldWritableFolders(), with all
// that a removed folder holds. Symbolic links are removed, never followed; no other filesystem
// is entered. Refuses uid 0 and this process's own uid. An error names the first thing that could
// not be removed; everything else is still tried.
Status ReapSandbox(uid_t uid);

}  // namespace ratchet

#endif  // RATCHET_SANDBOX_REAP_H_
