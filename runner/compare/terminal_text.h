// Text from outside (a record id, a file or function name, a message of an evidence file) as a
// terminal shows it: on one line, every control character written as an escape, so that no
// value can print a line that passes for one of ratchet's own.
#ifndef RATCHET_COMPARE_TERMINAL_TEXT_H_
#define RATCHET_COMPARE_TERMINAL_TEXT_H_

#include <string>
#include <string_view>

namespace ratchet {

// `text` on one line: newline, carriage return and tab as \n, \r and \t, every other control
// character as EscapeControls writes it (\x1b, \x7f, \u009b), and every byte outside valid UTF-8
// as \xNN. Valid UTF-8 is kept.
std::string TerminalText(std::string_view text);

}  // namespace ratchet

#endif  // RATCHET_COMPARE_TERMINAL_TEXT_H_
