#include "audit/numbers.h"

#include <algorithm>
#include <cmath>
#include <cstring>

namespace ratchet {

int64_t UlpsApart(double a, double b) {
  if (a == b) return 0;
  if (!std::isfinite(a) || !std::isfinite(b) || std::signbit(a) != std::signbit(b))
    return INT64_MAX;
  int64_t x, y;
  std::memcpy(&x, &a, sizeof x);
  std::memcpy(&y, &b, sizeof y);
  return x > y ? x - y : y - x;
}

}  // namespace ratchet
