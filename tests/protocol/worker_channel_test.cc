#include "protocol/worker_channel.h"

#include <fcntl.h>
#include <gtest/gtest.h>
#include <signal.h>

#include <atomic>
#include <chrono>
#include <functional>
#include <thread>

#include "pipe_util.h"

namespace ratchet {
namespace {

FrameLimits Replies() {
  FrameLimits limits;
  limits.max_json = 65536;
  limits.max_payload = 10000;
  return limits;
}

// A stand-in for a worker: a thread holding its own copies of the worker's ends, so that the
// channel can drop its copies as the parent does after a spawn.
class FakeWorker {
 public:
  FakeWorker(WorkerChannel& channel, std::function<void(int commands, int replies)> body)
      : commands_(fcntl(channel.worker_command_fd(), F_DUPFD_CLOEXEC, 0)),
        replies_(fcntl(channel.worker_reply_fd(), F_DUPFD_CLOEXEC, 0)) {
    channel.CloseWorkerEnds();
    thread_ = std::thread([this, body] {
      body(commands_.get(), replies_.get());
      commands_.Reset();
      replies_.Reset();
    });
  }
  ~FakeWorker() { thread_.join(); }

 private:
  UniqueFd commands_, replies_;
  std::thread thread_;
};

FrameLimits Commands() {
  FrameLimits limits;
  limits.sender = "the parent";
  return limits;
}

TEST(WorkerChannelTest, EveryEndIsCloseOnExecAndTheParentsAreNonblocking) {
  Result<WorkerChannel> channel = WorkerChannel::Create(Replies());
  ASSERT_TRUE(channel.ok()) << channel.status().message();
  for (int fd : {channel->worker_command_fd(), channel->worker_reply_fd()}) {
    EXPECT_TRUE(fcntl(fd, F_GETFD) & FD_CLOEXEC);
    EXPECT_FALSE(fcntl(fd, F_GETFL) & O_NONBLOCK) << "the worker reads and writes blocking";
  }
}

TEST(WorkerChannelTest, RequestSendsTheCommandAndReturnsTheReply) {
  Result<WorkerChannel> channel = WorkerChannel::Create(Replies());
  ASSERT_TRUE(channel.ok());
  Json seen;
  {
    FakeWorker worker(*channel, [&](int commands, int replies) {
      Result<Frame> command =
          ReadFrame(commands, Commands(), Deadline::In(5), "test worker", nullptr);
      if (!command.ok()) return;
      seen = command->header;
      WriteFrame(replies, Json{{"ok", true}, {"ms", 3.5}}, std::string(10000, '\x07'),
                 Deadline::In(5));
    });
    Result<Frame> reply = channel->Request(Json{{"cmd", "go"}, {"null", true}}, 5.0, "calling");
    ASSERT_TRUE(reply.ok()) << reply.status().message();
    EXPECT_EQ(channel->last_failure(), FrameFailure::kNone);
    EXPECT_EQ(reply->header["ms"], 3.5);
    EXPECT_EQ(reply->payload, std::string(10000, '\x07'));
  }
  EXPECT_EQ(seen, (Json{{"cmd", "go"}, {"null", true}}));
}

// ReplyWaiting says whether Receive would find a reply without waiting: not before the worker
// writes, yes within a wait that the reply falls into, and not after a wait it misses.
TEST(WorkerChannelTest, AReplyIsWaitingOnlyOnceTheWorkerHasWrittenIt) {
  Result<WorkerChannel> channel = WorkerChannel::Create(Replies());
  ASSERT_TRUE(channel.ok());
  std::atomic<bool> go{false};
  {
    FakeWorker worker(*channel, [&](int, int replies) {
      while (!go.load()) std::this_thread::sleep_for(std::chrono::milliseconds(1));
      std::this_thread::sleep_for(std::chrono::milliseconds(50));
      WriteFrame(replies, Json{{"ok", true}}, "", Deadline::In(5));
    });
    EXPECT_FALSE(channel->ReplyWaiting());
    const auto started = std::chrono::steady_clock::now();
    EXPECT_FALSE(channel->ReplyWaiting(0.05)) << "nothing written yet";
    EXPECT_GE(std::chrono::steady_clock::now() - started, std::chrono::milliseconds(50));
    go = true;
    EXPECT_TRUE(channel->ReplyWaiting(5.0));
    EXPECT_TRUE(channel->ReplyWaiting());
    Result<Frame> reply = channel->Receive(Deadline::In(0), "reading");
    EXPECT_TRUE(reply.ok()) << reply.status().message();
  }
}

TEST(WorkerChannelTest, AWorkerThatNeverAnswersTimesOut) {
  Result<WorkerChannel> channel = WorkerChannel::Create(Replies());
  ASSERT_TRUE(channel.ok());
  // The worker's ends stay open in the channel and nobody answers.
  const auto started = std::chrono::steady_clock::now();
  Result<Frame> reply =
      channel->Request(Json{{"cmd", "go"}}, 0.3, "running the method on a mnist draw");
  ASSERT_FALSE(reply.ok());
  EXPECT_EQ(channel->last_failure(), FrameFailure::kTimeout);
  EXPECT_EQ(reply.status().message(), "timed out while running the method on a mnist draw");
  EXPECT_GE(std::chrono::steady_clock::now() - started, std::chrono::milliseconds(300));
}

TEST(WorkerChannelTest, AWorkerThatExitsBeforeAnsweringIsAClosedPipe) {
  Result<WorkerChannel> channel = WorkerChannel::Create(Replies());
  ASSERT_TRUE(channel.ok());
  {
    FakeWorker worker(*channel, [](int commands, int) {
      ReadFrame(commands, Commands(), Deadline::In(5), "test worker", nullptr);
    });
    Result<Frame> reply = channel->Request(Json{{"cmd", "load"}}, 5.0, "importing the method");
    ASSERT_FALSE(reply.ok());
    EXPECT_EQ(channel->last_failure(), FrameFailure::kClosed);
    EXPECT_EQ(reply.status().message(), "the worker closed the pipe while importing the method");
  }
}

TEST(WorkerChannelTest, AWorkerAlreadyGoneIsAnErrorNotASigpipe) {
  struct sigaction old_action, default_action = {};
  default_action.sa_handler = SIG_DFL;
  sigaction(SIGPIPE, &default_action, &old_action);
  Result<WorkerChannel> channel = WorkerChannel::Create(Replies());
  ASSERT_TRUE(channel.ok());
  {
    FakeWorker worker(*channel, [](int, int) {});
  }
  Result<Frame> reply = channel->Request(Json{{"cmd", "gc"}}, 5.0, "collecting garbage");
  sigaction(SIGPIPE, &old_action, nullptr);
  ASSERT_FALSE(reply.ok());
  EXPECT_EQ(channel->last_failure(), FrameFailure::kClosed);
  EXPECT_NE(reply.status().message().find("while collecting garbage"), std::string::npos);
}

TEST(WorkerChannelTest, AMalformedReplyNamesWhatTheParentWasDoing) {
  Result<WorkerChannel> channel = WorkerChannel::Create(Replies());
  ASSERT_TRUE(channel.ok());
  {
    FakeWorker worker(*channel, [](int commands, int replies) {
      ReadFrame(commands, Commands(), Deadline::In(5), "test worker", nullptr);
      WriteAll(replies, "JUNKJUNKJUNKJUNK");
    });
    Result<Frame> reply = channel->Request(Json{{"cmd", "go"}}, 5.0, "running the method");
    ASSERT_FALSE(reply.ok());
    EXPECT_EQ(channel->last_failure(), FrameFailure::kMalformed);
    EXPECT_EQ(
        reply.status().message().rfind(
            "the worker sent a malformed frame while running the method: the magic number", 0),
        0u)
        << reply.status().message();
  }
}

TEST(WorkerChannelTest, RepliesBeyondTheRuleSetsLimitAreMalformed) {
  Result<WorkerChannel> channel = WorkerChannel::Create(Replies());
  ASSERT_TRUE(channel.ok());
  {
    FakeWorker worker(*channel, [](int commands, int replies) {
      ReadFrame(commands, Commands(), Deadline::In(5), "test worker", nullptr);
      WriteFrame(replies, Json{{"ok", true}}, std::string(10001, 'x'), Deadline::In(5));
    });
    Result<Frame> reply = channel->Request(Json{{"cmd", "go"}}, 5.0, "running the method");
    ASSERT_FALSE(reply.ok());
    EXPECT_NE(
        reply.status().message().find("a payload of 10001 bytes, more than the limit of 10000"),
        std::string::npos)
        << reply.status().message();
  }
}

TEST(WorkerChannelTest, CloseCommandsGivesTheWorkerEof) {
  Result<WorkerChannel> channel = WorkerChannel::Create(Replies());
  ASSERT_TRUE(channel.ok());
  FrameFailure seen = FrameFailure::kNone;
  {
    FakeWorker worker(*channel, [&](int commands, int) {
      ReadFrame(commands, Commands(), Deadline::In(5), "waiting for a command", &seen);
    });
    channel->CloseCommands();
  }
  EXPECT_EQ(seen, FrameFailure::kClosed);
  Result<Frame> reply = channel->Request(Json{{"cmd", "gc"}}, 1.0, "collecting garbage");
  EXPECT_FALSE(reply.ok());
}

TEST(WorkerChannelTest, LimitsBeyondTheProtocolsCeilingsAreABug) {
  FrameLimits limits = Replies();
  limits.max_payload = kMaxPayloadBytes + 1;
  EXPECT_FALSE(WorkerChannel::Create(limits).ok());
}

}  // namespace
}  // namespace ratchet
