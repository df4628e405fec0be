// Frames of the worker protocol (docs/protocol.md): a 12-byte little-endian header (magic, JSON
// length, payload length), one JSON object, then the payload bytes. Both sides of the pipes use
// these functions; every length is checked against its bound before anything is allocated, and a
// bad frame is an error value, never a crash.
#ifndef RATCHET_PROTOCOL_FRAME_H_
#define RATCHET_PROTOCOL_FRAME_H_

#include <cstdint>
#include <string>
#include <string_view>

#include "core/canonical_json.h"
#include "core/status.h"
#include "protocol/deadline.h"

namespace ratchet {

inline constexpr uint32_t kFrameMagic = 0x31544352;  // the bytes "RCT1"
inline constexpr int kProtocolVersion = 1;
// The protocol's ceilings; a rule set may set lower limits (limits.max_header,
// limits.max_reply_bytes), never higher ones.
inline constexpr uint32_t kMaxJsonBytes = 65536;
inline constexpr uint32_t kMaxPayloadBytes = 1 << 20;

// The header as it travels: three little-endian uint32 fields, in this order.
struct FrameHeader {
  uint32_t magic;
  uint32_t json_length;
  uint32_t payload_length;
};
static_assert(sizeof(FrameHeader) == 12, "the frame header is 12 bytes on the wire");

inline constexpr size_t kFrameHeaderBytes = sizeof(FrameHeader);

void EncodeFrameHeader(const FrameHeader& header, unsigned char out[kFrameHeaderBytes]);
FrameHeader DecodeFrameHeader(const unsigned char in[kFrameHeaderBytes]);

// What a reader accepts. Commands (parent -> worker) carry no payload: max_payload 0.
struct FrameLimits {
  uint32_t max_json = kMaxJsonBytes;
  uint32_t max_payload = 0;
  // Who writes the frames this reader reads, for messages: "the worker sent a malformed frame".
  std::string sender = "the worker";
};

struct Frame {
  Json header;  // always an object
  std::string payload;
  // CLOCK_MONOTONIC, in nanoseconds, as ReadFrame saw the frame: when its header had been read,
  // and when its last byte had been (before the JSON was parsed). The parent stops its clock of a
  // call at `complete_ns` (docs/protocol.md).
  int64_t ready_ns = 0;
  int64_t complete_ns = 0;
};

// Why an exchange failed, for callers that react differently: a timeout and a dead worker are
// separate rules of the judge, a malformed frame another.
enum class FrameFailure {
  kNone,
  kTimeout,    // the deadline passed
  kClosed,     // the other end closed the pipe between frames (or before reading ours)
  kMalformed,  // bad magic, length out of bounds, EOF inside a frame, or bad JSON before a
               // payload that then failed to arrive: the stream is out of step
  kBadJson,    // a whole frame, read to its end, whose JSON does not parse or is not an object:
               // malformed too, but the next frame starts after it (a worker answers and reads on)
  kSystem,     // a syscall failed (EBADF, ...)
};

// The bytes of one frame; the header must be a JSON object and the lengths within the protocol's
// ceilings. Strings that are not valid UTF-8 are written with U+FFFD in place of bad bytes.
Result<std::string> EncodeFrame(const Json& header, std::string_view payload);

// Writes one frame before `deadline`. Safe on blocking and nonblocking descriptors; a closed
// reader is an error (kClosed), never a SIGPIPE: the signal is held back in this thread while
// writing. `doing` names the exchange in messages ("timed out while <doing>"). With no deadline
// (Deadline::Never) a blocking descriptor takes the frame in one write, which waits for room
// itself; otherwise each write follows a poll that says there is room and takes PIPE_BUF bytes on
// a blocking descriptor, up to a mebibyte (as much as the pipe has room for) on a nonblocking one.
Status WriteFrame(int fd, const Json& header, std::string_view payload, Deadline deadline,
                  const std::string& doing = "sending a frame", FrameFailure* failure = nullptr);

// Reads one frame before `deadline`: its header, JSON text and payload, then parses the JSON. An
// error's message names `doing`; for a malformed frame it reads "<sender> sent a malformed frame
// while <doing>: <detail>". A JSON text that does not parse, or is not an object, makes the frame
// malformed even when the payload after it then times out, is cut short or fails to read (then
// kMalformed; kBadJson when the payload was read whole).
Result<Frame> ReadFrame(int fd, const FrameLimits& limits, Deadline deadline,
                        const std::string& doing, FrameFailure* failure = nullptr);

}  // namespace ratchet

#endif  // RATCHET_PROTOCOL_FRAME_H_
