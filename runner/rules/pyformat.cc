#include "rules/pyformat.h"

#include <charconv>
#include <cmath>
#include <string_view>
#include <vector>

namespace ratchet {
namespace {

// Python writes NaN without a sign and infinities as "inf"; std::to_chars may write "-nan".
bool NonFinite(double x, std::string* out) {
  if (std::isnan(x)) {
    *out = "nan";
    return true;
  }
  if (std::isinf(x)) {
    *out = x < 0 ? "-inf" : "inf";
    return true;
  }
  return false;
}

// "1234567.5" -> "1,234,567.5"; the sign and the fraction are left alone.
std::string Group(std::string_view digits) {
  size_t start = !digits.empty() && digits[0] == '-' ? 1 : 0;
  size_t end = digits.find('.');
  if (end == std::string_view::npos) end = digits.size();
  std::string out(digits.substr(0, start));
  for (size_t i = start; i < end; ++i) {
    if (i > start && (end - i) % 3 == 0) out += ',';
    out += digits[i];
  }
  out += digits.substr(end);
  return out;
}

}  // namespace

std::string FormatFixed(double x, int precision, bool grouped) {
  std::string out;
  if (NonFinite(x, &out)) return out;
  // The largest double has 309 integer digits.
  std::vector<char> buffer(320 + static_cast<size_t>(precision));
  auto result = std::to_chars(buffer.data(), buffer.data() + buffer.size(), x,
                              std::chars_format::fixed, precision);
  out.assign(buffer.data(), result.ptr);
  return grouped ? Group(out) : out;
}

std::string FormatPercent(double x, int precision) {
  return FormatFixed(x * 100.0, precision) + "%";
}

std::string FormatGrouped(int64_t n) { return Group(std::to_string(n)); }

std::string FormatGeneral(double x) {
  std::string out;
  if (NonFinite(x, &out)) return out;
  char buffer[32];
  auto result = std::to_chars(buffer, buffer + sizeof buffer, x, std::chars_format::general, 6);
  return std::string(buffer, result.ptr);
}

}  // namespace ratchet
