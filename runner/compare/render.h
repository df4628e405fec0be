// A Comparison in words: a plain-text report for a terminal, or GitHub Markdown for a pull
// request. Both say the same things in the same order: what is wrong with the evidence first, then
// the contract difference, then every record; only the table syntax differs.
#ifndef RATCHET_COMPARE_RENDER_H_
#define RATCHET_COMPARE_RENDER_H_

#include <string>

#include "compare/compare.h"

namespace ratchet {

std::string RenderComparisonText(const Comparison& comparison, const CompareOptions& options);
std::string RenderComparisonMarkdown(const Comparison& comparison, const CompareOptions& options);

}  // namespace ratchet

#endif  // RATCHET_COMPARE_RENDER_H_
