// The steady clock's seconds since an instant: how long a step has taken (a deadline, a window's
// length). Timed windows read CLOCK_MONOTONIC in nanoseconds instead (scorer/window.h).
#ifndef RATCHET_CORE_CLOCK_H_
#define RATCHET_CORE_CLOCK_H_

#include <chrono>

namespace ratchet {

inline double SecondsSince(std::chrono::steady_clock::time_point since) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - since).count();
}

}  // namespace ratchet

#endif  // RATCHET_CORE_CLOCK_H_
