// `ratchet compare A B`: what going from evidence A (the old harness or contract) to evidence B
// (the new one) does to the contract and to every record. Each is verified first (direct or
// sharded, shard/verified_evidence.h) and compared as its calls give it; nothing is written.
#include <algorithm>
#include <cerrno>
#include <cmath>
#include <cstdlib>
#include <optional>
#include <ostream>
#include <string>

#include "cli/commands.h"
#include "shard/verified_evidence.h"
#include "compare/compare.h"
#include "compare/render.h"
#include "contract/contract_view.h"
#include "core/args.h"
#include "core/exit_codes.h"
#include "evidence/layout.h"
#include "evidence/reader.h"
#include "shard/sharded_run.h"

namespace ratchet {

const char kCompareUsage[] =
    "usage: ratchet compare A B [--markdown] [--relative R] [--absolute-ms M] [--data DIR]\n"
    "\n"
    "Compares two runs' evidence, A (before a harness or contract change) and B (after), each\n"
    "an evidence directory or a sharded run's directory. Each is verified first, as `ratchet\n"
    "audit` verifies it (under the rule set its contract locks), and compared as its calls give\n"
    "it, never as its report says: first what breaks either (an incomplete run, a file the\n"
    "manifest does not match, a figure its calls do not give), then every field at which their\n"
    "contracts differ (locked, then lane), then every record as same, regressed, improved,\n"
    "status-changed, added or removed, with both ranked times and their ratio. Timings are\n"
    "compared only on one lane that is not a CPU lane; elsewhere a record is decided by its\n"
    "outcome. Nothing is written: a baseline changes only through `ratchet promote`.\n"
    "docs/compare.md describes the categories.\n"
    "\n"
    "options:\n"
    "  --markdown       print GitHub Markdown (for a pull request) instead of plain text\n"
    "  --relative R     a timing differs when |B - A| > max(R * A, M); default 0.05\n"
    "  --absolute-ms M  default 0.1\n"
    "  --data DIR       where the datasets are, searched first, to re-count the calls' labels\n"
    "\n"
    "exit codes: 0 both stand, the locked contracts equal and every record the same;\n"
    "            1 anything differs, or either does not stand (its findings are listed first);\n"
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

// The contract a side is compared by: contract.json; for a sharded run, the locked part run.json
// holds and the lane of its first shard (every shard's is that lane: VerifyShard).
Json ContractOf(const std::string& dir, bool sharded) {
  if (!sharded) {
    Result<EvidenceSummary> summary = ReadEvidence(dir);
    return summary.ok() ? summary->contract : Json();
  }
  Result<ShardedRun> run = ReadShardedRun(dir);
  if (!run.ok()) return Json();
  Json contract = {{kContractLocked, run->locked}};
  for (const ShardedRunShard& shard : run->shards) {
    Result<EvidenceSummary> summary = ReadEvidence(ShardFolder(dir, shard.shard.id));
    if (summary.ok() && summary->contract.is_object() &&
        summary->contract.contains(kContractLane)) {
      contract[kContractLane] = summary->contract[kContractLane];
      break;
    }
  }
  return contract;
}

// `dir` verified, as one side of the comparison: what its files say of the run, what breaks it,
// and its records as re-derived from their calls. Evidence no rule set here can judge is a side
// that does not stand, saying why; what is not a run's evidence at all is an error.
Result<ComparedSide> VerifiedSide(const std::string& dir, const EvidenceAuditOptions& options) {
  Result<AuditResult> audit = VerifyEvidenceToShow(dir, options);
  if (!audit.ok()) return audit.status();
  const bool sharded = IsShardedRun(dir);
  ComparedSide compared;
  EvidenceSide& side = compared.side;
  side.path = dir;
  if (sharded) {
    Result<ShardedRun> run = ReadShardedRun(dir);
    side.status = run.ok() ? run->state : "unknown";
    if (run.ok()) side.exit_code = run->exit_code, side.message = run->message;
  } else {
    Result<EvidenceSummary> summary = ReadEvidence(dir);
    side.status = summary.ok() ? summary->status : "unknown";
    if (summary.ok()) side.exit_code = summary->exit_code, side.message = summary->message;
  }
  side.problems = BreakingFindingLines(*audit);
  side.complete = audit->verdict() == AuditVerdict::kStands;
  for (const auto& [id, record] : audit->records) {
    compared.records.emplace(id, EntryOfAudited(record));
  }
  compared.contract = ContractOf(dir, sharded);
  return compared;
}

int Run(CommandContext& context) {
  auto fail = [&](const Status& status) { return ReportError(context.err, "compare", status); };
  Result<Args> args =
      Args::Parse(context.argv, {{"markdown", false},
                                 {"relative", true},
                                 {"absolute-ms", true},
                                 {"data", true}});
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

  EvidenceAuditOptions verify;
  verify.data_dir = args->Get("data");
  // Both are verified before either error is reported, so that one run names every bad path.
  Result<ComparedSide> a = VerifiedSide(paths[0], verify);
  Result<ComparedSide> b = VerifiedSide(paths[1], verify);
  if (!a.ok() || !b.ok()) {
    int code = kExitSuccess;
    for (const Result<ComparedSide>* side : {&a, &b}) {
      if (!side->ok()) code = std::max(code, fail(side->status()));
    }
    return code;
  }
  Comparison comparison = CompareEvidence(*a, *b, options);
  context.out << (args->Has("markdown") ? RenderComparisonMarkdown(comparison, options)
                                        : RenderComparisonText(comparison, options));
  context.out.flush();
  return comparison.Same() ? kExitSuccess : kExitFinding;
}

}  // namespace

int RunCompare(CommandContext& context) { return Run(context); }

}  // namespace ratchet
