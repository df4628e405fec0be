#include "audit/stdout_check.h"

#include <algorithm>

#include "energy/energy_file.h"
#include "evidence/fields.h"
#include "rules/pyformat.h"

namespace ratchet {
namespace {

std::string Quoted(const std::string& text) { return "'" + text + "'"; }
std::string FirstLine(const std::string& text) { return text.substr(0, text.find('\n')); }

}  // namespace

std::string CallLine(const Call& c, size_t index, int64_t count) {
  std::string number = std::to_string(index + 1);
  if (number.size() < 2) number = " " + number;
  return "  call " + number + "/" + std::to_string(count) + ": " + FormatFixed(c.ms, 3, true) +
         " ms, scorer's clock " + FormatFixed(std::max(0.0, c.parent_ms - c.overhead_ms), 3, true) +
         " ms";
}

StdoutCheck::StdoutCheck(const std::string& stdout_text, std::string where, AuditResult* result)
    : text_("\n" + stdout_text + (!stdout_text.empty() && stdout_text.back() == '\n' ? "" : "\n")),
      where_(std::move(where)),
      result_(result) {}

void StdoutCheck::Expect(const std::string& expected, const std::string& prefix,
                         const std::string& what, const std::string& source) {
  ++checked_;
  if (text_.find("\n" + expected + "\n") != std::string::npos) return;
  ok_ = false;
  size_t at = text_.find("\n" + prefix);
  if (at != std::string::npos && !prefix.empty()) {
    const size_t start = at + 1;
    const std::string printed = text_.substr(start, text_.find('\n', start) - start);
    result_->Breaks(where_ + ", " + what,
                    "prints " + Quoted(printed) + "; " + source + " gives " + Quoted(expected));
  } else {
    result_->Breaks(where_ + ", " + what,
                    "has no line " + Quoted(FirstLine(expected)) + " (from " + source + ")");
  }
}

void StdoutCheck::ExpectPrefix(const std::string& prefix, const std::string& what,
                               const std::string& source) {
  ++checked_;
  if (text_.find("\n" + prefix) != std::string::npos) return;
  ok_ = false;
  result_->Breaks(where_ + ", " + what,
                  "has no line beginning " + Quoted(prefix) + " (from " + source + ")");
}

void StdoutCheck::ExpectEnergy(const Json& energy, const std::string& path) {
  if (!energy.is_object()) return;
  if (std::optional<double> mj = ClaimedEnergyMj(energy)) {
    Expect("energy " + FormatFixed(*mj, 3) + " mJ per call above idle", "energy ",
           "the energy line", JoinPath(path, kEnergyMjKey));
  }
  for (const std::string& problem : EnergyProblemTexts(energy)) {
    Expect("energy not measured: " + problem, "", "an energy problem",
           JoinPath(path, kEnergyProblemsKey));
  }
  if (std::optional<std::string> reason = EnergyReason(energy)) {
    Expect("energy not measured: " + *reason, "", "the energy line",
           JoinPath(path, kEnergyReasonKey));
  }
}

}  // namespace ratchet
