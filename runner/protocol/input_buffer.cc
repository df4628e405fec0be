#include "protocol/input_buffer.h"

#include <errno.h>
#include <fcntl.h>
#include <sys/mman.h>
#include <sys/stat.h>

#include <cstring>
#include <string>
#include <utility>

namespace ratchet {

static_assert(__BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__,
              "the input buffer is little-endian and filled by memcpy");

Result<InputLayout> InputLayout::Make(int64_t train, int64_t test, int64_t dims) {
  auto check = [](const char* name, int64_t value, int64_t max) -> Status {
    if (value < 1 || value > max) {
      return Status::BadInput(std::string("input layout: ") + name + " is " +
                              std::to_string(value) + ", expected 1.." + std::to_string(max));
    }
    return Status::Ok();
  };
  RATCHET_RETURN_IF_ERROR(check("train", train, kMaxInputRows));
  RATCHET_RETURN_IF_ERROR(check("test", test, kMaxInputRows));
  RATCHET_RETURN_IF_ERROR(check("dims", dims, kMaxInputDims));
  InputLayout layout;
  layout.train = static_cast<uint64_t>(train);
  layout.test = static_cast<uint64_t>(test);
  layout.dims = static_cast<uint64_t>(dims);
  return layout;
}

Result<InputBuffer> InputBuffer::Create(const InputLayout& layout) {
  const size_t bytes = static_cast<size_t>(layout.bytes());
  if (bytes == 0) return Status::Internal("input buffer: the layout has no rows");
  UniqueFd fd(memfd_create("ratchet-inputs", MFD_CLOEXEC | MFD_ALLOW_SEALING));
  if (!fd.valid()) return Status::IOError("memfd_create ratchet-inputs", errno);
  if (ftruncate(fd.get(), static_cast<off_t>(bytes)) != 0) {
    return Status::IOError("ftruncate input buffer to " + std::to_string(bytes) + " bytes", errno);
  }
  if (fcntl(fd.get(), F_ADD_SEALS, F_SEAL_SHRINK | F_SEAL_GROW | F_SEAL_SEAL) != 0) {
    return Status::IOError("fcntl F_ADD_SEALS on the input buffer", errno);
  }
  // Read-only for everyone: the worker's descriptor is, and /proc/self/fd/N would otherwise let
  // it open the buffer again for writing (a memfd is made 0777). Root still opens it as it likes.
  if (fchmod(fd.get(), 0400) != 0) return Status::IOError("fchmod 0400 of the input buffer", errno);
  void* data = mmap(nullptr, bytes, PROT_READ | PROT_WRITE, MAP_SHARED, fd.get(), 0);
  if (data == MAP_FAILED) {
    return Status::IOError("mmap input buffer (" + std::to_string(bytes) + " bytes)", errno);
  }
  return InputBuffer(layout, std::move(fd), static_cast<unsigned char*>(data));
}

InputBuffer::InputBuffer(InputBuffer&& other) noexcept
    : layout_(other.layout_),
      fd_(std::move(other.fd_)),
      data_(std::exchange(other.data_, nullptr)) {}

InputBuffer& InputBuffer::operator=(InputBuffer&& other) noexcept {
  if (this != &other) {
    if (data_) munmap(data_, bytes());
    layout_ = other.layout_;
    fd_ = std::move(other.fd_);
    data_ = std::exchange(other.data_, nullptr);
  }
  return *this;
}

InputBuffer::~InputBuffer() {
  if (data_) munmap(data_, bytes());
}

Result<UniqueFd> InputBuffer::ReadOnlyFd() const {
  const std::string path = "/proc/self/fd/" + std::to_string(fd_.get());
  UniqueFd fd(open(path.c_str(), O_RDONLY | O_CLOEXEC));
  if (!fd.valid()) return Status::IOError("open " + path + " read-only", errno);
  return fd;
}

Result<std::vector<CopyPiece>> InputBuffer::Pieces(const float* train_x, size_t train_x_count,
                                                   const int64_t* train_y, size_t train_y_count,
                                                   const float* test_x, size_t test_x_count) {
  auto check = [](const char* name, size_t got, uint64_t expected) -> Status {
    if (got != expected) {
      return Status::Internal(std::string("input buffer: ") + name + " has " + std::to_string(got) +
                              " values, the layout " + std::to_string(expected));
    }
    return Status::Ok();
  };
  RATCHET_RETURN_IF_ERROR(check("train_x", train_x_count, layout_.train * layout_.dims));
  RATCHET_RETURN_IF_ERROR(check("train_y", train_y_count, layout_.train));
  RATCHET_RETURN_IF_ERROR(check("test_x", test_x_count, layout_.test * layout_.dims));
  auto piece = [this](uint64_t offset, const void* from, size_t bytes) {
    return CopyPiece{data_ + offset, static_cast<const unsigned char*>(from), bytes};
  };
  return std::vector<CopyPiece>{
      piece(layout_.train_x_offset(), train_x, train_x_count * sizeof(float)),
      piece(layout_.train_y_offset(), train_y, train_y_count * sizeof(int64_t)),
      piece(layout_.test_x_offset(), test_x, test_x_count * sizeof(float))};
}

Status InputBuffer::Write(const float* train_x, size_t train_x_count, const int64_t* train_y,
                          size_t train_y_count, const float* test_x, size_t test_x_count) {
  Result<std::vector<CopyPiece>> pieces =
      Pieces(train_x, train_x_count, train_y, train_y_count, test_x, test_x_count);
  if (!pieces.ok()) return pieces.status();
  for (const CopyPiece& piece : *pieces) std::memcpy(piece.to, piece.from, piece.bytes);
  return Status::Ok();
}

ReadOnlyMapping::ReadOnlyMapping(ReadOnlyMapping&& other) noexcept
    : data_(std::exchange(other.data_, nullptr)), size_(std::exchange(other.size_, 0)) {}

ReadOnlyMapping& ReadOnlyMapping::operator=(ReadOnlyMapping&& other) noexcept {
  if (this != &other) {
    if (data_) munmap(const_cast<unsigned char*>(data_), size_);
    data_ = std::exchange(other.data_, nullptr);
    size_ = std::exchange(other.size_, 0);
  }
  return *this;
}

ReadOnlyMapping::~ReadOnlyMapping() {
  if (data_) munmap(const_cast<unsigned char*>(data_), size_);
}

Result<ReadOnlyMapping> MapReadOnly(int fd, size_t bytes) {
  if (bytes == 0) return Status::BadInput("the input buffer cannot be mapped with 0 bytes");
  struct stat info;
  if (fstat(fd, &info) != 0) {
    return Status::IOError("fstat input buffer (fd " + std::to_string(fd) + ")", errno);
  }
  if (info.st_size < 0 || static_cast<uint64_t>(info.st_size) < bytes) {
    return Status::BadInput("the input buffer (fd " + std::to_string(fd) + ") holds " +
                            std::to_string(info.st_size) + " bytes, fewer than the " +
                            std::to_string(bytes) + " its layout needs");
  }
  void* data = mmap(nullptr, bytes, PROT_READ, MAP_SHARED, fd, 0);
  if (data == MAP_FAILED) {
    return Status::IOError("mmap input buffer (fd " + std::to_string(fd) + ", " +
                               std::to_string(bytes) + " bytes) read-only",
                           errno);
  }
  ReadOnlyMapping mapping;
  mapping.data_ = static_cast<const unsigned char*>(data);
  mapping.size_ = bytes;
  return mapping;
}

}  // namespace ratchet
