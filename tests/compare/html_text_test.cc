// The page's data (compare/html_text.h): strings that would end its <script> element, open a
// comment in it or end a line of script come out as \u escapes, and the JSON reads back as it was.
#include "compare/html_text.h"

#include <gtest/gtest.h>

#include <string>

namespace ratchet {
namespace {

TEST(HtmlScriptJson, NoStringCanEndOrChangeTheScriptElement) {
  const Json data = {{"</script><script>alert(1)</script>", "<!-- <script>"},
                     {"id",
                      "a\xe2\x80\xa8"
                      "b\xe2\x80\xa9"
                      "c & d > e"},
                     {"runs", {"</SCRIPT >", "\n\r\t\x1b"}}};
  const std::string json = HtmlScriptJson(data);
  for (char c : json) {
    EXPECT_TRUE(c >= 0x20 && c < 0x7f) << "a byte outside printable ASCII: " << int(c);
    EXPECT_TRUE(c != '<' && c != '>' && c != '&') << json;
  }
  EXPECT_NE(json.find("\\u2028"), std::string::npos) << json;
  EXPECT_NE(json.find("\\u003c/script\\u003e"), std::string::npos) << json;
  EXPECT_EQ(Json::parse(json), data);
}

TEST(HtmlScriptJson, BytesThatAreNotUtf8BecomeAReplacementCharacter) {
  const std::string json = HtmlScriptJson(Json{{"id", std::string("a\xff<")}});
  EXPECT_EQ(Json::parse(json), (Json{{"id", "a\xef\xbf\xbd<"}})) << json;
}

}  // namespace
}  // namespace ratchet
