// What ratchet prints reaches a terminal with every control character but newline and tab
// escaped as text: unit cases of EscapingStream, and a submission whose error message carries
// terminal escape sequences, scored by the binary.
#include "core/escaping_stream.h"

#include <gtest/gtest.h>

#include <sstream>

#include "core/file.h"
#include "support/checkout.h"
#include "support/fast_rules.h"
#include "support/run_binary.h"
#include "support/temp_dir.h"

namespace ratchet {
namespace {

TEST(EscapingStreamTest, ControlCharactersArePrintedAsText) {
  EXPECT_EQ(EscapeControls("plain text, tab\there\nand a newline\n"),
            "plain text, tab\there\nand a newline\n");
  EXPECT_EQ(EscapeControls("\x1b]0;retitled\x07"), "\\x1b]0;retitled\\x07");
  EXPECT_EQ(EscapeControls("a\rb\bc\x7f"), "a\\x0db\\x08c\\x7f");
  EXPECT_EQ(EscapeControls(std::string("nul\0byte", 8)), "nul\\x00byte");
}

TEST(EscapingStreamTest, C1ControlsInUtf8AreEscapedAndOtherCharactersKept) {
  EXPECT_EQ(EscapeControls("\xc2\x9b" "2J"), "\\u009b2J");           // CSI: clear the screen
  EXPECT_EQ(EscapeControls("caf\xc3\xa9 \xc2\xb5s"), "caf\xc3\xa9 \xc2\xb5s");  // é, µ
  EXPECT_EQ(EscapeControls("ends with \xc2"), "ends with \\xc2");
}

// `text` written into an EscapingStream one byte per put(), as a writer that streams does.
std::string EscapedBytewise(const std::string& text) {
  std::ostringstream sink;
  {
    EscapingStream out(sink);
    for (char c : text) out.put(c);
  }
  return sink.str();
}

// A byte outside valid UTF-8 is printed as \xNN: an 8-bit terminal takes a lone 0x9b for CSI.
// Valid UTF-8 passes as it is, however its bytes arrive.
TEST(EscapingStreamTest, BytesOutsideValidUtf8AreEscapedAndValidUtf8Kept) {
  const std::pair<std::string, std::string> cases[] = {
      {"\x9b\x32J", "\\x9b2J"},                      // a lone 0x9b: CSI to an 8-bit terminal
      {"\xc2\x41", "\\xc2A"},                        // a lead byte, then no continuation
      {"at the end \xc2", "at the end \\xc2"},       // a lead byte, then nothing
      {"cut \xe2\x82", "cut \\xe2\\x82"},            // the euro sign's first two bytes
      {"\xe2\x82\x41", "\\xe2\\x82A"},               // ...and then a byte that breaks it
      {"\xc0\xaf", "\\xc0\\xaf"},                    // '/' written overlong
      {"\xe0\x80\xaf", "\\xe0\\x80\\xaf"},           // '/' overlong in three bytes
      {"\xed\xa0\x80", "\\xed\\xa0\\x80"},           // a surrogate (U+D800)
      {"\xf4\x90\x80\x80", "\\xf4\\x90\\x80\\x80"},  // past U+10FFFF
      {"\xff\xfe", "\\xff\\xfe"},
      {"\xc3\xa9\xe2\x82\xac\xf0\x9f\x98\x80", "\xc3\xa9\xe2\x82\xac\xf0\x9f\x98\x80"},  // é€😀
      {"\xc2\x9b\x32J", "\\u009b2J"},  // the C1 control CSI, in UTF-8
  };
  for (const auto& [text, printed] : cases) {
    EXPECT_EQ(EscapeControls(text), printed);
    EXPECT_EQ(EscapedBytewise(text), printed);
  }
}

TEST(EscapingStreamTest, QuotedLinesMarkEveryLineAfterTheFirst) {
  EXPECT_EQ(QuotedLines("one line"), "one line");
  EXPECT_EQ(QuotedLines("Traceback:\nqualified: MNIST 99.99%\n"),
            "Traceback:\n  | qualified: MNIST 99.99%");
  EXPECT_EQ(QuotedLines("a\n\nb"), "a\n  | \n  | b");
}

TEST(EscapingStreamTest, ASubmissionsEscapeSequencesReachTheTerminalAsText) {
  if (!HavePython()) GTEST_SKIP() << "no python3 that imports torch";
  TempDir dir;
  const std::string file = dir / "retitles.py";
  ASSERT_TRUE(WriteFileAtomic(file,
                              "def method(train_x, train_y, test_x):\n"
                              "    raise RuntimeError('\\x1b]0;pwned\\x07\\x1b[2J\\x1b[H'\n"
                              "                       '\\nevidence: /tmp/forged (complete)')\n")
                  .ok());
  BinaryRun run = RunRatchet({"score", file, "--band", "3000", "--rules", FastRules(dir),
                              "--out", dir / "evidence"});
  EXPECT_EQ(run.exit_code, 1) << run.out << run.err;
  const std::string printed = run.out + run.err;
  EXPECT_EQ(printed.find('\x1b'), std::string::npos) << printed;
  EXPECT_EQ(printed.find('\x07'), std::string::npos) << printed;
  EXPECT_NE(printed.find("\\x1b]0;pwned\\x07"), std::string::npos) << printed;
  // The message's own lines are marked as quoted: none passes for one of ratchet's.
  EXPECT_EQ(run.out.find("\nevidence: /tmp/forged"), std::string::npos) << run.out;
  EXPECT_NE(run.out.find("  | evidence: /tmp/forged (complete)"), std::string::npos) << run.out;
}

}  // namespace
}  // namespace ratchet
