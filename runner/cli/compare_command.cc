// `ratchet compare A B`: what going from evidence A (the old harness or contract) to evidence B
// (the new one) does to the contract and to every record. It reads both and writes nothing.
#include <algorithm>
#include <cerrno>
#include <cmath>
#include <cstdlib>
#include <optional>
#include <ostream>
#include <string>

#include "cli/commands.h"
#include "baseline/input_file.h"
#include "cli/sharded_run.h"
#include "compare/compare.h"
#include "compare/render.h"
#include "core/args.h"
#include "core/exit_codes.h"
#include "evidence/reader.h"

namespace ratchet {

const char kCompareUsage[] =
    "usage: ratchet compare A B [--markdown] [--relative R] [--absolute-ms M]\n"
    "\n"
    "Compares two evidence directories, A (before a harness or contract change) and B (after):\n"
    "first what is wrong with either (an incomplete run, a file the manifest does not match),\n"
    "then every field at which their contracts differ (locked, then lane), then every record\n"
    "of their reports as same, regressed, improved, status-changed, added or removed, with\n"
    "both ranked times and their ratio. Timings are compared only on one lane that is not a CPU\n"
    "lane; elsewhere a record is decided by its outcome. Nothing is written: a baseline changes\n"
    "only through `ratchet promote`. docs/compare.md describes the categories.\n"
    "\n"
    "options:\n"
    "  --markdown       print GitHub Markdown (for a pull request) instead of plain text\n"
    "  --relative R     a timing differs when |B - A| > max(R * A, M); default 0.05\n"
    "  --absolute-ms M  default 0.1\n"
    "\n"
    "exit codes: 0 both complete, the locked contracts equal and every record the same;\n"
    "            1 anything differs, or either evidence is incomplete or has findings;\n"
    "            2 bad usage, a path that is not an evidence directory; 3 a folder that\n"
    "            cannot be read\n";

namespace {

// A tolerance option: a finite number, 0 or more.
Result<double> ParseTolerance(const Args& args, const std::string& name, double fallback) {
  std::optional<std::string> text = args.Get(name);
  if (!text) return fallback;
  char* end = nullptr;
  errno = 0;
  double value = std::strtod(text->c_str(), &end);
  if (text->empty() || *end != '\0' || errno != 0 || !std::isfinite(value) || value < 0) {
    return Status::Usage("--" + name + " must be a number of 0 or more, not '" + *text + "'");
  }
  return value;
}

int Run(CommandContext& context) {
  auto fail = [&](const Status& status) { return ReportError(context.err, "compare", status); };
  Result<Args> args =
      Args::Parse(context.argv, {{"markdown", false}, {"relative", true}, {"absolute-ms", true}});
  if (!args.ok()) return fail(args.status());
  const std::vector<std::string>& paths = args->positional();
  if (paths.size() != 2) {
    return fail(Status::Usage("name two evidence directories, A and B, not " +
                              std::to_string(paths.size())));
  }
  CompareOptions options;
  Result<double> relative = ParseTolerance(*args, "relative", options.relative);
  if (!relative.ok()) return fail(relative.status());
  Result<double> absolute_ms = ParseTolerance(*args, "absolute-ms", options.absolute_ms);
  if (!absolute_ms.ok()) return fail(absolute_ms.status());
  options.relative = *relative;
  options.absolute_ms = *absolute_ms;

  for (const std::string& path : paths) {
    if (Status checked = CheckInputTree(path, "the evidence directory"); !checked.ok()) {
      return fail(checked);
    }
    if (IsShardedRun(path)) {
      return fail(Status::Usage(
          path + " is a sharded run (ratchet run --executor), which compare does not read: "
          "compare the evidence of a direct run (`ratchet run --baseline FILE`, no --executor), "
          "and audit the sharded run with `ratchet audit " + path + "` (docs/distributed.md)"));
    }
  }
  // Both are read before either error is reported, so that one run names every bad path.
  Result<EvidenceSummary> a = ReadEvidence(paths[0]);
  Result<EvidenceSummary> b = ReadEvidence(paths[1]);
  if (!a.ok() || !b.ok()) {
    int code = kExitSuccess;
    for (const Result<EvidenceSummary>* side : {&a, &b}) {
      if (!side->ok()) code = std::max(code, fail(side->status()));
    }
    return code;
  }
  Comparison comparison = CompareEvidence(paths[0], *a, paths[1], *b, options);
  context.out << (args->Has("markdown") ? RenderComparisonMarkdown(comparison, options)
                                        : RenderComparisonText(comparison, options));
  context.out.flush();
  return comparison.Same() ? kExitSuccess : kExitFinding;
}

}  // namespace

int RunCompare(CommandContext& context) { return Run(context); }

}  // namespace ratchet
