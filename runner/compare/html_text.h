// Text from outside on ratchet's HTML page (`ratchet report --html`): the page carries every
// such string as JSON data in a <script type="application/json"> element, which its script reads
// with JSON.parse and sets with textContent only, never as markup. This is the one writer of that
// data.
#ifndef RATCHET_COMPARE_HTML_TEXT_H_
#define RATCHET_COMPARE_HTML_TEXT_H_

#include <string>

#include "core/canonical_json.h"

namespace ratchet {

// `data` as JSON that cannot end or change its <script> element: all of it ASCII (U+2028 and
// U+2029 included as \u escapes), and '<', '>' and '&' as \u003c, \u003e and \u0026, so that
// neither "</script" nor "<!--" appears. Bytes that are not UTF-8 become U+FFFD.
std::string HtmlScriptJson(const Json& data);

}  // namespace ratchet

#endif  // RATCHET_COMPARE_HTML_TEXT_H_
