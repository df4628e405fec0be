#include "protocol/frame.h"

#include <gtest/gtest.h>
#include <limits.h>
#include <signal.h>
#include <sys/ioctl.h>
#include <sys/socket.h>
#include <sys/time.h>
#include <time.h>

#include <atomic>
#include <chrono>
#include <thread>
#include <vector>

#include "pipe_util.h"

namespace ratchet {
namespace {

using std::chrono::steady_clock;

std::string Frame12(uint32_t magic, uint32_t json_length, uint32_t payload_length) {
  unsigned char bytes[kFrameHeaderBytes];
  EncodeFrameHeader(FrameHeader{magic, json_length, payload_length}, bytes);
  return std::string(reinterpret_cast<char*>(bytes), sizeof bytes);
}

// Bytes of a frame whose header fields fit `json` and `payload`.
std::string RawFrame(const std::string& json, const std::string& payload = "") {
  return Frame12(kFrameMagic, static_cast<uint32_t>(json.size()),
                 static_cast<uint32_t>(payload.size())) +
         json + payload;
}

FrameLimits ReplyLimits() {
  FrameLimits limits;
  limits.max_payload = kMaxPayloadBytes;
  return limits;
}

Result<Frame> ReadBytes(const std::string& bytes, FrameFailure* failure,
                        const FrameLimits& limits = ReplyLimits()) {
  UniqueFd fd = FileWith(bytes);
  return ReadFrame(fd.get(), limits, Deadline::In(5), "reading a test frame", failure);
}

TEST(FrameHeaderTest, IsTwelveLittleEndianBytesStartingWithRCT1) {
  EXPECT_EQ(Frame12(kFrameMagic, 0x0201, 0x04030000),
            std::string("RCT1\x01\x02\x00\x00\x00\x00\x03\x04", 12));
  unsigned char bytes[12] = {'R', 'C', 'T', '1', 5, 0, 0, 0, 0, 0, 1, 0};
  FrameHeader header = DecodeFrameHeader(bytes);
  EXPECT_EQ(header.magic, kFrameMagic);
  EXPECT_EQ(header.json_length, 5u);
  EXPECT_EQ(header.payload_length, 65536u);
}

TEST(FrameTest, EncodeFrameWritesHeaderJsonAndPayload) {
  Result<std::string> bytes = EncodeFrame(Json{{"ok", true}}, std::string("\0\1", 2));
  ASSERT_TRUE(bytes.ok()) << bytes.status().message();
  EXPECT_EQ(*bytes, RawFrame("{\"ok\":true}", std::string("\0\1", 2)));
}

TEST(FrameTest, EncodeFrameRefusesAHeaderThatIsNotAnObject) {
  Result<std::string> bytes = EncodeFrame(Json::array({1, 2}), "");
  ASSERT_FALSE(bytes.ok());
  EXPECT_NE(bytes.status().message().find("must be an object, not array"), std::string::npos);
}

TEST(FrameTest, EncodeFrameRefusesLengthsBeyondTheCeilings) {
  EXPECT_FALSE(EncodeFrame(Json{{"x", std::string(kMaxJsonBytes, 'a')}}, "").ok());
  EXPECT_FALSE(EncodeFrame(Json::object(), std::string(kMaxPayloadBytes + 1, 'a')).ok());
  EXPECT_TRUE(EncodeFrame(Json::object(), std::string(kMaxPayloadBytes, 'a')).ok());
}

TEST(FrameTest, InvalidUtf8InAStringIsReplacedNotThrown) {
  // An exception message from a method can hold any bytes; the reply must still be sent.
  Pipe pipe = MakePipe();
  ASSERT_TRUE(WriteFrame(pipe.write.get(), Json{{"error", std::string("bad \xff byte")}}, "",
                         Deadline::In(5))
                  .ok());
  FrameFailure failure;
  Result<Frame> frame =
      ReadFrame(pipe.read.get(), ReplyLimits(), Deadline::In(5), "reading", &failure);
  ASSERT_TRUE(frame.ok()) << frame.status().message();
  EXPECT_EQ(frame->header["error"], "bad \xEF\xBF\xBD byte");
}

TEST(FrameTest, RoundTripsHeaderAndBinaryPayload) {
  Pipe pipe = MakePipe();
  const std::string payload("\0\xff\x01labels", 9);
  Json header = {{"ok", true}, {"ms", 1.25}, {"text", "h\xc3\xa9"}};
  ASSERT_TRUE(WriteFrame(pipe.write.get(), header, payload, Deadline::In(5)).ok());
  FrameFailure failure = FrameFailure::kTimeout;
  Result<Frame> frame =
      ReadFrame(pipe.read.get(), ReplyLimits(), Deadline::In(5), "reading", &failure);
  ASSERT_TRUE(frame.ok()) << frame.status().message();
  EXPECT_EQ(failure, FrameFailure::kNone);
  EXPECT_EQ(frame->header, header);
  EXPECT_EQ(frame->payload, payload);
}

TEST(FrameTest, RoundTripsAMegabytePayloadThroughNonblockingPipes) {
  // Larger than a pipe's buffer: both sides wait in poll() for the other.
  Pipe pipe = MakePipe(O_CLOEXEC | O_NONBLOCK);
  std::string payload(kMaxPayloadBytes, '\0');
  for (size_t i = 0; i < payload.size(); ++i) payload[i] = static_cast<char>(i * 7);
  Status written;
  std::thread writer([&] {
    written = WriteFrame(pipe.write.get(), Json{{"ok", true}}, payload, Deadline::In(20));
  });
  Result<Frame> frame =
      ReadFrame(pipe.read.get(), ReplyLimits(), Deadline::In(20), "reading", nullptr);
  writer.join();
  ASSERT_TRUE(written.ok()) << written.message();
  ASSERT_TRUE(frame.ok()) << frame.status().message();
  EXPECT_EQ(frame->payload, payload);
}

// The sizes of the writes a frame took, seen through a blocking SOCK_SEQPACKET pair (each write
// arrives as one record), with the records' bytes joined into `bytes`.
std::vector<size_t> WriteSizes(Deadline deadline, const std::string& payload, std::string* bytes) {
  int fds[2];
  if (socketpair(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0, fds) != 0) return {};
  UniqueFd reader(fds[0]), writer(fds[1]);
  const int room = 1 << 20;
  setsockopt(writer.get(), SOL_SOCKET, SO_SNDBUF, &room, sizeof room);
  if (!WriteFrame(writer.get(), Json{{"ok", true}}, payload, deadline).ok()) return {};
  writer.Reset();
  std::vector<size_t> sizes;
  std::string record(1 << 20, '\0');
  for (ssize_t n; (n = read(reader.get(), record.data(), record.size())) > 0;) {
    sizes.push_back(static_cast<size_t>(n));
    bytes->append(record.data(), static_cast<size_t>(n));
  }
  return sizes;
}

TEST(FrameTest, WithoutADeadlineABlockingDescriptorTakesTheFrameInOneWrite) {
  // The worker's replies: ten kilobytes of labels in one system call, not one per PIPE_BUF.
  const std::string payload(10000, '\x07');
  std::string whole, chunked;
  const std::vector<size_t> once = WriteSizes(Deadline::Never(), payload, &whole);
  ASSERT_EQ(once.size(), 1u);
  EXPECT_EQ(whole, *EncodeFrame(Json{{"ok", true}}, payload));
  // With a deadline a blocking write may not wait past it: PIPE_BUF bytes at a time.
  const std::vector<size_t> pieces = WriteSizes(Deadline::In(5), payload, &chunked);
  ASSERT_EQ(pieces.size(), (whole.size() + PIPE_BUF - 1) / PIPE_BUF);
  EXPECT_EQ(pieces.front(), size_t{PIPE_BUF});
  EXPECT_EQ(chunked, whole);
}

int64_t MonotonicNowNs() {
  timespec now{};
  clock_gettime(CLOCK_MONOTONIC, &now);
  return int64_t{now.tv_sec} * 1000000000 + now.tv_nsec;
}

TEST(FrameTest, AFrameCarriesWhenItsHeaderAndItsLastByteWereRead) {
  // The writer sends the header and the JSON, waits until the reader has taken them out of the
  // pipe, notes the time, then sends the payload: the header was read before that instant, the
  // last byte after it. No sleep, so no margin a loaded machine could overrun.
  Pipe pipe = MakePipe();
  const std::string payload(3000, 'x');
  int64_t between_ns = 0;
  std::thread writer([&] {
    const std::string bytes = *EncodeFrame(Json{{"ok", true}}, payload);
    const size_t split = bytes.size() - payload.size();
    WriteAll(pipe.write.get(), bytes.substr(0, split));
    const auto give_up = steady_clock::now() + std::chrono::seconds(10);
    int unread = 1;
    while (ioctl(pipe.read.get(), FIONREAD, &unread) == 0 && unread > 0 &&
           steady_clock::now() < give_up) {
      std::this_thread::yield();
    }
    between_ns = MonotonicNowNs();
    WriteAll(pipe.write.get(), bytes.substr(split));
  });
  Result<Frame> frame =
      ReadFrame(pipe.read.get(), ReplyLimits(), Deadline::In(20), "reading", nullptr);
  writer.join();
  const int64_t after_ns = MonotonicNowNs();
  ASSERT_TRUE(frame.ok()) << frame.status().message();
  EXPECT_EQ(frame->payload, payload);
  EXPECT_GT(frame->ready_ns, 0);
  EXPECT_LE(frame->ready_ns, between_ns);
  EXPECT_GE(frame->complete_ns, between_ns);
  EXPECT_LE(frame->complete_ns, after_ns);
}

TEST(FrameTest, EofBetweenFramesIsAClosedPipe) {
  FrameFailure failure;
  Result<Frame> frame = ReadBytes("", &failure);
  ASSERT_FALSE(frame.ok());
  EXPECT_EQ(failure, FrameFailure::kClosed);
  EXPECT_EQ(frame.status().message(), "the worker closed the pipe while reading a test frame");
}

TEST(FrameTest, EofInsideTheHeaderSaysHowManyBytesWereMissing) {
  FrameFailure failure;
  Result<Frame> frame = ReadBytes("RCT1\x05", &failure);
  ASSERT_FALSE(frame.ok());
  EXPECT_EQ(failure, FrameFailure::kMalformed);
  EXPECT_EQ(frame.status().message(),
            "the worker sent a malformed frame while reading a test frame: the pipe closed with "
            "7 of the 12 header bytes missing");
}

TEST(FrameTest, EofInsideTheJsonOrPayloadSaysWhichAndHowMuch) {
  FrameFailure failure;
  std::string whole = RawFrame("{\"ok\":true}", "0123456789");
  Result<Frame> json = ReadBytes(whole.substr(0, 12 + 4), &failure);
  ASSERT_FALSE(json.ok());
  EXPECT_EQ(failure, FrameFailure::kMalformed);
  EXPECT_NE(json.status().message().find("7 of the 11 JSON bytes missing"), std::string::npos)
      << json.status().message();
  failure = FrameFailure::kNone;
  Result<Frame> payload = ReadBytes(whole.substr(0, whole.size() - 3), &failure);
  ASSERT_FALSE(payload.ok());
  EXPECT_EQ(failure, FrameFailure::kMalformed);
  EXPECT_NE(payload.status().message().find("3 of the 10 payload bytes missing"), std::string::npos)
      << payload.status().message();
}

TEST(FrameTest, WrongMagicIsMalformed) {
  FrameFailure failure;
  std::string bytes = RawFrame("{}");
  bytes[3] = '2';
  Result<Frame> frame = ReadBytes(bytes, &failure);
  ASSERT_FALSE(frame.ok());
  EXPECT_EQ(failure, FrameFailure::kMalformed);
  EXPECT_NE(frame.status().message().find("the magic number is 0x32544352, not 0x31544352"),
            std::string::npos)
      << frame.status().message();
}

TEST(FrameTest, LengthsOutOfBoundsAreRefusedBeforeReadingFurther) {
  // Only the header is in the pipe and the writer stays open: a reader that trusted the length
  // would wait for the body until the deadline instead of refusing at once.
  for (const std::string& header :
       {Frame12(kFrameMagic, 0, 0), Frame12(kFrameMagic, kMaxJsonBytes + 1, 0),
        Frame12(kFrameMagic, 0xffffffffu, 0), Frame12(kFrameMagic, 2, kMaxPayloadBytes + 1),
        Frame12(kFrameMagic, 2, 0xffffffffu)}) {
    Pipe pipe = MakePipe();
    ASSERT_TRUE(WriteAll(pipe.write.get(), header));
    FrameFailure failure;
    const auto started = steady_clock::now();
    Result<Frame> frame =
        ReadFrame(pipe.read.get(), ReplyLimits(), Deadline::In(10), "reading", &failure);
    ASSERT_FALSE(frame.ok());
    EXPECT_EQ(failure, FrameFailure::kMalformed) << frame.status().message();
    EXPECT_LT(steady_clock::now() - started, std::chrono::seconds(2));
  }
}

TEST(FrameTest, LengthMessagesNameTheBound) {
  FrameFailure failure;
  Result<Frame> json = ReadBytes(Frame12(kFrameMagic, 0, 0), &failure);
  EXPECT_NE(json.status().message().find("a JSON length of 0 bytes, outside 1..65536"),
            std::string::npos)
      << json.status().message();
  FrameLimits commands;  // what a worker accepts: no payload
  commands.sender = "the parent";
  Result<Frame> payload = ReadBytes(RawFrame("{}", "x"), &failure, commands);
  EXPECT_EQ(payload.status().message(),
            "the parent sent a malformed frame while reading a test frame: a payload of 1 bytes, "
            "more than the limit of 0");
}

TEST(FrameTest, JsonThatDoesNotParseOrIsNotAnObjectIsMalformedWithTheStreamInStep) {
  struct Case {
    std::string json, expected;
  };
  for (const Case& c : std::vector<Case>{
           {"{\"ok\":", "its JSON does not parse"},
           {"not json", "its JSON does not parse"},
           {"{} trailing", "its JSON does not parse"},
           {"{\"a\":\"\xff\"}", "its JSON does not parse"},
           {"{\"a\":\"\xc3\"}", "its JSON does not parse"},
           {"{\"a\":1e400}", "its JSON does not parse"},
           {"[1,2]", "the JSON is of type array, not an object"},
           {"\"text\"", "the JSON is of type string, not an object"},
           {"null", "the JSON is of type null, not an object"},
           {"7", "the JSON is of type number, not an object"},
       }) {
    FrameFailure failure;
    Result<Frame> frame = ReadBytes(RawFrame(c.json), &failure);
    ASSERT_FALSE(frame.ok()) << c.json;
    EXPECT_EQ(failure, FrameFailure::kBadJson) << c.json;
    const std::string& message = frame.status().message();
    EXPECT_EQ(message.rfind("the worker sent a malformed frame while reading a test frame: ", 0),
              0u)
        << message;
    EXPECT_NE(message.find(c.expected), std::string::npos) << message;
    for (unsigned char ch : message) EXPECT_LT(ch, 0x80) << "raw bytes quoted in: " << message;
  }
}

TEST(FrameTest, AfterAWholeFrameWithBadJsonTheNextFrameReads) {
  Pipe pipe = MakePipe();
  ASSERT_TRUE(
      WriteAll(pipe.write.get(), RawFrame("[1,2]", "0123") + RawFrame("{\"ok\":true}", "xy")));
  FrameFailure failure;
  Result<Frame> bad =
      ReadFrame(pipe.read.get(), ReplyLimits(), Deadline::In(5), "reading", &failure);
  ASSERT_FALSE(bad.ok());
  EXPECT_EQ(failure, FrameFailure::kBadJson) << bad.status().message();
  Result<Frame> next =
      ReadFrame(pipe.read.get(), ReplyLimits(), Deadline::In(5), "reading", &failure);
  ASSERT_TRUE(next.ok()) << next.status().message();
  EXPECT_EQ(failure, FrameFailure::kNone);
  EXPECT_EQ(next->header["ok"], true);
  EXPECT_EQ(next->payload, "xy");
}

TEST(FrameTest, BadJsonIsMalformedEvenWhenThePayloadAfterItStallsOrIsCutShort) {
  // The JSON does not parse, or is no object, and the payload promised after it never comes: the
  // writer stays open (a stall: the read ends at the deadline) or closes (EOF). The JSON's fault
  // is the one named.
  struct Case {
    std::string json, expected;
  };
  for (const Case& c : std::vector<Case>{{"{\"ok\":", "its JSON does not parse"},
                                         {"[1,2]", "the JSON is of type array"}}) {
    for (const bool close_writer : {false, true}) {
      Pipe pipe = MakePipe();
      ASSERT_TRUE(WriteAll(
          pipe.write.get(),
          Frame12(kFrameMagic, static_cast<uint32_t>(c.json.size()), 10) + c.json + "0123"));
      if (close_writer) pipe.write.Reset();
      FrameFailure failure;
      Result<Frame> frame =
          ReadFrame(pipe.read.get(), ReplyLimits(), Deadline::In(0.2), "reading", &failure);
      ASSERT_FALSE(frame.ok()) << c.json;
      EXPECT_EQ(failure, FrameFailure::kMalformed) << frame.status().message();
      EXPECT_NE(frame.status().message().find(c.expected), std::string::npos)
          << frame.status().message();
    }
  }
}

TEST(FrameTest, AGoodJsonWithAStalledPayloadTimesOut) {
  Pipe pipe = MakePipe();
  ASSERT_TRUE(WriteAll(pipe.write.get(), Frame12(kFrameMagic, 2, 10) + "{}0123"));
  FrameFailure failure;
  Result<Frame> frame =
      ReadFrame(pipe.read.get(), ReplyLimits(), Deadline::In(0.2), "waiting for go", &failure);
  ASSERT_FALSE(frame.ok());
  EXPECT_EQ(failure, FrameFailure::kTimeout);
  EXPECT_EQ(frame.status().message(), "timed out while waiting for go");
}

TEST(FrameTest, ReadTimesOutAtTheDeadline) {
  Pipe pipe = MakePipe();
  for (const std::string& partial : {std::string(), std::string("RCT1")}) {
    ASSERT_TRUE(WriteAll(pipe.write.get(), partial));
    FrameFailure failure;
    const auto started = steady_clock::now();
    Result<Frame> frame =
        ReadFrame(pipe.read.get(), ReplyLimits(), Deadline::In(0.2), "waiting for go", &failure);
    const auto waited = steady_clock::now() - started;
    ASSERT_FALSE(frame.ok());
    EXPECT_EQ(failure, FrameFailure::kTimeout);
    EXPECT_EQ(frame.status().message(), "timed out while waiting for go");
    EXPECT_GE(waited, std::chrono::milliseconds(200));
    EXPECT_LT(waited, std::chrono::seconds(2));
  }
}

// A reply that arrived while the reader was busy elsewhere past its deadline (the parent starts
// a worker during a warm-up) is read, not called a timeout.
TEST(FrameTest, AFrameAlreadyThereIsReadEvenPastTheDeadline) {
  Pipe pipe = MakePipe();
  ASSERT_TRUE(WriteFrame(pipe.write.get(), Json{{"ok", true}}, "", Deadline::In(5)).ok());
  FrameFailure failure = FrameFailure::kTimeout;
  Result<Frame> frame =
      ReadFrame(pipe.read.get(), ReplyLimits(), Deadline::In(0), "reading", &failure);
  ASSERT_TRUE(frame.ok()) << frame.status().message();
  EXPECT_EQ(failure, FrameFailure::kNone);
  EXPECT_EQ(frame->header, (Json{{"ok", true}}));
}

TEST(FrameTest, WriteTimesOutWhenNobodyReads) {
  Pipe pipe = MakePipe(O_CLOEXEC | O_NONBLOCK);
  FrameFailure failure;
  // More than the pipe holds; nobody reads.
  Status status = WriteFrame(pipe.write.get(), Json::object(), std::string(kMaxPayloadBytes, 'a'),
                             Deadline::In(0.2), "sending go", &failure);
  EXPECT_EQ(failure, FrameFailure::kTimeout);
  EXPECT_EQ(status.message(), "timed out while sending go");
}

TEST(FrameTest, WriteToAClosedReaderIsAnErrorNotASignal) {
  // With SIGPIPE at its default action the process would die here, unless WriteFrame holds
  // the signal back.
  struct sigaction old_action, default_action = {};
  default_action.sa_handler = SIG_DFL;
  sigaction(SIGPIPE, &default_action, &old_action);
  Pipe pipe = MakePipe();
  pipe.read.Reset();
  FrameFailure failure;
  Status status = WriteFrame(pipe.write.get(), Json{{"cmd", "go"}}, "", Deadline::In(5),
                             "sending go", &failure);
  sigset_t pending;
  sigpending(&pending);
  sigaction(SIGPIPE, &old_action, nullptr);
  EXPECT_EQ(failure, FrameFailure::kClosed);
  EXPECT_NE(status.message().find("closed its end of the pipe while sending go"), std::string::npos)
      << status.message();
  EXPECT_EQ(sigismember(&pending, SIGPIPE), 0) << "a SIGPIPE was left pending";
}

std::atomic<int> alarms{0};
void CountAlarm(int) { alarms.fetch_add(1); }

TEST(FrameTest, SignalsDuringAWaitAreRetried) {
  // SIGALRM every millisecond, without SA_RESTART: poll() and read() return EINTR over and over
  // while the frame is delayed.
  struct sigaction action = {}, old_action;
  action.sa_handler = CountAlarm;
  sigaction(SIGALRM, &action, &old_action);
  Pipe pipe = MakePipe();
  std::thread writer([&] {
    sigset_t alarm;
    sigemptyset(&alarm);
    sigaddset(&alarm, SIGALRM);
    pthread_sigmask(SIG_BLOCK, &alarm, nullptr);
    std::this_thread::sleep_for(std::chrono::milliseconds(150));
    WriteAll(pipe.write.get(), RawFrame("{\"ok\":true}", "xy"));
  });
  alarms = 0;
  struct itimerval every_ms = {{0, 1000}, {0, 1000}}, off = {};
  setitimer(ITIMER_REAL, &every_ms, nullptr);
  Result<Frame> frame =
      ReadFrame(pipe.read.get(), ReplyLimits(), Deadline::In(10), "reading", nullptr);
  setitimer(ITIMER_REAL, &off, nullptr);
  writer.join();
  sigaction(SIGALRM, &old_action, nullptr);
  ASSERT_TRUE(frame.ok()) << frame.status().message();
  EXPECT_EQ(frame->payload, "xy");
  EXPECT_GT(alarms.load(), 10);
}

TEST(FrameTest, AClosedDescriptorIsASystemError) {
  Pipe pipe = MakePipe();
  const int fd = pipe.read.get();
  pipe.read.Reset();
  FrameFailure failure;
  Result<Frame> frame = ReadFrame(fd, ReplyLimits(), Deadline::In(1), "reading", &failure);
  ASSERT_FALSE(frame.ok());
  EXPECT_EQ(failure, FrameFailure::kSystem);
  EXPECT_NE(frame.status().message().find("Bad file descriptor"), std::string::npos)
      << frame.status().message();
}

TEST(DeadlineTest, PollTimeoutRoundsUpAndNeverIsMinusOne) {
  EXPECT_EQ(Deadline::Never().PollTimeoutMs(), -1);
  EXPECT_FALSE(Deadline::Never().Expired());
  EXPECT_TRUE(Deadline::In(0).Expired());
  EXPECT_TRUE(Deadline::In(-3).Expired());
  int ms = Deadline::In(0.0101).PollTimeoutMs();
  EXPECT_GE(ms, 10);
  EXPECT_LE(ms, 11);
  EXPECT_TRUE(Deadline::In(1e12).never());
}

}  // namespace
}  // namespace ratchet
