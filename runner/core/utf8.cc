#include "core/utf8.h"

namespace ratchet {
namespace {

constexpr std::string_view kReplacement = "\xef\xbf\xbd";  // U+FFFD

bool IsContinuation(unsigned char byte) { return (byte & 0xc0) == 0x80; }

}  // namespace

size_t Utf8CharLength(std::string_view text, size_t at) {
  if (at >= text.size()) return 0;
  const auto byte = [&](size_t i) { return static_cast<unsigned char>(text[at + i]); };
  const unsigned char lead = byte(0);
  if (lead < 0x80) return 1;
  size_t length = 0;
  unsigned char low = 0x80, high = 0xbf;  // the range of the second byte (Unicode, table 3-7)
  if (lead >= 0xc2 && lead <= 0xdf) {
    length = 2;
  } else if (lead >= 0xe0 && lead <= 0xef) {
    length = 3;
    if (lead == 0xe0) low = 0xa0;   // no overlong form
    if (lead == 0xed) high = 0x9f;  // no surrogate
  } else if (lead >= 0xf0 && lead <= 0xf4) {
    length = 4;
    if (lead == 0xf0) low = 0x90;   // no overlong form
    if (lead == 0xf4) high = 0x8f;  // nothing past U+10FFFF
  } else {
    return 0;
  }
  if (text.size() - at < length) return 0;
  if (byte(1) < low || byte(1) > high) return 0;
  for (size_t i = 2; i < length; ++i) {
    if (!IsContinuation(byte(i))) return 0;
  }
  return length;
}

std::string ValidUtf8(std::string_view text) {
  std::string valid;
  valid.reserve(text.size());
  for (size_t at = 0; at < text.size();) {
    const size_t length = Utf8CharLength(text, at);
    if (length == 0) {
      valid += kReplacement;
      ++at;
    } else {
      valid.append(text.substr(at, length));
      at += length;
    }
  }
  return valid;
}

std::string ValidUtf8Tail(std::string_view text, size_t max_bytes) {
  if (text.size() > max_bytes) {
    text.remove_prefix(text.size() - max_bytes);
    // The rest of a character the cut went through is not the text's own: dropped, not replaced.
    for (int i = 0; i < 3 && !text.empty() && IsContinuation(static_cast<unsigned char>(text[0]));
         ++i) {
      text.remove_prefix(1);
    }
  }
  std::string valid = ValidUtf8(text);
  if (valid.size() <= max_bytes) return valid;
  // Replacements made it longer: cut again, at a character's start.
  size_t start = valid.size() - max_bytes;
  while (start < valid.size() && IsContinuation(static_cast<unsigned char>(valid[start]))) ++start;
  return valid.substr(start);
}

}  // namespace ratchet
