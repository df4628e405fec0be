// Small numeric helpers of the audit: the median as the rule set's protocol takes it, and how
// far apart two doubles are in units in the last place.
#ifndef RATCHET_AUDIT_NUMBERS_H_
#define RATCHET_AUDIT_NUMBERS_H_

#include <cstdint>
#include <vector>

namespace ratchet {

// How many representable doubles lie between a and b (0 when equal); INT64_MAX when either is
// not finite or their signs differ.
int64_t UlpsApart(double a, double b);

}  // namespace ratchet

#endif  // RATCHET_AUDIT_NUMBERS_H_
