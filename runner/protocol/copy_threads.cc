#include "protocol/copy_threads.h"

#include <sched.h>

#if defined(__x86_64__)
#include <emmintrin.h>
#endif

#include <algorithm>
#include <chrono>
#include <cstring>
#include <system_error>

namespace ratchet {
namespace {

// A spinning thread's hint to the core that it waits (lets the other hyperthread run).
inline void Pause() {
#if defined(__x86_64__) || defined(__i386__)
  __builtin_ia32_pause();
#elif defined(__aarch64__)
  asm volatile("yield");
#endif
}

constexpr size_t kShareAlignment = 64;  // a cache line: no two threads write one
constexpr int kPending = 0, kTaken = 1, kCopied = 2;

}  // namespace

const char* StoresName(Stores stores) {
  return stores == Stores::kStreaming ? "streaming" : "cached";
}

Stores EffectiveStores(Stores wanted) {
#if defined(__x86_64__)
  return wanted;
#else
  (void)wanted;
  return Stores::kCached;
#endif
}

size_t CopyBytes(unsigned char* to, const unsigned char* from, size_t bytes, Stores stores) {
#if defined(__x86_64__)
  // The destination's whole cache lines are streamed, so that no line is left half written in
  // the caches; the bytes before the first and after the last go through them.
  const size_t head = (64 - reinterpret_cast<uintptr_t>(to) % 64) % 64;
  if (stores == Stores::kStreaming && bytes >= head + 64) {
    std::memcpy(to, from, head);
    size_t at = head;
    for (; at + 64 <= bytes; at += 64) {  // SSE2: 16-byte stores, aligned on the destination
      const __m128i a = _mm_loadu_si128(reinterpret_cast<const __m128i*>(from + at));
      const __m128i b = _mm_loadu_si128(reinterpret_cast<const __m128i*>(from + at + 16));
      const __m128i c = _mm_loadu_si128(reinterpret_cast<const __m128i*>(from + at + 32));
      const __m128i d = _mm_loadu_si128(reinterpret_cast<const __m128i*>(from + at + 48));
      _mm_stream_si128(reinterpret_cast<__m128i*>(to + at), a);
      _mm_stream_si128(reinterpret_cast<__m128i*>(to + at + 16), b);
      _mm_stream_si128(reinterpret_cast<__m128i*>(to + at + 32), c);
      _mm_stream_si128(reinterpret_cast<__m128i*>(to + at + 48), d);
    }
    std::memcpy(to + at, from + at, bytes - at);
    _mm_sfence();  // the streaming stores are weakly ordered: visible before anything after
    return at - head;
  }
#endif
  (void)stores;
  std::memcpy(to, from, bytes);
  return 0;
}

int CopyThreads::HelpersFor(unsigned cores) {
  if (cores < 8) return 0;
  return static_cast<int>(std::min(3u, cores / 4 - 1));
}

unsigned CopyThreads::UsableCores() {
  cpu_set_t set;
  CPU_ZERO(&set);
  if (sched_getaffinity(0, sizeof(set), &set) == 0) return static_cast<unsigned>(CPU_COUNT(&set));
  return std::max(1u, std::thread::hardware_concurrency());
}

CopyThreads::CopyThreads(int helpers, Stores stores) : stores_(EffectiveStores(stores)) {
  share_state_.reset(new std::atomic<int>[static_cast<size_t>(std::max(0, helpers)) + 1]);
  stall_us_.assign(2 * (static_cast<size_t>(std::max(0, helpers)) + 1), 0);
  for (int i = 1; i <= helpers; ++i) {
    try {
      threads_.emplace_back([this, i] { Help(i); });
    } catch (const std::system_error&) {
      Stop();  // the ones started end; the caller copies alone
      threads_.clear();
      break;
    }
  }
}

CopyThreads::~CopyThreads() { Stop(); }

void CopyThreads::Stop() {
  stopping_.store(true, std::memory_order_relaxed);
  {
    std::lock_guard<std::mutex> lock(mutex_);
    quit_ = true;
  }
  wake_.notify_all();
  for (std::thread& thread : threads_) {
    if (thread.joinable()) thread.join();
  }
}

void CopyThreads::Settle() {
  if (threads_.empty() || armed_ || !copied_once_) return;
  while (done_.load(std::memory_order_acquire) < helpers()) Pause();
}

void CopyThreads::Arm() {
  if (threads_.empty() || armed_) return;
  Settle();
  ready_.store(0, std::memory_order_relaxed);
  done_.store(0, std::memory_order_relaxed);
  for (int i = 1; i <= helpers(); ++i) share_state_[i].store(kPending, std::memory_order_relaxed);
  {
    std::lock_guard<std::mutex> lock(mutex_);
    ++arm_epoch_;
  }
  wake_.notify_all();
  while (ready_.load(std::memory_order_acquire) < helpers()) Pause();
  armed_ = true;
}

void CopyThreads::Copy(const CopyPiece* pieces, size_t count) {
  Settle();  // no helper of the last copy reads what follows while it changes
  streamed_.store(0, std::memory_order_relaxed);
  pieces_ = pieces;
  piece_count_ = count;
  total_bytes_ = 0;
  for (size_t i = 0; i < count; ++i) total_bytes_ += pieces[i].bytes;
  if (threads_.empty()) {
    CopyShare(0);
    return;
  }
  Arm();
  uint64_t epoch;
  {
    std::lock_guard<std::mutex> lock(mutex_);
    epoch = arm_epoch_;
  }
  copy_epoch_.store(epoch, std::memory_order_release);  // the helpers start
  const auto started = std::chrono::steady_clock::now();
  CopyShare(0);
  const auto own = std::chrono::steady_clock::now() - started;
  Stall(0, /*before_taking=*/false);
  const auto patience =
      std::max<std::chrono::steady_clock::duration>(2 * own, std::chrono::microseconds(20));
  for (int i = 1; i <= helpers(); ++i) {
    int state = kPending;
    if (share_state_[i].compare_exchange_strong(state, kTaken, std::memory_order_acq_rel)) {
      CopyShare(i);  // its helper has not begun: the caller's now
      share_state_[i].store(kCopied, std::memory_order_release);
      continue;
    }
    const auto deadline = std::chrono::steady_clock::now() + patience;
    while (share_state_[i].load(std::memory_order_acquire) != kCopied) {
      if (std::chrono::steady_clock::now() > deadline) {
        // Its helper is late: the caller copies the same bytes again. Both write the same values
        // from sources that stay as they are until Settle (and the worker maps the buffer
        // read-only), so the two copies overlapping is harmless, though formally a data race.
        CopyShare(i);
        break;
      }
      Pause();
    }
  }
  armed_ = false;
  copied_once_ = true;
}

void CopyThreads::Help(int index) {
  uint64_t seen = 0;
  while (true) {
    {
      std::unique_lock<std::mutex> lock(mutex_);
      wake_.wait(lock, [&] { return quit_ || arm_epoch_ != seen; });
      if (quit_) return;
      seen = arm_epoch_;
    }
    ready_.fetch_add(1, std::memory_order_acq_rel);
    while (copy_epoch_.load(std::memory_order_acquire) != seen) {
      if (stopping_.load(std::memory_order_relaxed)) return;  // armed, and no copy came
      Pause();
    }
    Stall(index, /*before_taking=*/true);
    int state = kPending;
    if (share_state_[index].compare_exchange_strong(state, kTaken, std::memory_order_acq_rel)) {
      Stall(index, /*before_taking=*/false);
      CopyShare(index);
      share_state_[index].store(kCopied, std::memory_order_release);
    }
    done_.fetch_add(1, std::memory_order_acq_rel);
  }
}

void CopyThreads::StallForTesting(int index, bool before_taking, int64_t microseconds) {
  if (index >= 0 && index <= helpers()) {
    stall_us_[2 * index + (before_taking ? 1 : 0)] = microseconds;
  }
}

void CopyThreads::Stall(int index, bool before_taking) const {
  const int64_t us = stall_us_[2 * index + (before_taking ? 1 : 0)];
  if (us <= 0) return;
  if (index > 0) {
    std::this_thread::sleep_for(std::chrono::microseconds(us));
    return;
  }
  // The caller: until every helper has taken its share, for at most `us`.
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::microseconds(us);
  for (int i = 1; i <= helpers() && std::chrono::steady_clock::now() < deadline; ++i) {
    while (share_state_[i].load(std::memory_order_acquire) == kPending &&
           std::chrono::steady_clock::now() < deadline) {
      std::this_thread::sleep_for(std::chrono::microseconds(200));
    }
  }
}

CopyThreads::Share CopyThreads::ShareOf(int index, int threads, size_t total) {
  const size_t parts = static_cast<size_t>(std::max(1, threads));
  size_t share = (total + parts - 1) / parts;
  share = (share + kShareAlignment - 1) / kShareAlignment * kShareAlignment;
  const size_t begin = std::min(total, share * static_cast<size_t>(index));
  return Share{begin, std::min(total, begin + share)};
}

void CopyThreads::CopyShare(int index) const {
  auto [begin, end] = ShareOf(index, static_cast<int>(threads_.size()) + 1, total_bytes_);
  size_t at = 0;  // where the current piece starts, end to end
  size_t streamed = 0;
  for (size_t i = 0; i < piece_count_ && begin < end; ++i) {
    const CopyPiece& piece = pieces_[i];
    const size_t piece_end = at + piece.bytes;
    if (begin < piece_end) {
      const size_t stop = std::min(end, piece_end);
      streamed +=
          CopyBytes(piece.to + (begin - at), piece.from + (begin - at), stop - begin, stores_);
      begin = stop;
    }
    at = piece_end;
  }
  streamed_.fetch_add(streamed, std::memory_order_acq_rel);
}

}  // namespace ratchet
