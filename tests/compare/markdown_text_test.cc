// The Markdown writer of text from outside (compare/markdown_text.h), proven with cmark-gfm, the
// renderer GitHub's is built on, with GitHub's extensions: a hostile string in a paragraph, a
// list item or a table cell renders as exactly its own text (its control characters as escapes),
// and the whole `ratchet compare --markdown` and `ratchet report --markdown` of evidence with
// hostile record ids, rule ids and board renders with the same elements as that of plain
// evidence. scripts/setup installs cmark-gfm; without it these tests fail.
#include "compare/markdown_text.h"

#include <gtest/gtest.h>

#include <regex>
#include <string>
#include <vector>

#include "../audit/fixture.h"
#include "compare/terminal_text.h"
#include "core/file.h"
#include "core/subprocess.h"
#include "support/run_binary.h"
#include "support/temp_dir.h"
#include "test_evidence.h"

namespace ratchet {
namespace {

// Strings that are markup, or would be without the writer.
const std::vector<std::string> kHostile = {"<h1>x</h1>",
                                           "<img src=x onerror=alert(1)>",
                                           "[link](http://x)",
                                           "![image](http://x/y.png)",
                                           "&amp; &#x41; &copy;",
                                           "`code`",
                                           "``",
                                           "a|b",
                                           "a\\|b",
                                           "\\[x\\]\\(http://evil\\)",
                                           "\\*bold\\*",
                                           "*em* _em_ **strong** __strong__",
                                           "~~struck~~",
                                           "<http://x>",
                                           "http://evil.example www.evil.example user@evil.example",
                                           "line\n# heading\r\n- item",
                                           "# heading",
                                           "- item",
                                           "+ item",
                                           "1. item",
                                           "1) item",
                                           "> quote",
                                           "    indented",
                                           "---",
                                           "===",
                                           "$x^2$",
                                           "<!-- comment -->",
                                           "</details>",
                                           "|",
                                           "trailing\\",
                                           "\\",
                                           "tab\there",
                                           "\x1b[31mred",
                                           " leading space",
                                           "<a href=\"http://x\">x</a>",
                                           ":+1: <br>",
                                           "a\xe2\x80\xa8"
                                           "b"};

// `html` less the empty comments the writer puts after an '@' (a browser shows none).
std::string Uncommented(std::string html) {
  for (size_t at; (at = html.find("<!-- -->")) != std::string::npos;) html.erase(at, 8);
  return html;
}

class MarkdownTextTest : public ::testing::Test {
 protected:
  void SetUp() override {
    Result<ProcessResult> found = RunProcess({"sh", "-c", "command -v cmark-gfm"}, 10);
    ASSERT_TRUE(found.ok() && found->exit_code == 0)
        << "no cmark-gfm on PATH: scripts/setup installs Debian's cmark-gfm for this test";
  }

  // `markdown` as GitHub renders it: cmark-gfm with GitHub's extensions, raw HTML kept (GitHub
  // keeps it, then sanitizes it), so that any that came from the data would show.
  std::string Render(const std::string& markdown) {
    const std::string file = dir_ / ("in-" + std::to_string(++files_) + ".md");
    EXPECT_TRUE(WriteFileAtomic(file, markdown).ok());
    Result<ProcessResult> html =
        RunProcess({"cmark-gfm", "--unsafe", "--extension", "table", "--extension", "autolink",
                    "--extension", "strikethrough", "--extension", "tagfilter", file},
                   30);
    EXPECT_TRUE(html.ok() && html->exit_code == 0);
    return html.ok() ? Uncommented(html->out) : "";
  }

  TempDir dir_;
  int files_ = 0;
};

// `text` as cmark-gfm writes text in HTML.
std::string Escaped(const std::string& text) {
  std::string out;
  for (char c : text) {
    switch (c) {
      case '&':
        out += "&amp;";
        break;
      case '<':
        out += "&lt;";
        break;
      case '>':
        out += "&gt;";
        break;
      case '"':
        out += "&quot;";
        break;
      default:
        out += c;
    }
  }
  return out;
}

std::string OneCellTable(const std::string& cell) {
  return "<table>\n<thead>\n<tr>\n<th>h</th>\n</tr>\n</thead>\n<tbody>\n<tr>\n<td>" + cell +
         "</td>\n</tr>\n</tbody>\n</table>\n";
}

TEST_F(MarkdownTextTest, HostileTextRendersAsItselfAndNothingMore) {
  for (const std::string& hostile : kHostile) {
    const std::string shown = Escaped(TerminalText(hostile));
    EXPECT_EQ(Render("Said: " + MarkdownText(hostile) + "\n"), "<p>Said: " + shown + "</p>\n")
        << "in a paragraph: " << hostile;
    EXPECT_EQ(Render("- " + MarkdownText(hostile) + "\n"), "<ul>\n<li>" + shown + "</li>\n</ul>\n")
        << "in a list item: " << hostile;
    EXPECT_EQ(Render("| h |\n| --- |\n| " + MarkdownText(hostile) + " |\n"), OneCellTable(shown))
        << "in a table cell: " << hostile;
    EXPECT_EQ(Render("| h |\n| --- |\n| " + MarkdownCode(hostile) + " |\n"),
              OneCellTable("<code>" + shown + "</code>"))
        << "as a code span in a table cell: " << hostile;
  }
}

// The element names of `html`, in order: its structure without its text.
std::vector<std::string> Elements(const std::string& html) {
  std::vector<std::string> names;
  static const std::regex tag("<(/?[a-zA-Z0-9]+)");
  for (std::sregex_iterator it(html.begin(), html.end(), tag), end; it != end; ++it) {
    names.push_back((*it)[1]);
  }
  return names;
}

// Evidence with a qualified and a disqualified record, on a board named `board`: `ids` and
// `rule` spelled as given.
void WriteEvidence(const std::string& dir, const std::vector<std::string>& ids,
                   const std::string& rule, const std::string& board, double ms) {
  MachineFacts machine = CudaMachine();
  machine.device.name = board;
  const Json report =
      TestReport({Qualified(ids[0], ms), Disqualified(ids[1], {rule}), Qualified(ids[2], ms)});
  const Status written =
      WriteTestEvidenceWithReport(dir, TestContract(TestLocked(), machine), report);
  ASSERT_TRUE(written.ok()) << written.message();
}

TEST_F(MarkdownTextTest, AReportOfHostileEvidenceRendersAsThatOfPlainEvidence) {
  const std::vector<std::string> plain = {"a", "b", "c"};
  const std::vector<std::string> hostile = {
      "<h1>x</h1> [link](http://x) ![i](http://x/i.png)",
      "\\[x\\]\\(http://evil\\) \\*bold\\* &amp; `code` a|b\n# forged",
      "*em* **strong** ~~s~~ <img src=x> www.evil.example"};
  const std::string hostile_rule = "<em>rule</em>|*x*";
  const std::string hostile_board = "\\[H200\\]\\(http://evil\\) <b>x</b>";
  WriteEvidence(dir_ / "plain", plain, "draw-floor", "NVIDIA H200", 80.0);
  WriteEvidence(dir_ / "hostile", hostile, hostile_rule, hostile_board, 80.0);
  const BinaryRun plain_run = RunRatchet({"report", dir_ / "plain", "--markdown"});
  const BinaryRun hostile_run = RunRatchet({"report", dir_ / "hostile", "--markdown"});
  // This evidence is written, not scored: the report says first that it cannot be verified, and
  // exits 1; what follows is still shown as text.
  ASSERT_EQ(plain_run.exit_code, 1) << plain_run.err;
  ASSERT_EQ(hostile_run.exit_code, 1) << hostile_run.err;
  ASSERT_EQ(hostile_run.out.rfind("### ratchet: this evidence does not stand\n", 0), 0u)
      << hostile_run.out;
  const std::string plain_html = Render(plain_run.out), hostile_html = Render(hostile_run.out);
  ASSERT_NE(Elements(plain_html), std::vector<std::string>{});
  EXPECT_EQ(Elements(hostile_html), Elements(plain_html)) << hostile_run.out << "\n"
                                                          << hostile_html;
  EXPECT_NE(hostile_html.find("&lt;h1&gt;x&lt;/h1&gt; [link](http://x)"), std::string::npos)
      << "the record id shown as text\n"
      << hostile_html;
  EXPECT_NE(hostile_html.find("&amp;amp; `code` a|b\\n# forged"), std::string::npos)
      << "the entity and the newline shown as text\n"
      << hostile_html;
}

// compare shows what verification gives: record ids (plain names), the rule ids of the rule set,
// and text from the evidence in its findings and its contract. Hostile boards (the contract's
// lane.device.name, shown where the lanes differ) and a hostile summary in a resealed report
// (a finding) render as plain ones do.
TEST_F(MarkdownTextTest, ACompareOfHostileEvidenceRendersAsThatOfPlainEvidence) {
  const std::string hostile_text = "\\[x\\]\\(http://evil\\) \\*bold\\* &amp; `code` a|b\n# forged";
  const std::string hostile_board = "\\[H200\\]\\(http://evil\\) <b>x</b> *em*";
  auto write = [&](const std::string& name, const std::string& board, const std::string& summary) {
    FixtureOptions options;
    options.device_kind = "cuda";
    options.device_name = board;
    const Status written = WriteFixture(dir_ / name, options);
    ASSERT_TRUE(written.ok()) << written.ToString();
    if (summary.empty()) return;
    const Status edited = EditJsonAndRemanifest(dir_ / name, "report.json", [&](Json& report) {
      report["records"]["ncm"]["runs"][0]["summary"] = summary;
    });
    ASSERT_TRUE(edited.ok()) << edited.ToString();
  };
  write("plain-old", "NVIDIA H200", "");
  write("plain-new", "NVIDIA H100", "some summary");
  write("hostile-old", "NVIDIA H200", "");
  write("hostile-new", hostile_board, hostile_text);
  const BinaryRun plain_run =
      RunRatchet({"compare", dir_ / "plain-old", dir_ / "plain-new", "--markdown"});
  const BinaryRun hostile_run =
      RunRatchet({"compare", dir_ / "hostile-old", dir_ / "hostile-new", "--markdown"});
  ASSERT_EQ(plain_run.exit_code, 1) << plain_run.out << plain_run.err;
  ASSERT_EQ(hostile_run.exit_code, 1) << hostile_run.out << hostile_run.err;
  const std::string plain_html = Render(plain_run.out), hostile_html = Render(hostile_run.out);
  ASSERT_NE(Elements(plain_html), std::vector<std::string>{});
  EXPECT_EQ(Elements(hostile_html), Elements(plain_html)) << hostile_run.out << "\n"
                                                          << hostile_html;
  EXPECT_NE(hostile_html.find("\\[H200\\]\\(http://evil\\) &lt;b&gt;x&lt;/b&gt; *em*"),
            std::string::npos)
      << "the board shown as text\n"
      << hostile_html;
}

}  // namespace
}  // namespace ratchet
