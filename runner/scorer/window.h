// One `go` of the worker protocol as the parent runs it: a garbage collection in the worker
// outside the window (unless the caller's protocol skips it), then the window: the inputs written
// into the input buffer, the command, the reply. Shared by the timed calls, their calibration
// and the energy column's windows.
#ifndef RATCHET_SCORER_WINDOW_H_
#define RATCHET_SCORER_WINDOW_H_

#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "data/draw.h"
#include "protocol/copy_threads.h"
#include "rules/rule_set.h"
#include "scorer/worker_process.h"

namespace ratchet {

// The protocol's hello for `worker`: the draw's shapes from `rules` and its input buffer's size.
Json HelloCommand(const RuleSet& rules, const CallWorker& worker);

// Three arrays of a draw's shapes, zeros when made: the empty method's inputs, and the parent's
// staging area (see WindowRequest::staging).
struct EmptyInputs {
  explicit EmptyInputs(const RuleSet::Draw& draw);
  std::vector<float> train_x, test_x;
  std::vector<int64_t> train_y;
};

// How long a worker waits for the `go` without sleeping after answering a `gc` with "spin_ms"
// (docs/protocol.md): more than the parent's staging and write take before it sends the `go`.
inline constexpr double kWorkerSpinMs = 10;

struct WindowRequest {
  const Draw* draw = nullptr;  // nullptr: `empty` is written instead
  const EmptyInputs* empty = nullptr;
  // When set, the inputs are first copied here, outside the window, and the window writes them
  // from here: every window of a run, empty or timed, then copies from the same memory in the
  // same state (just written by the parent), whatever the draw's own memory was doing.
  EmptyInputs* staging = nullptr;
  bool null_method = false;  // the empty method instead of the submission's
  bool collect = true;       // a `gc` before the window
  double timeout_s = 0;      // for the `go`
  double stage_s = 0;        // for the `gc`
  std::string doing;         // completes "timed out while ..."
  // Wait for the reply without sleeping, so that the parent's clock stops when the reply
  // arrives, not when the scheduler wakes the parent (on a GPU, where the method leaves the
  // processor's cores idle; the empty calls of the calibration spin the same way). The `gc`
  // then asks the worker to wait for the `go` the same way (kWorkerSpinMs at most).
  bool spin = false;
  // When set, the window's write of the inputs is shared with its helper threads (woken before
  // the window opens); else this thread copies them alone.
  CopyThreads* copy_threads = nullptr;
  // Work of the parent's done while the worker runs the method, between sending `go` and
  // reading its reply (for an untimed call only: it moves parent_ms). The `go`'s timeout still
  // counts from the send.
  std::function<void()> while_waiting;
};

struct WindowResult {
  double ms = 0;         // the worker's time of the method (CUDA events, or its clock)
  double parent_ms = 0;  // the parent's clock around the window
  std::string labels;    // one byte per test row
  // Where parent_ms went, in ms, from the parent's instants and those the worker reported on the
  // same clock: write (the inputs into the buffer), to_worker (the command, until the worker
  // had read it), inputs (the worker's copies to the device, the flush), method (the worker's
  // clock around the method), labels (checking the output, turning it into labels), to_parent
  // (the reply, until the parent had read it); and, beside them, before the window, collect (the
  // `gc` round trip), stage (the copy into the staging area) and, with copy threads, arm (their
  // helpers woken), and inside to_parent, reply_read (the parent's read of the reply from its
  // header to its last byte). Empty when the worker reported no instants. The worker's instants
  // come from the method's process, so this is a diagnostic, never evidence the judge reads.
  Json phases;
};

// The phases of one window (see WindowResult::phases) from the parent's instants and the reply's
// "clock_ns"; empty unless the worker's instants are integers, in order, within the window.
Json WindowPhases(int64_t opened_ns, int64_t written_ns, int64_t returned_ns, const Json& clock_ns);

// The median of each phase over `windows`, in the same names: empty when one window lacks one of
// the six steps of the window; collect, stage, arm and reply_read only when every window has it.
Json MedianPhases(const std::vector<Json>& windows);

// CLOCK_MONOTONIC in nanoseconds, the clock both the parent and the workers read.
int64_t MonotonicNs();

// A failure of the worker or a malformed reply is the CallFailure; the caller decides whether
// it is the harness's.
std::optional<CallFailure> RunWindow(WorkerProcess& worker, const WindowRequest& request,
                                     int64_t test_rows, WindowResult* result);

}  // namespace ratchet

#endif  // RATCHET_SCORER_WINDOW_H_
