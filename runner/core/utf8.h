// Text from outside made fit to store. A submission's output, a compiler's messages and a
// worker's log are bytes the submission chose, and ratchet keeps a tail of each: a tail cut
// inside a character, or bytes that never were UTF-8, would make the canonical JSON writer refuse
// the evidence that holds them, and a submission could so erase its own verdict. Every such text
// passes through here before it is kept.
#ifndef RATCHET_CORE_UTF8_H_
#define RATCHET_CORE_UTF8_H_

#include <cstddef>
#include <string>
#include <string_view>

namespace ratchet {

// The length of the well-formed UTF-8 character at text[at] (1 to 4), or 0 where none starts
// there (a stray continuation byte, an overlong form, a surrogate, past U+10FFFF, cut short).
size_t Utf8CharLength(std::string_view text, size_t at);

// `text` with every byte that starts no well-formed character replaced by U+FFFD; valid text is
// returned unchanged.
std::string ValidUtf8(std::string_view text);

// The last at most `max_bytes` bytes of ValidUtf8(text), starting at a character's start.
std::string ValidUtf8Tail(std::string_view text, size_t max_bytes);

}  // namespace ratchet

#endif  // RATCHET_CORE_UTF8_H_
