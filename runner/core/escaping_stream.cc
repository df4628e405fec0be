#include "core/escaping_stream.h"

#include <cstdio>
#include <sstream>

namespace ratchet {
namespace {

// The length of the UTF-8 sequence that `lead` begins; 0 when none valid does: a continuation
// byte, 0xC0 and 0xC1 (which begin only overlong forms), and 0xF5-0xFF (past U+10FFFF).
size_t SequenceLength(unsigned char lead) {
  if (lead >= 0xc2 && lead <= 0xdf) return 2;
  if (lead >= 0xe0 && lead <= 0xef) return 3;
  if (lead >= 0xf0 && lead <= 0xf4) return 4;
  return 0;
}

// Whether `byte` may follow `lead`: a continuation byte, in the narrower ranges that rule out
// overlong forms (after E0, F0), surrogates (after ED) and code points past U+10FFFF (after F4).
bool ValidSecondByte(unsigned char lead, unsigned char byte) {
  switch (lead) {
    case 0xe0:
      return byte >= 0xa0 && byte <= 0xbf;
    case 0xed:
      return byte >= 0x80 && byte <= 0x9f;
    case 0xf0:
      return byte >= 0x90 && byte <= 0xbf;
    case 0xf4:
      return byte >= 0x80 && byte <= 0x8f;
    default:
      return byte >= 0x80 && byte <= 0xbf;
  }
}

// \x9b, for the byte 0x9b.
std::string ByteEscape(unsigned char byte) {
  char escaped[8];
  std::snprintf(escaped, sizeof escaped, "\\x%02x", byte);
  return escaped;
}

// \u009b, for the C1 control U+009B (whose UTF-8 is 0xc2 0x9b).
std::string C1Escape(unsigned char second_byte) {
  char escaped[8];
  std::snprintf(escaped, sizeof escaped, "\\u%04x", second_byte);
  return escaped;
}

}  // namespace

EscapingBuf::~EscapingBuf() { sync(); }

bool EscapingBuf::Put(const std::string& text) {
  return sink_->sputn(text.data(), static_cast<std::streamsize>(text.size())) ==
         static_cast<std::streamsize>(text.size());
}

EscapingBuf::int_type EscapingBuf::overflow(int_type c) {
  if (traits_type::eq_int_type(c, traits_type::eof())) return traits_type::not_eof(c);
  const unsigned char byte = static_cast<unsigned char>(traits_type::to_char_type(c));
  const bool put = pending_.empty() ? Begin(byte) : Continue(byte);
  return put ? c : traits_type::eof();
}

// A byte with no sequence pending: ASCII (a control escaped), the lead of a sequence (held), or
// a byte no valid sequence begins with (escaped).
bool EscapingBuf::Begin(unsigned char byte) {
  if (byte < 0x80) {
    if ((byte < 0x20 && byte != '\n' && byte != '\t') || byte == 0x7f) {
      return Put(ByteEscape(byte));
    }
    return !traits_type::eq_int_type(sink_->sputc(static_cast<char>(byte)), traits_type::eof());
  }
  if (SequenceLength(byte) == 0) return Put(ByteEscape(byte));
  pending_.push_back(static_cast<char>(byte));
  return true;
}

// A byte after a pending lead: the sequence grows, completes (printed, a C1 control as \u0080-
// \u009f), or breaks (what was held escaped byte by byte, and this byte begins afresh).
bool EscapingBuf::Continue(unsigned char byte) {
  const unsigned char lead = static_cast<unsigned char>(pending_[0]);
  const bool valid =
      pending_.size() == 1 ? ValidSecondByte(lead, byte) : byte >= 0x80 && byte <= 0xbf;
  if (!valid) return EscapePending() && Begin(byte);
  pending_.push_back(static_cast<char>(byte));
  if (pending_.size() < SequenceLength(lead)) return true;
  const bool c1_control = lead == 0xc2 && byte <= 0x9f;
  const std::string complete = c1_control ? C1Escape(byte) : pending_;
  pending_.clear();
  return Put(complete);
}

// A sequence that will not complete: each of its bytes as \xNN.
bool EscapingBuf::EscapePending() {
  std::string escaped;
  for (char held : pending_) escaped += ByteEscape(static_cast<unsigned char>(held));
  pending_.clear();
  return Put(escaped);
}

// A flush ends what was written: a sequence still pending is cut short, and escaped.
int EscapingBuf::sync() {
  if (!pending_.empty() && !EscapePending()) return -1;
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
