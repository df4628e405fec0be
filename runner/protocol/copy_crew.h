// One large copy shared by the calling thread and a few helper threads: the parent's write of a
// call's inputs into the input buffer, which happens inside the timed window (on the H200 host
// one thread writes the ~4.9 MB of a draw in about 0.4 ms, four in about 0.11 ms). Helpers sleep
// between windows and are woken (Arm) before one opens, so that only the copy itself is timed.
#ifndef RATCHET_PROTOCOL_COPY_CREW_H_
#define RATCHET_PROTOCOL_COPY_CREW_H_

#include <atomic>
#include <condition_variable>
#include <cstddef>
#include <cstdint>
#include <mutex>
#include <thread>
#include <vector>

#include "protocol/input_buffer.h"

namespace ratchet {

class CopyCrew {
 public:
  // How many helpers a machine of `cores` usable cores gets: none below 8 (there the cores are
  // the method's), else a quarter of the cores less the caller's, at most 3 (4 threads in all:
  // on the H200 host 4 threads took 0.113 ms, 6 took 0.077 ms, docs/performance.md).
  static int HelpersFor(unsigned cores);
  // The cores this process may run on (its affinity mask; the machine's count if unreadable).
  static unsigned UsableCores();

  // Starts `helpers` threads; fewer (down to none) when the system cannot start them all.
  explicit CopyCrew(int helpers);
  CopyCrew(const CopyCrew&) = delete;
  CopyCrew& operator=(const CopyCrew&) = delete;
  ~CopyCrew();

  int helpers() const { return static_cast<int>(threads_.size()); }
  int threads() const { return helpers() + 1; }

  // Wakes the helpers and returns once every one of them is spinning, ready for the next Copy.
  // Call it outside the window; a no-op without helpers.
  void Arm();
  // Copies every piece, split into one contiguous share per thread (at 64-byte boundaries of the
  // pieces taken end to end); returns when all of it is copied. Arms first when Arm was not called.
  void Copy(const CopyPiece* pieces, size_t count);

  // Bytes [begin, end) of `total` (the pieces end to end) that thread `index` of `threads`
  // copies: contiguous, starting at multiples of 64 bytes, together each byte exactly once.
  struct Share {
    size_t begin = 0, end = 0;
  };
  static Share ShareOf(int index, int threads, size_t total);

 private:
  void Stop();  // every helper ends and is joined
  void Help(int index);
  void CopyShare(int index) const;

  std::vector<std::thread> threads_;
  std::mutex mutex_;
  std::condition_variable wake_;
  uint64_t arm_epoch_ = 0;  // under mutex_; raised by Arm
  bool quit_ = false;       // under mutex_
  bool armed_ = false;      // the caller's own: Arm was called and its Copy has not come yet
  std::atomic<bool> stopping_{false};    // the destructor's word to a helper that spins
  std::atomic<int> ready_{0};            // helpers spinning for this epoch's copy
  std::atomic<int> done_{0};             // helpers whose share is copied
  std::atomic<uint64_t> copy_epoch_{0};  // set to the arm epoch when the pieces are in place
  const CopyPiece* pieces_ = nullptr;    // written before copy_epoch_ (release), read after
  size_t piece_count_ = 0;
  size_t total_bytes_ = 0;
};

}  // namespace ratchet

#endif  // RATCHET_PROTOCOL_COPY_CREW_H_
