// Deadline: the moment (on the steady clock) by which a protocol exchange must be over. Every
// wait on a worker pipe is bounded by one, so that a worker that hangs costs a timeout, never a
// parent that waits forever.
#ifndef RATCHET_PROTOCOL_DEADLINE_H_
#define RATCHET_PROTOCOL_DEADLINE_H_

#include <chrono>
#include <cmath>

namespace ratchet {

class Deadline {
 public:
  using Clock = std::chrono::steady_clock;

  // `seconds` from now; NaN or negative values mean "already passed".
  static Deadline In(double seconds) {
    if (!(seconds > 0)) return Deadline(Clock::now());
    // Beyond about 30 years the duration would overflow; such a wait is unbounded anyway.
    if (seconds > 1e9) return Never();
    return Deadline(Clock::now() + std::chrono::duration_cast<Clock::duration>(
                                       std::chrono::duration<double>(seconds)));
  }
  static Deadline Never() { return Deadline(Clock::time_point::max()); }
  static Deadline At(Clock::time_point when) { return Deadline(when); }

  // The same deadline, waited for by polling without sleeping: the waiter sees the pipe ready
  // within microseconds instead of after the scheduler wakes it, at the cost of a busy core.
  Deadline Spinning() const {
    Deadline spinning = *this;
    spinning.spin_ = true;
    return spinning;
  }
  bool spin() const { return spin_; }

  bool never() const { return when_ == Clock::time_point::max(); }
  bool Expired() const { return !never() && Clock::now() >= when_; }
  Clock::time_point when() const { return when_; }

  // A timeout for poll(): 0 when spinning, -1 for never, else the milliseconds left rounded up
  // (so that poll does not return just before the deadline and spin), at most INT_MAX.
  int PollTimeoutMs() const {
    if (spin_) return 0;
    if (never()) return -1;
    auto left = when_ - Clock::now();
    if (left <= Clock::duration::zero()) return 0;
    double ms = std::ceil(std::chrono::duration<double, std::milli>(left).count());
    return ms >= 2147483647.0 ? 2147483647 : static_cast<int>(ms);
  }

 private:
  explicit Deadline(Clock::time_point when) : when_(when) {}
  Clock::time_point when_;
  bool spin_ = false;
};

}  // namespace ratchet

#endif  // RATCHET_PROTOCOL_DEADLINE_H_
