#include "compare/render.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <sstream>

#include "compare/markdown_text.h"
#include "compare/terminal_text.h"

namespace ratchet {
namespace {

// What a column holds, for Markdown: ratchet's own words and numbers, or text from the
// evidence, as text or (identifiers and values) as a code span.
enum class Column { kOurs, kText, kCode };

// The cells of one table, before either format lays them out.
struct Table {
  std::vector<std::string> header;
  std::vector<bool> right;  // right-aligned (numbers)
  std::vector<Column> kind;
  std::vector<std::vector<std::string>> rows;
};

std::string Fixed(double value, int digits) {
  char text[64];
  std::snprintf(text, sizeof text, "%.*f", digits, value);
  return text;
}

// 5 as "5", 0.1 as "0.1": an option as the user wrote it, give or take the spelling.
std::string Shortest(double value) {
  char text[64];
  std::snprintf(text, sizeof text, "%.10g", value);
  return text;
}

std::string Ms(const std::optional<RecordEntry>& entry) {
  return entry && entry->ranked_ms ? Fixed(*entry->ranked_ms, 3) : "-";
}

// A value as a person reads it: a string as it is, anything else as compact JSON.
std::string ValueText(const std::optional<Json>& value) {
  if (!value) return "(absent)";
  if (value->is_string()) return value->get<std::string>();
  return value->dump(-1, ' ', false, Json::error_handler_t::replace);
}

std::string SideName(const EvidenceSide& side) {
  std::string text = side.status;
  if (!side.complete && side.status == "complete") text += " with findings";
  text += side.lane_id.empty() ? ", no lane" : ", lane " + side.lane_id;
  if (!side.device_kind.empty()) text += " " + side.device_kind;
  return text;
}

std::vector<std::string> ProblemLines(const Comparison& comparison) {
  std::vector<std::string> lines;
  for (const EvidenceSide* side : {&comparison.a, &comparison.b}) {
    const char* name = side == &comparison.a ? "A" : "B";
    for (const std::string& problem : side->problems) {
      lines.push_back(std::string(name) + " " + side->path + ": " + problem);
    }
  }
  return lines;
}

std::string LockedLine(const Comparison& comparison) {
  size_t n = comparison.locked.size();
  if (n == 0) return "locked: the same";
  return "locked: " + std::to_string(n) + (n == 1 ? " field differs" : " fields differ") +
         " (the outcomes below are under another contract)";
}

std::string LaneLine(const Comparison& comparison) {
  const std::string& a = comparison.a.lane_id;
  const std::string& b = comparison.b.lane_id;
  size_t n = comparison.lane.size();
  std::string fields = std::to_string(n) + (n == 1 ? " field differs" : " fields differ");
  if (comparison.same_lane) {
    return "lane: the same id " + a + (n == 0 ? "" : ", yet " + fields);
  }
  return "lane: the id differs (A " + (a.empty() ? "none" : a) + ", B " + (b.empty() ? "none" : b) +
         "); " + fields;
}

std::string TimingLine(const Comparison& comparison, const CompareOptions& options) {
  if (!comparison.timings_compared) {
    std::string why = comparison.timings_note;
    if (why == "CPU lane") why += ", whose timings are never compared";
    return "timings: not compared (" + why + "): each record is decided by its outcome";
  }
  return "timings: compared on lane " + comparison.a.lane_id + "; a change counts above max(" +
         Shortest(options.relative * 100) + "% of A, " + Shortest(options.absolute_ms) + " ms)";
}

std::string CountsLine(const Comparison& comparison) {
  if (comparison.records.empty()) return "records: none in either report";
  std::vector<int> counts = comparison.Counts();
  std::string line = "records:";
  for (int i = 0; i < static_cast<int>(counts.size()); ++i) {
    line += std::string(i ? ", " : " ") + std::to_string(counts[i]) + " " +
            CategoryName(static_cast<RecordCategory>(i));
  }
  return line;
}

std::string VerdictLine(const Comparison& comparison) {
  if (comparison.Same()) return "verdict: the same";
  std::vector<std::string> why;
  if (!comparison.a.complete || !comparison.b.complete) why.push_back("incomplete evidence");
  if (!comparison.locked.empty()) why.push_back("the locked contract differs");
  int differing = 0;
  for (const RecordComparison& record : comparison.records) {
    differing += record.category != RecordCategory::kSame;
  }
  if (differing > 0) {
    why.push_back(std::to_string(differing) +
                  (differing == 1 ? " record differs" : " records differ"));
  }
  std::string line = "verdict: differs:";
  for (size_t i = 0; i < why.size(); ++i) line += (i ? ", " : " ") + why[i];
  return line;
}

Table ContractTable(const Comparison& comparison) {
  Table table{{"field", "A", "B"},
              {false, false, false},
              {Column::kCode, Column::kCode, Column::kCode},
              {}};
  for (const auto* part : {&comparison.locked, &comparison.lane}) {
    for (const ContractDifference& difference : *part) {
      table.rows.push_back({difference.path, ValueText(difference.a), ValueText(difference.b)});
    }
  }
  return table;
}

std::string RecordNote(const RecordComparison& record) {
  std::string note;
  for (size_t i = 0; i < record.changes.size(); ++i) note += (i ? "; " : "") + record.changes[i];
  if (record.timing_compared && record.category != RecordCategory::kSame) {
    double delta = *record.b->ranked_ms - *record.a->ranked_ms;
    note = (delta > 0 ? "+" : "") + Fixed(delta, 3) + " ms";
  }
  if (!record.timing_note.empty()) note = "not compared: " + record.timing_note;
  const bool a = record.a && record.a->second_scoring, b = record.b && record.b->second_scoring;
  if (a || b) {
    note += std::string(note.empty() ? "" : "; ") +
            (a && b ? "A and B"
             : a    ? "A"
                    : "B") +
            ": the run's second scoring";
  }
  return note;
}

Table RecordTable(const Comparison& comparison) {
  Table table{
      {"record", "category", "A ranked_ms", "B ranked_ms", "B/A", "note"},
      {false, false, true, true, true, false},
      {Column::kCode, Column::kOurs, Column::kOurs, Column::kOurs, Column::kOurs, Column::kText},
      {}};
  for (const RecordComparison& record : comparison.records) {
    std::string ratio = record.ratio ? Fixed(*record.ratio, 3) + "x" : "-";
    table.rows.push_back({record.id, CategoryName(record.category), Ms(record.a), Ms(record.b),
                          ratio, RecordNote(record)});
  }
  return table;
}

void TextTable(const Table& table, std::ostream& out) {
  std::vector<size_t> width(table.header.size(), 0);
  auto measure = [&width](const std::vector<std::string>& row) {
    for (size_t i = 0; i < row.size(); ++i)
      width[i] = std::max(width[i], TerminalText(row[i]).size());
  };
  measure(table.header);
  for (const auto& row : table.rows) measure(row);
  auto line = [&](const std::vector<std::string>& row) {
    std::string text = " ";
    for (size_t i = 0; i < row.size(); ++i) {
      std::string cell = TerminalText(row[i]);
      std::string pad(width[i] - cell.size(), ' ');
      text += " " + (table.right[i] ? pad + cell : cell + (i + 1 < row.size() ? pad : ""));
      if (i + 1 < row.size()) text += " ";
    }
    while (!text.empty() && text.back() == ' ') text.pop_back();
    out << text << "\n";
  };
  line(table.header);
  for (const auto& row : table.rows) line(row);
}

// A cell of a column of `kind`; "-" and "(absent)" are ratchet's words for no value.
std::string MarkdownCell(const std::string& text, Column kind) {
  if (kind == Column::kOurs || text == "-" || text == "(absent)") return text;
  return kind == Column::kCode ? MarkdownCode(text) : MarkdownText(text);
}

void MarkdownTable(const Table& table, std::ostream& out) {
  out << "|";
  for (const std::string& name : table.header) out << (name.empty() ? " |" : " " + name + " |");
  out << "\n|";
  for (bool right : table.right) out << (right ? " ---: |" : " --- |");
  out << "\n";
  for (const auto& row : table.rows) {
    out << "|";
    for (size_t i = 0; i < row.size(); ++i) {
      std::string cell = MarkdownCell(row[i], table.kind[i]);
      out << (cell.empty() ? " |" : " " + cell + " |");
    }
    out << "\n";
  }
}

}  // namespace

std::string RenderComparisonText(const Comparison& comparison, const CompareOptions& options) {
  std::ostringstream out;
  std::vector<std::string> problems = ProblemLines(comparison);
  if (!problems.empty()) {
    out << "incomplete evidence: the comparison below is no verdict on the records\n";
    for (const std::string& line : problems) out << "  " << TerminalText(line) << "\n";
    out << "\n";
  }
  out << "A: " << TerminalText(comparison.a.path) << " (" << TerminalText(SideName(comparison.a))
      << ")\n";
  out << "B: " << TerminalText(comparison.b.path) << " (" << TerminalText(SideName(comparison.b))
      << ")\n\n";
  out << "contract\n";
  out << "  " << LockedLine(comparison) << "\n";
  out << "  " << TerminalText(LaneLine(comparison)) << "\n";
  out << "  " << TerminalText(TimingLine(comparison, options)) << "\n";
  Table contract = ContractTable(comparison);
  if (!contract.rows.empty()) {
    out << "\n";
    TextTable(contract, out);
  }
  out << "\n" << CountsLine(comparison) << "\n";
  if (!comparison.records.empty()) TextTable(RecordTable(comparison), out);
  out << "\n" << VerdictLine(comparison) << "\n";
  return out.str();
}

std::string RenderComparisonMarkdown(const Comparison& comparison, const CompareOptions& options) {
  std::ostringstream out;
  out << "## ratchet compare\n\n";
  std::vector<std::string> problems = ProblemLines(comparison);
  if (!problems.empty()) {
    out << "> [!WARNING]\n> **Incomplete evidence**: the comparison below is no verdict on the "
           "records.\n>\n";
    for (const std::string& line : problems) out << "> - " << MarkdownText(line) << "\n";
    out << "\n";
  }
  Table sides{{"", "evidence", "state"},
              {false, false, false},
              {Column::kOurs, Column::kCode, Column::kText},
              {}};
  sides.rows.push_back({"A", comparison.a.path, SideName(comparison.a)});
  sides.rows.push_back({"B", comparison.b.path, SideName(comparison.b)});
  MarkdownTable(sides, out);
  out << "\n### Contract\n\n";
  out << "- " << LockedLine(comparison) << "\n";
  out << "- " << MarkdownText(LaneLine(comparison)) << "\n";
  out << "- " << MarkdownText(TimingLine(comparison, options)) << "\n";
  Table contract = ContractTable(comparison);
  if (!contract.rows.empty()) {
    out << "\n";
    MarkdownTable(contract, out);
  }
  out << "\n### Records\n\n" << CountsLine(comparison) << "\n";
  if (!comparison.records.empty()) {
    out << "\n";
    MarkdownTable(RecordTable(comparison), out);
  }
  out << "\n**" << VerdictLine(comparison) << "**\n";
  return out.str();
}

}  // namespace ratchet
