#include "core/escaping_stream.h"

#include <cstdio>
#include <sstream>

namespace ratchet {

EscapingBuf::~EscapingBuf() { sync(); }

bool EscapingBuf::Put(const std::string& text) {
  return sink_->sputn(text.data(), static_cast<std::streamsize>(text.size())) ==
         static_cast<std::streamsize>(text.size());
}

EscapingBuf::int_type EscapingBuf::overflow(int_type c) {
  if (traits_type::eq_int_type(c, traits_type::eof())) return traits_type::not_eof(c);
  const unsigned char byte = static_cast<unsigned char>(traits_type::to_char_type(c));
  char escaped[8];
  if (lead_c2_) {
    lead_c2_ = false;
    if (byte >= 0x80 && byte <= 0x9f) {
      std::snprintf(escaped, sizeof escaped, "\\u%04x", byte);
      return Put(escaped) ? c : traits_type::eof();
    }
    if (!Put("\xc2")) return traits_type::eof();
  }
  if (byte == 0xc2) {
    lead_c2_ = true;
    return c;
  }
  if ((byte < 0x20 && byte != '\n' && byte != '\t') || byte == 0x7f) {
    std::snprintf(escaped, sizeof escaped, "\\x%02x", byte);
    return Put(escaped) ? c : traits_type::eof();
  }
  return traits_type::eq_int_type(sink_->sputc(static_cast<char>(byte)), traits_type::eof())
             ? traits_type::eof()
             : c;
}

int EscapingBuf::sync() {
  if (lead_c2_) {
    lead_c2_ = false;
    if (!Put("\xc2")) return -1;
  }
  return sink_->pubsync();
}

std::string QuotedLines(const std::string& message) {
  std::string quoted;
  size_t start = 0;
  while (start < message.size()) {
    size_t end = message.find('\n', start);
    if (end == std::string::npos) end = message.size();
    if (start > 0) quoted += "\n  | ";
    quoted.append(message, start, end - start);
    start = end + 1;
  }
  return quoted;
}

std::string EscapeControls(const std::string& text) {
  std::ostringstream sink;
  {
    EscapingStream out(sink);
    out << text;
    out.flush();
  }
  return sink.str();
}

}  // namespace ratchet
