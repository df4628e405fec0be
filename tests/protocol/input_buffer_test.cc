#include "protocol/input_buffer.h"

#include <errno.h>
#include <fcntl.h>
#include <gtest/gtest.h>
#include <sys/wait.h>
#include <sys/stat.h>
#include <sys/mman.h>
#include <unistd.h>

#include <cstring>

namespace ratchet {
namespace {

TEST(InputLayoutTest, OffsetsOfTheStandardDraw) {
  Result<InputLayout> layout = InputLayout::Make(10000, 10000, 60);
  ASSERT_TRUE(layout.ok());
  EXPECT_EQ(layout->train_x_offset(), 0u);
  EXPECT_EQ(layout->train_y_offset(), 2400000u);
  EXPECT_EQ(layout->test_x_offset(), 2480000u);
  EXPECT_EQ(layout->bytes(), 4880000u);  // train*dims*4 + train*8 + test*dims*4
}

TEST(InputLayoutTest, CountsOutOfRangeAreRefusedByName) {
  Result<InputLayout> zero = InputLayout::Make(10000, 0, 60);
  ASSERT_FALSE(zero.ok());
  EXPECT_EQ(zero.status().message(), "input layout: test is 0, expected 1..1048576");
  EXPECT_FALSE(InputLayout::Make(-1, 10, 60).ok());
  EXPECT_FALSE(InputLayout::Make(10, 10, kMaxInputDims + 1).ok());
}

class InputBufferTest : public ::testing::Test {
 protected:
  void SetUp() override {
    Result<InputLayout> layout = InputLayout::Make(3, 2, 4);
    ASSERT_TRUE(layout.ok());
    Result<InputBuffer> buffer = InputBuffer::Create(*layout);
    ASSERT_TRUE(buffer.ok()) << buffer.status().message();
    buffer_.emplace(std::move(buffer).value());
    for (int i = 0; i < 12; ++i) train_x_.push_back(0.5f * i);
    train_y_ = {7, -1, 1LL << 40};
    for (int i = 0; i < 8; ++i) test_x_.push_back(-1.0f * i);
  }

  std::optional<InputBuffer> buffer_;
  std::vector<float> train_x_, test_x_;
  std::vector<int64_t> train_y_;
};

TEST_F(InputBufferTest, TheWorkerMappingSeesWhatTheParentWrote) {
  Result<UniqueFd> fd = buffer_->ReadOnlyFd();
  ASSERT_TRUE(fd.ok()) << fd.status().message();
  Result<ReadOnlyMapping> mapping = MapReadOnly(fd->get(), buffer_->bytes());
  ASSERT_TRUE(mapping.ok()) << mapping.status().message();
  // Mapped before the write, as in a run: the write inside the timed window is what shows.
  ASSERT_TRUE(buffer_->Write(train_x_, train_y_, test_x_).ok());
  const InputLayout& layout = buffer_->layout();
  EXPECT_EQ(std::memcmp(mapping->data() + layout.train_x_offset(), train_x_.data(), 48), 0);
  EXPECT_EQ(std::memcmp(mapping->data() + layout.train_y_offset(), train_y_.data(), 24), 0);
  EXPECT_EQ(std::memcmp(mapping->data() + layout.test_x_offset(), test_x_.data(), 32), 0);
  // Little-endian on the wire: the low byte of 7 comes first.
  EXPECT_EQ(mapping->data()[layout.train_y_offset()], 7);
  EXPECT_EQ(mapping->size(), 48u + 24u + 32u);
}

// Through /proc/self/fd/N a process may open a descriptor's file again, with the file's own
// permissions: the buffer's are read-only for everyone, so a worker of another uid (or of
// ratchet's own, under a partial sandbox) gets EACCES for writing.
TEST_F(InputBufferTest, TheBufferCannotBeOpenedAgainForWriting) {
  Result<UniqueFd> fd = buffer_->ReadOnlyFd();
  ASSERT_TRUE(fd.ok());
  struct stat info;
  ASSERT_EQ(fstat(fd->get(), &info), 0);
  EXPECT_EQ(info.st_mode & 07777, 0400u);
  if (geteuid() != 0) return;  // without root: the mode above is the whole story
  const std::string path = "/proc/self/fd/" + std::to_string(fd->get());
  pid_t child = fork();
  if (child == 0) {
    if (setresgid(65534, 65534, 65534) != 0 || setresuid(65534, 65534, 65534) != 0) _exit(2);
    int rw = open(path.c_str(), O_RDWR);
    _exit(rw < 0 && errno == EACCES ? 0 : 1);
  }
  int status = 0;
  ASSERT_EQ(waitpid(child, &status, 0), child);
  ASSERT_TRUE(WIFEXITED(status));
  EXPECT_EQ(WEXITSTATUS(status), 0) << "the sandbox uid opened the input buffer for writing";
}

TEST_F(InputBufferTest, TheWorkerDescriptorIsReadOnlyAndCannotBeMappedWritable) {
  Result<UniqueFd> fd = buffer_->ReadOnlyFd();
  ASSERT_TRUE(fd.ok());
  EXPECT_EQ(fcntl(fd->get(), F_GETFL) & O_ACCMODE, O_RDONLY);
  EXPECT_TRUE(fcntl(fd->get(), F_GETFD) & FD_CLOEXEC);
  EXPECT_TRUE(fcntl(buffer_->fd(), F_GETFD) & FD_CLOEXEC);

  void* writable =
      mmap(nullptr, buffer_->bytes(), PROT_READ | PROT_WRITE, MAP_SHARED, fd->get(), 0);
  EXPECT_EQ(writable, MAP_FAILED);
  EXPECT_EQ(errno, EACCES);
  EXPECT_EQ(write(fd->get(), "x", 1), -1);
  EXPECT_EQ(errno, EBADF);
  EXPECT_NE(ftruncate(fd->get(), 1), 0);

  Result<ReadOnlyMapping> mapping = MapReadOnly(fd->get(), buffer_->bytes());
  ASSERT_TRUE(mapping.ok());
  void* page = const_cast<unsigned char*>(mapping->data());
  EXPECT_NE(mprotect(page, buffer_->bytes(), PROT_READ | PROT_WRITE), 0);
  EXPECT_EQ(errno, EACCES);
}

TEST_F(InputBufferTest, TheBufferCannotBeResized) {
  // Sealed: a shrunk file would turn the worker's reads into SIGBUS.
  EXPECT_NE(ftruncate(buffer_->fd(), 8), 0);
  EXPECT_EQ(errno, EPERM);
}

TEST_F(InputBufferTest, WriteRefusesInputsOfTheWrongSize) {
  train_y_.pop_back();
  Status status = buffer_->Write(train_x_, train_y_, test_x_);
  ASSERT_FALSE(status.ok());
  EXPECT_EQ(status.message(), "input buffer: train_y has 2 values, the layout 3");
}

TEST_F(InputBufferTest, MappingMoreThanTheFileHoldsIsRefused) {
  Result<UniqueFd> fd = buffer_->ReadOnlyFd();
  ASSERT_TRUE(fd.ok());
  Result<ReadOnlyMapping> mapping = MapReadOnly(fd->get(), buffer_->bytes() + 1);
  ASSERT_FALSE(mapping.ok());
  EXPECT_NE(mapping.status().message().find("holds 104 bytes, fewer than the 105"),
            std::string::npos)
      << mapping.status().message();
  EXPECT_FALSE(MapReadOnly(-1, 10).ok());
  EXPECT_FALSE(MapReadOnly(fd->get(), 0).ok());
}

TEST_F(InputBufferTest, MovedBuffersKeepTheirMapping) {
  InputBuffer moved = std::move(*buffer_);
  buffer_.reset();
  EXPECT_TRUE(moved.Write(train_x_, train_y_, test_x_).ok());
  EXPECT_EQ(moved.bytes(), 104u);
}

}  // namespace
}  // namespace ratchet
