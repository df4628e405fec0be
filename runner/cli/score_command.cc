// `ratchet score`: scores one submission as the rule set's protocol does, every timed call in a
// fresh sandboxed worker, prints a line per call, the summary and the ranked time, and leaves a
// complete evidence directory.
#include <sys/stat.h>

#include <memory>
#include <string>

#include "baseline/input_file.h"
#include "cli/commands.h"
#include "cli/score_args.h"
#include "cli/scorer_client.h"
#include "core/args.h"
#include "core/exit_codes.h"
#include "rules/pyformat.h"
#include "rules/rule_set.h"

namespace ratchet {

const char kScoreUsage[] =
    "usage: ratchet score FILE[:function] [--difficulty N | --band BP] [--runs N] [--out DIR]\n"
    "                     [--no-energy] [--data DIR] [--python PATH] [--rules ID|FILE]\n"
    "                     [--sign KEY]\n"
    "\n"
    "Scores one submission: a Python method file (FILE.py, the function named or the single\n"
    "top-level one) or a native one (FILE.cpp, defining method() with RATCHET_METHOD). Every "
    "timed\n"
    "call runs in a fresh sandboxed worker; docs/scoring.md describes a run step by step.\n"
    "Prints a line per call, the summary and the ranked time, and writes the evidence directory.\n"
    "On a GPU, the first run that qualifies is followed by the energy column (docs/energy.md):\n"
    "one more worker runs the method back to back between idle windows while the board's energy\n"
    "counter is read; it never changes the outcome.\n"
    "\n"
    "  --difficulty N  the error band of difficulty N (1-5; default 1: 5.40%)\n"
    "  --band BP       the error band in basis points instead (1-9999; 540 = 5.40%)\n"
    "  --runs N        score it N times (default 1); the ranked time is the median\n"
    "  --out DIR       the evidence directory, which must not exist\n"
    "                  (default: evidence/score-<UTC time>-<seed commit prefix>)\n"
    "  --no-energy     skip the energy column on a GPU (energy.json then says so)\n"
    "  --sign KEY      sign the evidence's manifest with the private key KEY (`ratchet key new`;\n"
    "                  default: $RATCHET_SIGNING_KEY, when set), as the last step before the\n"
    "                  directory takes its name: SIGNATURE.json (docs/evidence.md)\n"
    "  --data DIR      search DIR first for datasets (see `ratchet datasets --help`)\n"
    "  --python PATH   the interpreter for Python submissions, recorded in the lane for native "
    "ones\n"
    "                  too (default: $RATCHET_PYTHON, else the first python3 on PATH that has\n"
    "                  torch)\n"
    "  --rules ID|FILE the rule set: the id of one compiled in,\n"
    "                  mnist-a100/1.5.0 (the default: the reference scorer's rules plus a\n"
    "                  telemetry band for the board named NVIDIA H200 and the sandbox's limits\n"
    "                  written out), mnist-a100/1.4.0 (the same with the limits unwritten, at\n"
    "                  those values), mnist-a100/1.3.0 (that band for every name starting so)\n"
    "                  or mnist-a100/1.2.0 (the reference scorer's own), or a rule-set file\n"
    "                  (docs/rules.md)\n"
    "\n"
    "exit codes: 0 qualified; 1 disqualified (every problem printed); 2 bad usage or input;\n"
    "            3 the harness could not run it (no dataset, no worker); 130 interrupted\n";

namespace {

int Run(CommandContext& context) {
  auto fail = [&](const Status& status) { return ReportError(context.err, "score", status); };
  Result<Args> args = Args::Parse(context.argv, {{"difficulty", true},
                                                 {"band", true},
                                                 {"runs", true},
                                                 {"out", true},
                                                 {"data", true},
                                                 {"python", true},
                                                 {"rules", true},
                                                 {"no-energy", false},
                                                 {"sign", true}});
  if (!args.ok()) return fail(args.status());
  if (args->positional().size() != 1) {
    return fail(Status::Usage(args->positional().empty()
                                  ? "name a method file: FILE.py[:function] or FILE.cpp"
                                  : "name one method file, not " +
                                        std::to_string(args->positional().size())));
  }
  if (args->Has("difficulty") && args->Has("band")) {
    return fail(Status::Usage("give --difficulty or --band, not both"));
  }
  Result<RuleSet> rules = LoadRuleSet(args->Get("rules"));
  if (!rules.ok()) return fail(rules.status());
  int64_t band_bp = 0;
  if (args->Has("band")) {
    Result<int64_t> band = ParseCount("band", *args->Get("band"), 1, 9999);
    if (!band.ok()) return fail(band.status());
    band_bp = *band;
  } else {
    Result<int64_t> difficulty =
        ParseCount("difficulty", args->Get("difficulty").value_or("1"), 1, 1000);
    if (!difficulty.ok()) return fail(difficulty.status());
    Result<int64_t> band = rules->BandForDifficulty(*difficulty);
    if (!band.ok()) return fail(Status::Usage(band.status().message()));
    band_bp = *band;
  }
  Result<int64_t> runs = ParseCount("runs", args->Get("runs").value_or("1"), 1, 100);
  if (!runs.ok()) return fail(runs.status());

  RecordSpec record;
  record.spec = args->positional().front();
  record.band_bp = band_bp;
  record.id = RecordIdOf(SpecFile(record.spec));
  Status crosses = CheckRecordCrosses(record);
  if (!crosses.ok()) return fail(crosses);
  // A method file that is missing, a folder, a FIFO or a device is bad input before any
  // evidence is begun (in the scorer's words for the first two).
  const std::string file = SpecFile(record.spec);
  Status regular = CheckNotSpecialFile(file, "the method file");
  if (!regular.ok()) return fail(regular);
  struct stat info;
  if (stat(file.c_str(), &info) != 0 || !S_ISREG(info.st_mode)) {
    return fail(Status::BadInput("no method file at " + file));
  }
  if (Status size = CheckMethodFile(file, "the method file"); !size.ok()) return fail(size);

  SessionOptions options = SessionOptionsFromArgs(*args, "score");
  options.needs_python = !IsNativeSpec(record.spec);
  Result<std::optional<std::string>> signing_key = SigningKeyFromArgs(*args);
  if (!signing_key.ok()) return fail(signing_key.status());
  options.signing_key = *signing_key;
  Result<std::unique_ptr<ScorerClient>> session = ScorerClient::Begin(options, context);
  if (!session.ok()) {
    if (!ScorerInterrupted()) return fail(session.status());
    context.err << "ratchet score: interrupted\n";
    return kExitInterrupted;
  }

  Result<RecordResult> result = (*session)->Score(record, static_cast<int>(*runs));
  if (!result.ok()) return (*session)->Fail(result.status());
  if (result->harness_error) return (*session)->Fail(*result->harness_error);
  if (result->interrupted || (*session)->interrupted()) return (*session)->Interrupt();
  const bool qualified = result->qualified;
  if (qualified && result->ranked.size() > 1) {
    context.out << "ranked time, median of " << result->ranked.size()
                << " runs: " << FormatFixed(*result->ranked_ms(), 3) << " ms\n";
  }
  Status completed = (*session)->Complete(Json::object(), qualified ? kExitSuccess : kExitFinding,
                                          qualified ? "qualified" : "disqualified");
  if (!completed.ok()) return kExitHarness;
  return qualified ? kExitSuccess : kExitFinding;
}

}  // namespace

int RunScore(CommandContext& context) { return Run(context); }

}  // namespace ratchet
