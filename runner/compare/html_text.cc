#include "compare/html_text.h"

namespace ratchet {

std::string HtmlScriptJson(const Json& data) {
  const std::string json =
      data.dump(-1, ' ', /*ensure_ascii=*/true, Json::error_handler_t::replace);
  std::string out;
  out.reserve(json.size());
  // JSON's own syntax has none of these characters, so each one is inside a string.
  for (char c : json) {
    switch (c) {
      case '<':
        out += "\\u003c";
        break;
      case '>':
        out += "\\u003e";
        break;
      case '&':
        out += "\\u0026";
        break;
      default:
        out += c;
    }
  }
  return out;
}

}  // namespace ratchet
