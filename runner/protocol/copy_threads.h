// One large copy shared by the calling thread and a few helper threads: the parent's write of a
// call's inputs into the input buffer, which happens inside the timed window (on the H200 host,
// with the streaming stores below, one thread writes the ~4.9 MB of a draw in about 0.30 ms, four
// in about 0.14 ms). Helpers sleep between windows and are woken (Arm) before one opens, so that
// only the copy itself is timed.
//
// On a GPU the worker's copy engine reads what was written (a DMA from the pinned buffer), and
// the copy threads write with non-temporal stores (Stores::kStreaming), which go to memory past the
// caches. With ordinary stores each thread's share (about 1.2 MB) stays dirty in its core's own
// cache, and the device's read of it took 0.16-0.49 ms (10th to 90th percentile), varying from
// one copy to the next, against 0.12-0.19 ms after streaming stores (measured on the H200 host,
// docs/performance.md): that variation was the largest part of the spread of the timed call's
// unexplained time.
#ifndef RATCHET_PROTOCOL_COPY_THREADS_H_
#define RATCHET_PROTOCOL_COPY_THREADS_H_

#include <atomic>
#include <condition_variable>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <mutex>
#include <thread>
#include <vector>

#include "protocol/input_buffer.h"

namespace ratchet {

// How a copy writes its destination: through the caches (memcpy), or with non-temporal stores
// that bypass them, fenced before the copy counts as done. Streaming stores are made on x86-64
// only (SSE2, which every such processor has); elsewhere a streaming copy is a memcpy.
enum class Stores { kCached, kStreaming };

// The stores a copy asked to make `wanted` makes on this build: kCached for kStreaming where
// streaming stores are not made, so that the evidence says what was done.
Stores EffectiveStores(Stores wanted);

// "cached" or "streaming": the evidence's word for them (calls.json, phases.write_stores).
const char* StoresName(Stores stores);

// Copies `bytes` from `from` to `to` the way `stores` says, and returns how many of them were
// written with streaming stores (whole 64-byte lines of the destination; the rest, at most 63
// bytes at each end, through the caches). A streaming copy's stores are globally visible
// (fenced) when it returns.
size_t CopyBytes(unsigned char* to, const unsigned char* from, size_t bytes, Stores stores);

class CopyThreads {
 public:
  // How many helpers a machine of `cores` usable cores gets: none below 8 (there the cores are
  // the method's), else a quarter of the cores less the caller's, at most 3 (4 threads in all:
  // on the H200 host, with streaming stores, 4 threads took 0.140 ms, 7 took 0.102 ms,
  // docs/performance.md).
  static int HelpersFor(unsigned cores);
  // The cores this process may run on (its affinity mask; the machine's count if unreadable).
  static unsigned UsableCores();

  // Starts `helpers` threads; none when the system cannot start them all. Every share is written
  // with EffectiveStores(stores), which stores() returns.
  CopyThreads(int helpers, Stores stores);
  CopyThreads(const CopyThreads&) = delete;
  CopyThreads& operator=(const CopyThreads&) = delete;
  ~CopyThreads();

  int helpers() const { return static_cast<int>(threads_.size()); }
  int threads() const { return helpers() + 1; }
  Stores stores() const { return stores_; }
  // For tests: the bytes of the last Copy written with streaming stores, summed over the
  // threads (a share copied twice, by a late helper and the caller, counts twice).
  size_t StreamedBytesForTesting() const { return streamed_.load(std::memory_order_acquire); }

  // Wakes the helpers and returns once every one of them is spinning, ready for the next Copy.
  // Call it outside the window; a no-op without helpers.
  void Arm();
  // Copies every piece, split into one contiguous share per thread (at 64-byte boundaries of the
  // pieces taken end to end); returns when all of it is copied. Arms first when Arm was not called.
  // A helper that has not taken its share when the caller is done with its own loses it to the
  // caller, and one that is still copying its share after twice the time the caller took for its
  // own has it copied again by the caller (the same bytes): a helper the system stops for a while
  // delays the copy by one share (stopped before taking it) or about three (stopped holding it),
  // not by as long as it is stopped; its late writes may overlap what follows the copy.
  void Copy(const CopyPiece* pieces, size_t count);
  // Returns once every helper is done with the last Copy (one the caller overtook may still be
  // writing its share's bytes): call it before the sources of the last Copy change, so that no
  // helper copies a later draw into the buffer outside its window. Arm calls it too.
  void Settle();

  // For tests: helper `index` (1..helpers) sleeps `microseconds` before it takes its share
  // (`before_taking`) or after, before it copies it; index 0, the caller, after its own share
  // waits until every helper has taken its share, for at most `microseconds` (`before_taking`
  // false). 0 for no stall.
  void StallForTesting(int index, bool before_taking, int64_t microseconds);

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
  void Stall(int index, bool before_taking) const;

  const Stores stores_;
  std::vector<std::thread> threads_;
  std::mutex mutex_;
  std::condition_variable wake_;
  uint64_t arm_epoch_ = 0;    // under mutex_; raised by Arm
  bool quit_ = false;         // under mutex_
  bool armed_ = false;        // the caller's own: Arm was called and its Copy has not come yet
  bool copied_once_ = false;  // the caller's own: a Copy with helpers was made
  std::atomic<bool> stopping_{false};  // the destructor's word to a helper that spins
  std::atomic<int> ready_{0};          // helpers spinning for this epoch's copy
  std::atomic<int> done_{0};           // helpers through with this epoch's Copy
  // Per share of a helper (index 1..helpers): kPending, kTaken (by its helper or the caller),
  // kCopied. Reset by Arm.
  std::unique_ptr<std::atomic<int>[]> share_state_;
  std::vector<int64_t> stall_us_;            // [2 * index + before_taking], for tests; 0 in use
  mutable std::atomic<size_t> streamed_{0};  // CopyBytes' counts in the last Copy, summed
  std::atomic<uint64_t> copy_epoch_{0};      // set to the arm epoch when the pieces are in place
  const CopyPiece* pieces_ = nullptr;        // written before copy_epoch_ (release), read after
  size_t piece_count_ = 0;
  size_t total_bytes_ = 0;
};

}  // namespace ratchet

#endif  // RATCHET_PROTOCOL_COPY_THREADS_H_
