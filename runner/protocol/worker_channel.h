// WorkerChannel: the parent's end of the two protocol pipes. One call sends a command and
// returns the worker's reply, within one deadline; the worker's ends are handed to the spawner,
// which places them at fds 3 and 4 of the worker.
#ifndef RATCHET_PROTOCOL_WORKER_CHANNEL_H_
#define RATCHET_PROTOCOL_WORKER_CHANNEL_H_

#include <string>

#include "core/status.h"
#include "protocol/deadline.h"
#include "protocol/frame.h"
#include "protocol/unique_fd.h"

namespace ratchet {

class WorkerChannel {
 public:
  // Two pipes, every end O_CLOEXEC; the parent's ends are nonblocking. `reply_limits` bound the
  // replies read (a rule set's limits.max_header and limits.max_reply_bytes).
  static Result<WorkerChannel> Create(const FrameLimits& reply_limits);

  // The worker's ends: the command pipe's read end (its fd 3) and the reply pipe's write end
  // (its fd 4). Close them in the parent once the worker is spawned, or the parent never sees
  // the worker's EOF.
  int worker_command_fd() const { return worker_command_.get(); }
  int worker_reply_fd() const { return worker_reply_.get(); }
  void CloseWorkerEnds();

  // Sends `command` and reads its reply, both before the deadline. An error names `doing`
  // ("timed out while <doing>", "the worker sent a malformed frame while <doing>: ...");
  // last_failure() says which kind of failure it was.
  Result<Frame> Request(const Json& command, Deadline deadline, const std::string& doing);
  // The two halves of Request: the command alone, and the next reply alone.
  Status Send(const Json& command, Deadline deadline, const std::string& doing);
  Result<Frame> Receive(Deadline deadline, const std::string& doing);
  Result<Frame> Request(const Json& command, double timeout_s, const std::string& doing) {
    return Request(command, Deadline::In(timeout_s), doing);
  }
  FrameFailure last_failure() const { return last_failure_; }
  // Whether a reply (or the worker's end of the pipe closing) waits to be read, now or within
  // `timeout_s`.
  bool ReplyWaiting(double timeout_s = 0) const;

  // The parent's end of the command pipe (nonblocking), for tests that write a frame by hand.
  int command_fd() const { return to_worker_.get(); }

  // Closes the command pipe: the worker reads EOF on fd 3 and exits.
  void CloseCommands() { to_worker_.Reset(); }

 private:
  WorkerChannel() = default;

  UniqueFd to_worker_, from_worker_;
  UniqueFd worker_command_, worker_reply_;
  FrameLimits limits_;
  FrameFailure last_failure_ = FrameFailure::kNone;
};

}  // namespace ratchet

#endif  // RATCHET_PROTOCOL_WORKER_CHANNEL_H_
