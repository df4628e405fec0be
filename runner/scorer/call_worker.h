// What a scoring run asks of one call's worker: the protocol's requests, its windows, freezing
// and killing it, and what it left (its log, its exit, a limit it reached). WorkerProcess is the
// worker of a real run; the run loop's tests drive fakes through the same interface
// (scorer/worker_starter.h says where workers come from).
#ifndef RATCHET_SCORER_CALL_WORKER_H_
#define RATCHET_SCORER_CALL_WORKER_H_

#include <sys/types.h>

#include <cstdint>
#include <optional>
#include <string>

#include "core/canonical_json.h"
#include "core/status.h"
#include "protocol/worker_channel.h"
#include "rules/rule_ids.h"

namespace ratchet {

// A call that cannot be scored: `rule` is one of the run loop's rule ids (kRunLoopRules).
// `harness` marks failures that are ratchet's or the machine's, never the method's (exit 3).
struct CallFailure {
  std::string rule;
  std::string message;
  bool harness = false;
};

struct WindowRequest;
struct WindowResult;

class CallWorker {
 public:
  virtual ~CallWorker() = default;

  // The worker's own folder (where the submission lies), the uid it runs as, and whether it
  // still runs (not closed).
  virtual const std::string& folder() const = 0;
  virtual uid_t uid() const = 0;
  virtual bool running() const = 0;
  // The size of its input buffer, which the hello announces.
  virtual uint64_t buffer_bytes() const = 0;

  // A command and its reply; a reply with "ok": false becomes a CallFailure whose rule follows
  // the reply's "kind". `doing` completes "timed out while ...". `spin`: wait without sleeping.
  virtual std::optional<CallFailure> Request(const Json& command, double timeout_s,
                                             const std::string& doing, Frame* reply, bool spin) = 0;
  // Request in two halves, for a worker started ahead of its call.
  virtual std::optional<CallFailure> Send(const Json& command, double timeout_s,
                                          const std::string& doing) = 0;
  virtual std::optional<CallFailure> Receive(double timeout_s, const std::string& doing,
                                             Frame* reply, bool spin) = 0;
  // Whether a reply waits to be read now, or within `timeout_s`.
  virtual bool ReplyWaiting(double timeout_s) const = 0;
  // One window of the protocol (scorer/window.h).
  virtual std::optional<CallFailure> RunWindow(const WindowRequest& request, int64_t test_rows,
                                               WindowResult* result) = 0;

  // Before its method is loaded: from here on what the worker reads into the page cache is the
  // method's, dropped when the call ends (ProcessGroup::EnterMethod). A failure is the harness's.
  virtual std::optional<CallFailure> EnterMethod() = 0;

  // Stops or continues the worker (`whole_uid`: every process of its uid, not only its group),
  // and waits until every thread of it is stopped.
  virtual Status Freeze(bool stop, bool whole_uid) = 0;
  virtual Status AwaitFrozen(double timeout_s, bool whole_uid) = 0;
  // Kills it (returning once nothing of it can run again, and what its method read into the page
  // cache dropped); Close() then waits for it.
  virtual Status Kill() = 0;
  // After Kill(): the bytes of file pages its method read that could not be dropped (0: none),
  // or nothing where nothing was dropped (no group, or no method loaded).
  virtual std::optional<uint64_t> page_cache_left_bytes() const = 0;
  // The sha256 of the compile step's caches it was given a copy of (CachesSha256), or "".
  virtual const std::string& caches_sha256() const = 0;
  virtual void Close() = 0;

  // The kept tail of its output, how much it printed in all, and its exit once closed.
  virtual std::string log() const = 0;
  virtual uint64_t log_total_bytes() const = 0;
  virtual std::string exit_description() const = 0;
  // The limit it went past (memory, processes, disk), as the failure that names it.
  virtual std::optional<CallFailure> LimitHit() const = 0;
  // What its control group counted: {"memory_peak_bytes", "cpu_ms"}; empty without one.
  virtual Json GroupUsageJson() const = 0;
};

}  // namespace ratchet

#endif  // RATCHET_SCORER_CALL_WORKER_H_
