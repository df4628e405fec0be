#include "protocol/frame.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <poll.h>
#include <pthread.h>
#include <signal.h>
#include <time.h>
#include <unistd.h>

#include <algorithm>
#include <cstdio>
#include <utility>

namespace ratchet {
namespace {

int64_t MonotonicNow() {
  timespec now{};
  clock_gettime(CLOCK_MONOTONIC, &now);
  return int64_t{now.tv_sec} * 1000000000 + now.tv_nsec;
}

// Writes to a pipe whose reader is gone raise SIGPIPE, which would end the parent. While one of
// these lives, SIGPIPE is blocked in this thread (the signal goes to the writing thread), and a
// SIGPIPE raised meanwhile is taken back before the old mask returns.
class SigpipeHold {
 public:
  SigpipeHold() {
    sigemptyset(&pipe_);
    sigaddset(&pipe_, SIGPIPE);
    sigset_t pending;
    sigemptyset(&pending);
    sigpending(&pending);
    was_pending_ = sigismember(&pending, SIGPIPE) == 1;
    pthread_sigmask(SIG_BLOCK, &pipe_, &old_);
  }
  ~SigpipeHold() {
    if (raised_ && !was_pending_) {
      const struct timespec zero = {0, 0};
      while (sigtimedwait(&pipe_, nullptr, &zero) < 0 && errno == EINTR) {
      }
    }
    pthread_sigmask(SIG_SETMASK, &old_, nullptr);
  }
  void Raised() { raised_ = true; }

 private:
  sigset_t pipe_, old_;
  bool was_pending_ = false, raised_ = false;
};

void Set(FrameFailure* failure, FrameFailure value) {
  if (failure) *failure = value;
}

// Bytes outside printable ASCII are shown as \xNN: a detail quotes what the other side sent,
// and it must stay valid UTF-8 wherever the message is written (JSON evidence, a terminal).
std::string Printable(std::string_view text) {
  std::string out;
  for (unsigned char c : text) {
    if (c >= 0x20 && c < 0x7f) {
      out.push_back(static_cast<char>(c));
    } else {
      char escaped[5];
      std::snprintf(escaped, sizeof escaped, "\\x%02x", c);
      out += escaped;
    }
  }
  return out;
}

std::string Hex32(uint32_t value) {
  char text[11];
  std::snprintf(text, sizeof text, "0x%08x", value);
  return text;
}

// How a wait ended: ready for the I/O asked, or an error status.
Status WaitFor(int fd, short events, Deadline deadline, const std::string& doing,
               const char* direction, FrameFailure* failure) {
  for (;;) {
    // Past the deadline the fd is still looked at once: a reply that came in while this process
    // was busy elsewhere (a worker started during a warm-up) is not a timeout.
    const bool expired = deadline.Expired();
    struct pollfd entry = {fd, events, 0};
    int n = poll(&entry, 1, expired ? 0 : deadline.PollTimeoutMs());
    if (n < 0) {
      if (errno == EINTR) continue;
      Set(failure, FrameFailure::kSystem);
      return Status::IOError(
          std::string("poll (") + direction + " fd " + std::to_string(fd) + ") while " + doing,
          errno);
    }
    if (n == 0) {
      if (!expired) continue;
      Set(failure, FrameFailure::kTimeout);
      return Status::Unavailable("timed out while " + doing);
    }
    if (entry.revents & POLLNVAL) {
      Set(failure, FrameFailure::kSystem);
      return Status::IOError(
          std::string("poll (") + direction + " fd " + std::to_string(fd) + ") while " + doing,
          EBADF);
    }
    // POLLHUP and POLLERR: the read or write that follows reports what happened.
    return Status::Ok();
  }
}

// Reads up to `count` bytes into `out`; `got` says how many arrived before an EOF.
Status ReadExact(int fd, char* out, size_t count, Deadline deadline, const std::string& doing,
                 size_t* got, FrameFailure* failure) {
  *got = 0;
  while (*got < count) {
    RATCHET_RETURN_IF_ERROR(WaitFor(fd, POLLIN, deadline, doing, "read", failure));
    ssize_t n = read(fd, out + *got, count - *got);
    if (n > 0) {
      *got += static_cast<size_t>(n);
    } else if (n == 0) {
      return Status::Ok();  // EOF: the caller sees *got < count
    } else if (errno != EINTR && errno != EAGAIN && errno != EWOULDBLOCK) {
      Set(failure, FrameFailure::kSystem);
      return Status::IOError("read (fd " + std::to_string(fd) + ") while " + doing, errno);
    }
  }
  return Status::Ok();
}

}  // namespace

void EncodeFrameHeader(const FrameHeader& header, unsigned char out[kFrameHeaderBytes]) {
  const uint32_t fields[3] = {header.magic, header.json_length, header.payload_length};
  for (int f = 0; f < 3; ++f) {
    for (int b = 0; b < 4; ++b) out[f * 4 + b] = static_cast<unsigned char>(fields[f] >> (8 * b));
  }
}

FrameHeader DecodeFrameHeader(const unsigned char in[kFrameHeaderBytes]) {
  uint32_t fields[3];
  for (int f = 0; f < 3; ++f) {
    fields[f] = 0;
    for (int b = 0; b < 4; ++b) fields[f] |= static_cast<uint32_t>(in[f * 4 + b]) << (8 * b);
  }
  return FrameHeader{fields[0], fields[1], fields[2]};
}

Result<std::string> EncodeFrame(const Json& header, std::string_view payload) {
  if (!header.is_object()) {
    return Status::Internal(std::string("a frame's JSON must be an object, not ") +
                            header.type_name());
  }
  const std::string json = header.dump(-1, ' ', false, Json::error_handler_t::replace);
  if (json.size() > kMaxJsonBytes) {
    return Status::Internal("a frame's JSON of " + std::to_string(json.size()) +
                            " bytes exceeds the protocol's " + std::to_string(kMaxJsonBytes));
  }
  if (payload.size() > kMaxPayloadBytes) {
    return Status::Internal("a frame's payload of " + std::to_string(payload.size()) +
                            " bytes exceeds the protocol's " + std::to_string(kMaxPayloadBytes));
  }
  std::string bytes(kFrameHeaderBytes, '\0');
  EncodeFrameHeader(FrameHeader{kFrameMagic, static_cast<uint32_t>(json.size()),
                                static_cast<uint32_t>(payload.size())},
                    reinterpret_cast<unsigned char*>(bytes.data()));
  bytes += json;
  bytes.append(payload.data(), payload.size());
  return bytes;
}

Status WriteFrame(int fd, const Json& header, std::string_view payload, Deadline deadline,
                  const std::string& doing, FrameFailure* failure) {
  Set(failure, FrameFailure::kNone);
  Result<std::string> bytes = EncodeFrame(header, payload);
  if (!bytes.ok()) {
    Set(failure, FrameFailure::kSystem);
    return bytes.status().Annotate(doing);
  }
  // poll() reports a pipe writable when some room is free; a blocking write() of more than that
  // would wait for the reader past the deadline, so a blocking descriptor gets PIPE_BUF at a time.
  // Without a deadline a blocking write of the whole frame is one system call instead of a poll
  // and a write for each PIPE_BUF (the worker's replies: its reply to a go is the labels, ten
  // kilobytes, written while the parent's clock runs).
  const int flags = fcntl(fd, F_GETFL);
  const bool blocking = flags >= 0 && !(flags & O_NONBLOCK);
  const bool whole = blocking && deadline.never();
  const size_t chunk = !blocking ? size_t{1} << 20 : whole ? bytes->size() : size_t{PIPE_BUF};
  SigpipeHold hold;
  size_t done = 0;
  while (done < bytes->size()) {
    if (!whole) RATCHET_RETURN_IF_ERROR(WaitFor(fd, POLLOUT, deadline, doing, "write", failure));
    ssize_t n = write(fd, bytes->data() + done, std::min(bytes->size() - done, chunk));
    if (n >= 0) {
      done += static_cast<size_t>(n);
    } else if (errno == EPIPE) {
      hold.Raised();
      Set(failure, FrameFailure::kClosed);
      return Status::Unavailable("the reader of fd " + std::to_string(fd) +
                                 " closed its end of the pipe while " + doing);
    } else if (errno != EINTR && errno != EAGAIN && errno != EWOULDBLOCK) {
      Set(failure, FrameFailure::kSystem);
      return Status::IOError("write (fd " + std::to_string(fd) + ") while " + doing, errno);
    }
  }
  return Status::Ok();
}

Result<Frame> ReadFrame(int fd, const FrameLimits& limits, Deadline deadline,
                        const std::string& doing, FrameFailure* failure) {
  Set(failure, FrameFailure::kNone);
  auto malformed = [&](const std::string& detail, FrameFailure kind = FrameFailure::kMalformed) {
    Set(failure, kind);
    return Status::BadInput(limits.sender + " sent a malformed frame while " + doing + ": " +
                            detail);
  };
  auto missing = [&](size_t got, size_t count, const char* what) {
    return malformed("the pipe closed with " + std::to_string(count - got) + " of the " +
                     std::to_string(count) + " " + what + " bytes missing");
  };

  unsigned char head[kFrameHeaderBytes];
  size_t got = 0;
  RATCHET_RETURN_IF_ERROR(
      ReadExact(fd, reinterpret_cast<char*>(head), sizeof head, deadline, doing, &got, failure));
  const int64_t ready_ns = MonotonicNow();
  if (got == 0) {
    Set(failure, FrameFailure::kClosed);
    return Status::Unavailable(limits.sender + " closed the pipe while " + doing);
  }
  if (got < sizeof head) return missing(got, sizeof head, "header");

  const FrameHeader header = DecodeFrameHeader(head);
  if (header.magic != kFrameMagic) {
    return malformed("the magic number is " + Hex32(header.magic) + ", not " + Hex32(kFrameMagic) +
                     " (\"RCT1\")");
  }
  if (header.json_length < 1 || header.json_length > limits.max_json) {
    return malformed("a JSON length of " + std::to_string(header.json_length) +
                     " bytes, outside 1.." + std::to_string(limits.max_json));
  }
  if (header.payload_length > limits.max_payload) {
    return malformed("a payload of " + std::to_string(header.payload_length) +
                     " bytes, more than the limit of " + std::to_string(limits.max_payload));
  }

  std::string json(header.json_length, '\0');
  RATCHET_RETURN_IF_ERROR(ReadExact(fd, json.data(), json.size(), deadline, doing, &got, failure));
  if (got < json.size()) return missing(got, json.size(), "JSON");
  Frame frame;
  frame.payload.assign(header.payload_length, '\0');
  const Status payload_read =
      ReadExact(fd, frame.payload.data(), frame.payload.size(), deadline, doing, &got, failure);
  frame.ready_ns = ready_ns;
  frame.complete_ns = MonotonicNow();

  // The JSON is parsed once the payload's read has ended, however it ended: the clock's stop
  // (complete_ns) leaves the parse out, and a frame whose JSON is bad is malformed even when its
  // payload then stalls or is cut short (the first fault is the JSON's; a timeout would hide it).
  // Read whole, such a frame leaves the stream in step: kBadJson says so.
  const FrameFailure bad_json = payload_read.ok() && got == frame.payload.size()
                                    ? FrameFailure::kBadJson
                                    : FrameFailure::kMalformed;
  try {
    frame.header = Json::parse(json);
  } catch (const Json::exception& error) {
    // parse_error for bad syntax or bad UTF-8, out_of_range for a number beyond a double. Not
    // core's ParseJson: ratchet-worker compiles this file with libtorch's flags and without the
    // rest of core (canonical_json.cc would bring OpenSSL into the worker).
    return malformed("its JSON does not parse: " + Printable(error.what()), bad_json);
  }
  if (!frame.header.is_object()) {
    return malformed(
        std::string("the JSON is of type ") + frame.header.type_name() + ", not an object",
        bad_json);
  }
  RATCHET_RETURN_IF_ERROR(payload_read);
  if (got < frame.payload.size()) return missing(got, frame.payload.size(), "payload");
  return frame;
}

}  // namespace ratchet
