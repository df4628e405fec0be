// Text from outside as GitHub Markdown shows it and nothing more: no element, link, image,
// entity, emphasis, code span or table cell of its own. The one writer of such text for every
// Markdown ratchet writes (`ratchet compare --markdown`, `ratchet report --markdown`); it is
// tested with cmark-gfm, the renderer GitHub's is built on (tests/compare/markdown_text_test.cc).
#ifndef RATCHET_COMPARE_MARKDOWN_TEXT_H_
#define RATCHET_COMPARE_MARKDOWN_TEXT_H_

#include <string>
#include <string_view>

namespace ratchet {

// `text` for a paragraph, a list item or a table cell: on one line (TerminalText), every ASCII
// punctuation character that Markdown or GitHub's extensions can read as syntax escaped with a
// backslash (CommonMark reads any escaped ASCII punctuation as itself), a leading space
// written as an entity of ratchet's, so that the text never begins a block of its own, and an
// empty HTML comment after each '@', so that GitHub makes no e-mail link of it.
std::string MarkdownText(std::string_view text);

// `text` as a code span for a table cell: fenced by more backticks than any run inside it, and
// every '|' escaped (GitHub's tables read "\|" in a code span as '|'). Empty text gives "".
std::string MarkdownCode(std::string_view text);

}  // namespace ratchet

#endif  // RATCHET_COMPARE_MARKDOWN_TEXT_H_
