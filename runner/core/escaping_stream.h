// What ratchet prints passes through here: a submission's words (an exception's message, a
// compiler's output, a worker's log) reach the operator's terminal in its messages, and a
// control character among them could retitle, blank or rewrite that terminal. Every C0 control
// but newline and tab, DEL, and every C1 control (U+0080-U+009F, as UTF-8) is printed as text
// instead: \x1b, \x7f, \u009b. So is every byte that is not part of valid UTF-8 (\x9b, \xc0),
// since a terminal that reads bytes as 8-bit characters takes a lone 0x9b for CSI.
#ifndef RATCHET_CORE_ESCAPING_STREAM_H_
#define RATCHET_CORE_ESCAPING_STREAM_H_

#include <ostream>
#include <streambuf>
#include <string>

namespace ratchet {

class EscapingBuf : public std::streambuf {
 public:
  explicit EscapingBuf(std::streambuf* sink) : sink_(sink) {}
  ~EscapingBuf() override;

 protected:
  int_type overflow(int_type c) override;
  int sync() override;

 private:
  bool Put(const std::string& text);
  bool Begin(unsigned char byte);
  bool Continue(unsigned char byte);
  bool EscapePending();
  std::streambuf* sink_;
  // The bytes so far of a UTF-8 sequence not yet complete: held until it completes or breaks,
  // since bytes may come one at a time.
  std::string pending_;
};

// An ostream over `sink`'s buffer that escapes as above.
class EscapingStream : public std::ostream {
 public:
  explicit EscapingStream(std::ostream& sink) : std::ostream(&buf_), buf_(sink.rdbuf()) {}

 private:
  EscapingBuf buf_;
};

// A message that may carry a submission's words (an exception's text, a compiler's output), for
// printing after a prefix of ratchet's: every line after the first begins "  | ", so no line of
// it can pass for one of ratchet's own ("qualified: ...", "evidence: ...").
std::string QuotedLines(const std::string& message);

// `text` as EscapingStream prints it.
std::string EscapeControls(const std::string& text);

}  // namespace ratchet

#endif  // RATCHET_CORE_ESCAPING_STREAM_H_
