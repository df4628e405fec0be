#include "compare/markdown_text.h"

#include <algorithm>
#include <cctype>

#include "compare/terminal_text.h"

namespace ratchet {
namespace {

// ASCII punctuation that can begin or end markup anywhere in a line: code spans, emphasis,
// strikethrough, links and images, HTML and entities, table cells, GitHub's autolinks
// (http://, www.) and its math ($). The rest ('#', '-', '>', '1.' ...) is
// markup only at the start of a block, where the text's first character is escaped whatever it
// is.
bool Markup(char c) { return std::string_view("\\`*_[]<&|~:.$").find(c) != std::string_view::npos; }

}  // namespace

std::string MarkdownText(std::string_view text) {
  const std::string line = TerminalText(text);
  std::string out;
  out.reserve(line.size() * 2);
  size_t digits = 0;  // the leading digits: "1)" would begin an ordered list
  while (digits < line.size() && std::isdigit(static_cast<unsigned char>(line[digits]))) ++digits;
  for (size_t i = 0; i < line.size(); ++i) {
    const char c = line[i];
    if (i == 0 && c == ' ') {
      // Leading spaces could make an indented code block of a list item.
      out += "&#32;";
      continue;
    }
    const bool punct = std::ispunct(static_cast<unsigned char>(c));
    if (punct && (Markup(c) || i == 0 || (i == digits && c == ')'))) out += '\\';
    out += c;
    // GitHub links an e-mail address found in the text however it is escaped; an empty comment
    // after the '@' (which a browser does not show) parts it from the domain.
    if (c == '@') out += "<!-- -->";
  }
  return out;
}

std::string MarkdownCode(std::string_view text) {
  if (text.empty()) return "";
  std::string body;
  size_t run = 0, longest = 0;
  for (char c : TerminalText(text)) {
    run = c == '`' ? run + 1 : 0;
    longest = std::max(longest, run);
    if (c == '|') body += '\\';
    body += c;
  }
  // A space either side, which the reader strips, lets the text begin or end with a backtick or
  // keep its own spaces there.
  const std::string fence(longest + 1, '`');
  const bool pad =
      body.front() == '`' || body.back() == '`' || body.front() == ' ' || body.back() == ' ';
  return pad ? fence + " " + body + " " + fence : fence + body + fence;
}

}  // namespace ratchet
