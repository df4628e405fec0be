#include "compare/terminal_text.h"

#include "core/escaping_stream.h"

namespace ratchet {

std::string TerminalText(std::string_view text) {
  std::string line;
  line.reserve(text.size());
  for (char c : text) {
    switch (c) {
      case '\n':
        line += "\\n";
        break;
      case '\r':
        line += "\\r";
        break;
      case '\t':
        line += "\\t";
        break;
      default:
        line += c;
    }
  }
  return EscapeControls(line);
}

}  // namespace ratchet
