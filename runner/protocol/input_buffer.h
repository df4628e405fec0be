// The input buffer: one shared memory file that carries a draw to the worker. The parent creates
// and writes it (inside the timed window); the worker gets a read-only descriptor (fd 5) and maps
// it read-only, so it can neither write the buffer nor map it writable.
#ifndef RATCHET_PROTOCOL_INPUT_BUFFER_H_
#define RATCHET_PROTOCOL_INPUT_BUFFER_H_

#include <cstddef>
#include <cstdint>
#include <vector>

#include "core/status.h"
#include "protocol/unique_fd.h"

namespace ratchet {

// Where each input lies in the buffer (little-endian, row-major, no padding):
// train_x f32[train x dims] at 0, train_y i64[train] after it, test_x f32[test x dims] last.
struct InputLayout {
  uint64_t train = 0, test = 0, dims = 0;

  // Each count from 1 to kMaxInputRows (dims to kMaxInputDims); else BadInput naming the field.
  static Result<InputLayout> Make(int64_t train, int64_t test, int64_t dims);

  uint64_t train_x_offset() const { return 0; }
  uint64_t train_y_offset() const { return train * dims * 4; }
  uint64_t test_x_offset() const { return train_y_offset() + train * 8; }
  uint64_t bytes() const { return test_x_offset() + test * dims * 4; }
};

inline constexpr int64_t kMaxInputRows = 1 << 20;
inline constexpr int64_t kMaxInputDims = 1 << 12;

// One contiguous copy of a write: `bytes` from `from` to `to`.
struct CopyPiece {
  unsigned char* to = nullptr;
  const unsigned char* from = nullptr;
  size_t bytes = 0;
};

// The parent's side: a memfd of layout.bytes(), mapped read-write into the parent.
class InputBuffer {
 public:
  // memfd_create (MFD_CLOEXEC), ftruncate to the layout's size, then sealed against resizing
  // (a shrunk file would fault the worker's mapping), mmap read-write shared.
  static Result<InputBuffer> Create(const InputLayout& layout);

  InputBuffer(InputBuffer&& other) noexcept;
  InputBuffer& operator=(InputBuffer&& other) noexcept;
  InputBuffer(const InputBuffer&) = delete;
  InputBuffer& operator=(const InputBuffer&) = delete;
  ~InputBuffer();

  const InputLayout& layout() const { return layout_; }
  size_t bytes() const { return static_cast<size_t>(layout_.bytes()); }
  // The descriptor the parent holds (read-write); never give it to a worker.
  int fd() const { return fd_.get(); }

  // A fresh descriptor of the same file opened O_RDONLY | O_CLOEXEC (through /proc/self/fd),
  // for the worker's fd 5: mmap(PROT_WRITE, MAP_SHARED) on it fails with EACCES.
  Result<UniqueFd> ReadOnlyFd() const;

  // The copies a write of the three inputs makes (see CopyThreads); Internal when a count does not
  // match the layout.
  Result<std::vector<CopyPiece>> Pieces(const float* train_x, size_t train_x_count,
                                        const int64_t* train_y, size_t train_y_count,
                                        const float* test_x, size_t test_x_count);
  // Copies the three inputs into place; each size must match the layout.
  Status Write(const float* train_x, size_t train_x_count, const int64_t* train_y,
               size_t train_y_count, const float* test_x, size_t test_x_count);
  Status Write(const std::vector<float>& train_x, const std::vector<int64_t>& train_y,
               const std::vector<float>& test_x) {
    return Write(train_x.data(), train_x.size(), train_y.data(), train_y.size(), test_x.data(),
                 test_x.size());
  }

 private:
  InputBuffer(const InputLayout& layout, UniqueFd fd, unsigned char* data)
      : layout_(layout), fd_(std::move(fd)), data_(data) {}

  InputLayout layout_;
  UniqueFd fd_;
  unsigned char* data_ = nullptr;
};

// The worker's side: the buffer mapped PROT_READ, MAP_SHARED.
class ReadOnlyMapping {
 public:
  ReadOnlyMapping() = default;
  ReadOnlyMapping(ReadOnlyMapping&& other) noexcept;
  ReadOnlyMapping& operator=(ReadOnlyMapping&& other) noexcept;
  ReadOnlyMapping(const ReadOnlyMapping&) = delete;
  ReadOnlyMapping& operator=(const ReadOnlyMapping&) = delete;
  ~ReadOnlyMapping();

  const unsigned char* data() const { return data_; }
  size_t size() const { return size_; }

 private:
  friend Result<ReadOnlyMapping> MapReadOnly(int fd, size_t bytes);
  const unsigned char* data_ = nullptr;
  size_t size_ = 0;
};

// Maps the first `bytes` of `fd`; an error when the file is shorter (touching the missing part
// would raise SIGBUS) or the mapping fails.
Result<ReadOnlyMapping> MapReadOnly(int fd, size_t bytes);

}  // namespace ratchet

#endif  // RATCHET_PROTOCOL_INPUT_BUFFER_H_
