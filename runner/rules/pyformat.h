// Python's format-spec output for the few specs the judge's messages use, so that a message
// reads byte for byte as the seed scorer prints it. Numbers round as Python rounds them: the
// exact binary value, to the nearest digit, ties to even.
#ifndef RATCHET_RULES_PYFORMAT_H_
#define RATCHET_RULES_PYFORMAT_H_

#include <cstdint>
#include <string>

namespace ratchet {

// f"{x:.{precision}f}"; with `grouped`, f"{x:,.{precision}f}".
std::string FormatFixed(double x, int precision, bool grouped = false);
// f"{x:.{precision}%}": x times 100 (one rounded multiplication, as Python does), then fixed.
std::string FormatPercent(double x, int precision);
// f"{n:,}" for an integer: thousands separated by commas.
std::string FormatGrouped(int64_t n);
// f"{x:g}": six significant digits, trailing zeros dropped, an exponent outside 1e-4..1e6.
std::string FormatGeneral(double x);

}  // namespace ratchet

#endif  // RATCHET_RULES_PYFORMAT_H_
