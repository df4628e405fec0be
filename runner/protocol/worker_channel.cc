#include "protocol/worker_channel.h"

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <unistd.h>

#include <utility>

namespace ratchet {
namespace {

Status SetNonblocking(int fd) {
  int flags = fcntl(fd, F_GETFL);
  if (flags < 0 || fcntl(fd, F_SETFL, flags | O_NONBLOCK) != 0) {
    return Status::IOError("fcntl O_NONBLOCK on a worker pipe", errno);
  }
  return Status::Ok();
}

}  // namespace

Result<WorkerChannel> WorkerChannel::Create(const FrameLimits& reply_limits) {
  if (reply_limits.max_json > kMaxJsonBytes || reply_limits.max_payload > kMaxPayloadBytes) {
    return Status::Internal("reply limits beyond the protocol's ceilings");
  }
  int commands[2], replies[2];
  if (pipe2(commands, O_CLOEXEC) != 0) return Status::IOError("pipe2 (worker commands)", errno);
  WorkerChannel channel;
  channel.worker_command_.Reset(commands[0]);
  channel.to_worker_.Reset(commands[1]);
  if (pipe2(replies, O_CLOEXEC) != 0) return Status::IOError("pipe2 (worker replies)", errno);
  channel.from_worker_.Reset(replies[0]);
  channel.worker_reply_.Reset(replies[1]);
  RATCHET_RETURN_IF_ERROR(SetNonblocking(channel.to_worker_.get()));
  RATCHET_RETURN_IF_ERROR(SetNonblocking(channel.from_worker_.get()));
  channel.limits_ = reply_limits;
  return channel;
}

bool WorkerChannel::ReplyWaiting(double timeout_s) const {
  if (!from_worker_.valid()) return false;
  const Deadline deadline = Deadline::In(timeout_s);
  for (;;) {
    struct pollfd entry = {from_worker_.get(), POLLIN, 0};
    const int n = poll(&entry, 1, deadline.Expired() ? 0 : deadline.PollTimeoutMs());
    if (n > 0) return (entry.revents & (POLLIN | POLLHUP | POLLERR)) != 0;
    if (n < 0 && errno == EINTR && !deadline.Expired()) continue;
    return false;
  }
}

void WorkerChannel::CloseWorkerEnds() {
  worker_command_.Reset();
  worker_reply_.Reset();
}

Result<Frame> WorkerChannel::Request(const Json& command, Deadline deadline,
                                     const std::string& doing) {
  RATCHET_RETURN_IF_ERROR(Send(command, deadline, doing));
  return Receive(deadline, doing);
}

Status WorkerChannel::Send(const Json& command, Deadline deadline, const std::string& doing) {
  if (!to_worker_.valid()) {
    last_failure_ = FrameFailure::kClosed;
    return Status::Internal("the command pipe is already closed while " + doing);
  }
  return WriteFrame(to_worker_.get(), command, std::string_view(), deadline, doing, &last_failure_);
}

Result<Frame> WorkerChannel::Receive(Deadline deadline, const std::string& doing) {
  if (!from_worker_.valid()) {
    last_failure_ = FrameFailure::kClosed;
    return Status::Internal("the reply pipe is already closed while " + doing);
  }
  return ReadFrame(from_worker_.get(), limits_, deadline, doing, &last_failure_);
}

}  // namespace ratchet
