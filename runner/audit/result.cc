#include "audit/result.h"

#include <algorithm>

namespace ratchet {
namespace {

std::string Joined(const std::vector<std::string>& parts, const std::string& separator) {
  std::string out;
  for (const std::string& part : parts) out += (out.empty() ? "" : separator) + part;
  return out;
}

// The first line of a message, cut to what a verdict line can hold.
std::string Gist(const std::string& text) {
  constexpr size_t kMost = 120;
  std::string line = text.substr(0, text.find('\n'));
  return line.size() > kMost ? line.substr(0, kMost - 3) + "..." : line;
}

// A finding's text kept to kMostFindingBytes, cut at a character's start: a finding may quote a
// value of the evidence, and a hostile value is not printed whole.
constexpr size_t kMostFindingBytes = 2000;
std::string Kept(std::string text) {
  if (text.size() <= kMostFindingBytes) return text;
  size_t cut = kMostFindingBytes;
  while (cut > 0 && (static_cast<unsigned char>(text[cut]) & 0xc0) == 0x80) --cut;
  const size_t all = text.size();
  text.resize(cut);
  return text + "... (" + std::to_string(all) + " bytes in all)";
}

}  // namespace

void AuditResult::Breaks(std::string where, std::string message) {
  findings.push_back({AuditFinding::Kind::kBreaks, Kept(std::move(where)), Kept(std::move(message))});
}

void AuditResult::Note(std::string where, std::string message) {
  findings.push_back({AuditFinding::Kind::kNote, Kept(std::move(where)), Kept(std::move(message))});
}

void AuditResult::NotOfficial(std::string where, std::string message, std::string reason) {
  Note(std::move(where), std::move(message));
  if (std::find(unofficial.begin(), unofficial.end(), reason) == unofficial.end()) {
    unofficial.push_back(std::move(reason));
  }
}

size_t AuditResult::breaking() const {
  return static_cast<size_t>(
      std::count_if(findings.begin(), findings.end(),
                    [](const AuditFinding& f) { return f.kind == AuditFinding::Kind::kBreaks; }));
}

AuditVerdict AuditResult::verdict() const {
  if (breaking() > 0) return AuditVerdict::kDoesNotStand;
  if (!nothing_to_audit.empty()) return AuditVerdict::kNothingToAudit;
  return AuditVerdict::kStands;
}

std::string VerdictLine(const AuditResult& result) {
  switch (result.verdict()) {
    case AuditVerdict::kNothingToAudit:
      return "verdict: nothing to audit: " + result.nothing_to_audit;
    case AuditVerdict::kDoesNotStand: {
      const size_t count = result.breaking();
      for (const AuditFinding& finding : result.findings) {
        if (finding.kind != AuditFinding::Kind::kBreaks) continue;
        return "verdict: the claim does not stand (" + std::to_string(count) +
               (count == 1 ? " finding" : " findings") + "; the first: " + finding.where + ": " +
               Gist(finding.message) + ")";
      }
      break;
    }
    case AuditVerdict::kStands:
      break;
  }
  std::string line = "verdict: the claim stands";
  if (!result.unofficial.empty())
    line += " (not official: " + Joined(result.unofficial, "; ") + ")";
  if (!result.claims.empty()) line += ": " + Joined(result.claims, "; ");
  return line;
}

}  // namespace ratchet
