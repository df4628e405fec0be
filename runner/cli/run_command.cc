// `ratchet run --baseline FILE`: scores every record of a baseline (or those named) into one
// evidence directory, then holds the outcomes to the baseline and reports every error, each with
// its code (docs/baseline.md), before it exits.
#include <algorithm>
#include <iomanip>
#include <map>
#include <memory>
#include <sstream>
#include <string>
#include <vector>

#include "baseline/baseline.h"
#include "baseline/input_file.h"
#include "baseline/ratchet.h"
#include "baseline/ratchet_report.h"
#include "cli/commands.h"
#include "cli/score_args.h"
#include "cli/scorer_client.h"
#include "contract/contract_view.h"
#include "core/args.h"
#include "core/exit_codes.h"
#include "core/file.h"
#include "core/sha256.h"
#include "evidence/layout.h"
#include "evidence/manifest.h"
#include "evidence/reader.h"
#include "rules/pyformat.h"
#include "rules/rule_set.h"

namespace ratchet {

const char kRunUsage[] =
    "usage: ratchet run --baseline FILE [--record ID ...] [--runs N] [--out DIR] [--require-lane]\n"
    "                   [--no-energy] [--json] [--data DIR] [--python PATH] [--rules ID|FILE]\n"
    "\n"
    "Scores every record of the baseline FILE (records.json; docs/baseline.md), or the records\n"
    "named, each timed call in a fresh sandboxed worker, into one evidence directory; then\n"
    "compares the contract and every outcome and timing with the reviewed baseline and lists\n"
    "every difference with its code before it exits. A time outside its tolerance, or an outcome\n"
    "that differs from the reviewed one by timing rules alone (timing-call, timing-group,\n"
    "dispersion-slow, dispersion-fast), is scored once more, and reported as spurious when it\n"
    "does not reproduce; a time that stays outside names the board the reviewed time was scored\n"
    "on and this run's, as a lane holds every board of its kind. On a GPU, a record's first run\n"
    "that qualifies is followed by its energy column (docs/energy.md), which never changes an\n"
    "outcome.\n"
    "\n"
    "  --baseline FILE  the baseline; submission and evidence paths in it are relative to its "
    "folder\n"
    "  --record ID      score this record only (repeatable; default: every record)\n"
    "  --runs N         runs per record (default: the record's \"runs\", else 1 on a CPU lane and\n"
    "                   3 on a GPU lane); a record's time is the median of its runs\n"
    "  --out DIR        the evidence directory, which must not exist\n"
    "                   (default: evidence/run-<UTC time>-<seed commit prefix>)\n"
    "  --require-lane   a lane the baseline has not reviewed is an error (default: a note)\n"
    "  --no-energy      skip the energy column on a GPU (energy.json then says so)\n"
    "  --json           print the result as JSON on stdout (progress goes to stderr)\n"
    "  --data DIR       search DIR first for datasets (see `ratchet datasets --help`)\n"
    "  --python PATH    the interpreter for Python submissions (default: $RATCHET_PYTHON, else\n"
    "                   the first python3 on PATH that has torch)\n"
    "  --rules ID|FILE  the rule set, locked in the contract: the id of one compiled in,\n"
    "                   mnist-a100/1.5.0 (the default: the reference scorer's rules plus a\n"
    "                   telemetry band for the board named NVIDIA H200 and the sandbox's limits\n"
    "                   written out), mnist-a100/1.4.0 (the same with the limits unwritten, at\n"
    "                   those values), mnist-a100/1.3.0 (that band for every name starting so)\n"
    "                   or mnist-a100/1.2.0 (the reference scorer's own), or a rule-set file\n"
    "                   (docs/rules.md)\n"
    "\n"
    "exit codes: 0 every record as the baseline expects; 1 a difference (each printed with its\n"
    "            code); 2 bad usage or input (a malformed baseline, a missing submission);\n"
    "            3 the harness could not do its work; 130 interrupted\n";

namespace {

// A time in ms as the table prints it, "-" when there is none.
std::string MsText(std::optional<double> ms) {
  if (!ms) return "-";
  std::ostringstream text;
  text << std::fixed << std::setprecision(3) << *ms;
  return text.str();
}

std::string Padded(std::string text, size_t width) {
  if (text.size() < width) text.resize(width, ' ');
  return text + "  ";
}

int Run(CommandContext& context) {
  auto fail = [&](const Status& status) { return ReportError(context.err, "run", status); };
  Result<Args> args = Args::Parse(context.argv, {{"baseline", true},
                                                 {"record", true, true},
                                                 {"runs", true},
                                                 {"out", true},
                                                 {"require-lane", false},
                                                 {"json", false},
                                                 {"data", true},
                                                 {"python", true},
                                                 {"rules", true},
                                                 {"no-energy", false}});
  if (!args.ok()) return fail(args.status());
  if (!args->positional().empty()) {
    return fail(Status::Usage("unexpected argument '" + args->positional().front() + "'"));
  }
  if (!args->Has("baseline")) {
    return fail(
        Status::Usage("name the baseline: --baseline FILE (for example baselines/records.json)"));
  }
  const std::string baseline_path = *args->Get("baseline");
  // What promote checks: the baseline has not changed since this run compared with it (the
  // sha256 of the very bytes parsed).
  std::string baseline_sha256;
  Result<Baseline> baseline = LoadBaseline(baseline_path, &baseline_sha256);
  if (!baseline.ok()) return fail(baseline.status());
  const std::string folder = DirName(baseline_path);
  Result<RuleSet> rules = LoadRuleSet(args->Get("rules"));
  if (!rules.ok()) return fail(rules.status());
  std::optional<int64_t> runs_flag;
  if (args->Has("runs")) {
    Result<int64_t> runs = ParseCount("runs", *args->Get("runs"), 1, 100);
    if (!runs.ok()) return fail(runs.status());
    runs_flag = *runs;
  }

  std::vector<std::string> selected = args->GetAll("record");
  for (size_t i = 0; i < selected.size(); ++i) {
    if (std::find(selected.begin(), selected.begin() + i, selected[i]) != selected.begin() + i) {
      return fail(Status::Usage("--record " + selected[i] + " is given twice"));
    }
  }
  if (selected.empty()) {
    for (const auto& [id, record] : baseline->records) selected.push_back(id);
  }
  if (selected.empty()) return fail(Status::BadInput(baseline_path + " holds no records"));
  std::map<std::string, RecordSpec> specs;
  bool needs_python = false;
  for (const std::string& id : selected) {
    auto found = baseline->records.find(id);
    if (found == baseline->records.end()) {
      std::string known;
      for (const auto& [name, record] : baseline->records)
        known += (known.empty() ? "" : ", ") + name;
      return fail(Status::Usage("no record \"" + id + "\" in " + baseline_path +
                                "; its records: " + known));
    }
    const BaselineRecord& record = found->second;
    const std::string file = InBaselineFolder(folder, record.submission);
    // What would stop the record before any worker is bad input, refused before any evidence.
    const std::string where = baseline_path + ": record \"" + id + "\"";
    Status present = CheckRegularInput(file, "record \"" + id + "\": its submission");
    if (!present.ok()) return fail(present);
    const bool native = file.size() > 4 && file.compare(file.size() - 4, 4, ".cpp") == 0;
    if (!native && (file.size() < 3 || file.compare(file.size() - 3, 3, ".py") != 0)) {
      return fail(
          Status::BadInput(where + ": " + record.submission +
                           " is neither a Python method file (.py) nor a native one (.cpp)"));
    }
    if (native && !record.function.empty() && record.function != "method") {
      return fail(Status::BadInput(where +
                                   ": a native submission's function is \"method\", not \"" +
                                   record.function + "\""));
    }
    Status name = CheckEvidencePath(BaseName(file));
    if (!name.ok()) return fail(Status::BadInput(where + ": " + name.message()));
    RecordSpec spec;
    spec.id = id;
    spec.spec = record.function.empty() ? file : file + ":" + record.function;
    if (record.band_bp) {
      spec.band_bp = *record.band_bp;
    } else {
      Result<int64_t> band = rules->BandForDifficulty(*record.difficulty);
      if (!band.ok()) {
        return fail(Status::BadInput(baseline_path + ": record \"" + id +
                                     "\": " + band.status().message()));
      }
      spec.band_bp = *band;
    }
    Status crosses = CheckRecordCrosses(spec);
    if (!crosses.ok()) return fail(Status::BadInput(where + ": " + crosses.message()));
    needs_python = needs_python || !IsNativeSpec(spec.spec);
    specs[id] = spec;
  }

  const bool json = args->Has("json");
  // With --json the progress goes to stderr, so that stdout holds the JSON alone.
  CommandContext progress{context.argv, json ? context.err : context.out, context.err};
  SessionOptions options = SessionOptionsFromArgs(*args, "run");
  options.needs_python = needs_python;
  Result<std::unique_ptr<ScorerClient>> begun = ScorerClient::Begin(options, progress);
  if (!begun.ok()) {
    if (!ScorerInterrupted()) return fail(begun.status());
    context.err << "ratchet run: interrupted\n";
    return kExitInterrupted;
  }
  ScorerClient& session = **begun;
  const std::string kind = session.device_kind();
  const bool gpu = kind != "cpu";

  RatchetInputs inputs;
  inputs.rule_set = session.rule_set();
  inputs.require_lane = args->Has("require-lane");
  std::map<std::string, ReportRecord> report_records;
  std::vector<std::string> notes;
  for (const std::string& id : selected) {
    const BaselineRecord& record = baseline->records.at(id);
    if (record.device && !gpu) {
      notes.push_back(id + ": not scored: it runs on GPU lanes only, and this lane's device is " +
                      kind);
      continue;
    }
    inputs.selected.push_back(id);
    const int runs = static_cast<int>(runs_flag.value_or(record.runs.value_or(gpu ? 3 : 1)));
    progress.out << "record " << id << "\n";
    Result<RecordResult> result = session.Score(specs[id], runs);
    if (!result.ok()) return session.Fail(result.status());
    if (result->harness_error) return session.Fail(*result->harness_error);
    if (result->interrupted || session.interrupted()) return session.Interrupt();
    ReportRecord entry{result->ReportOf(specs[id].band_bp), std::nullopt};
    Status contract_written = session.WriteContract();
    if (session.contract().is_null()) return session.Fail(contract_written);
    const std::string lane = ContractView(session.contract()).lane_id().value_or("");
    const Scoring first{result->source_sha256,
                        {result->qualified ? "qualified" : "disqualified", result->broken()},
                        result->ranked_ms()};
    // An outcome that differs from the reviewed one by timing rules alone (on any lane), or a
    // time outside its tolerance on a reviewed GPU lane, is scored once more before it counts.
    const ScoreAgain why = WhetherToScoreAgain(*baseline, id, lane, gpu, first);
    std::optional<Scoring> second;
    if (why != ScoreAgain::kNo) {
      if (why == ScoreAgain::kTimingRulesAlone) {
        progress.out << "record " << id << ": scored " << OutcomeText(first.outcome)
                     << ", reviewed " << OutcomeText(*record.expected)
                     << ": timing rules alone differ: scoring it again\n";
      } else {
        progress.out << "record " << id << ": " << MsText(first.ranked_ms)
                     << " ms is outside the tolerance of the reviewed "
                     << MsText(record.timing.at(lane).ranked_ms) << " ms: scoring it again\n";
      }
      Result<RecordResult> again = session.Score(specs[id], runs, runs + 1);
      if (!again.ok()) return session.Fail(again.status());
      if (again->harness_error) return session.Fail(*again->harness_error);
      if (again->interrupted || session.interrupted()) return session.Interrupt();
      second = Scoring{again->source_sha256,
                       {again->qualified ? "qualified" : "disqualified", again->broken()},
                       again->ranked_ms()};
      entry.rerun = again->ReportOf(specs[id].band_bp);
    }
    inputs.scored[id] = CombineScorings(why, first, second);
    report_records[id] = entry;
  }
  if (session.interrupted()) return session.Interrupt();
  (void)session.WriteContract();
  inputs.contract = session.contract();
  const std::string lane = ContractView(inputs.contract).lane_id().value_or("");
  // The boards the reviewed times came from, for the messages of times outside their tolerance.
  for (const std::string& id : inputs.selected) {
    inputs.reviewed_boards[id] = ReviewedBoard(*baseline, folder, lane, id);
  }

  RatchetResult ratchet = RatchetErrors(*baseline, inputs);
  for (const std::string& note : notes) ratchet.notes.push_back(note);
  // The reviewed evidence a record names must be there, whole.
  CheckReviewedEvidence(*baseline, folder, inputs.selected, &ratchet);

  Json errors = Json::array();
  for (const RatchetError& error : ratchet.errors) {
    errors.push_back({{"code", error.code}, {"record", error.record}, {"message", error.message}});
  }
  const int exit_code = ratchet.errors.empty() ? kExitSuccess : kExitFinding;
  RatchetReport part;
  part.baseline = baseline_path;
  part.baseline_sha256 = baseline_sha256;
  part.errors = ratchet.errors;
  part.notes = ratchet.notes;
  part.lane_reviewed = ratchet.lane_reviewed;
  part.contract_changed = ratchet.contract_changed;
  part.require_lane = inputs.require_lane;
  part.rule_set = session.rule_set();
  const Json extra = {{kRatchetReportKey, RatchetReportJson(part)}};
  Status completed = session.Complete(
      extra, exit_code,
      ratchet.errors.empty()
          ? "as the baseline expects"
          : std::to_string(ratchet.errors.size()) + " difference(s) from the baseline");
  if (!completed.ok()) return kExitHarness;

  if (json) {
    Json out = {{"evidence", session.evidence_path()},
                {"baseline", baseline_path},
                {"lane", lane},
                {"lane_reviewed", ratchet.lane_reviewed},
                {"errors", errors},
                {"notes", ratchet.notes},
                {"records", ReportRecordsJson(report_records)},
                {"exit_code", exit_code}};
    context.out << out.dump(2) << "\n";
    return exit_code;
  }
  context.out << "\n"
              << Padded("record", 16) << Padded("expected", 36) << Padded("scored", 36)
              << "ranked_ms\n";
  for (const std::string& id : inputs.selected) {
    const BaselineRecord& record = baseline->records.at(id);
    const ScoredRecord& scored = inputs.scored[id];
    context.out << Padded(id, 16)
                << Padded(record.expected ? OutcomeText(*record.expected) : "(unreviewed)", 36)
                << Padded(OutcomeText(scored.outcome), 36) << MsText(scored.ranked_ms)
                << (scored.rerun_ranked_ms ? ", again " + MsText(scored.rerun_ranked_ms) : "")
                << "\n";
  }
  for (const std::string& note : ratchet.notes) context.out << "note: " << note << "\n";
  if (ratchet.errors.empty()) {
    context.out << "ok: every record as " << baseline_path << " expects\n";
  } else {
    context.out << ratchet.errors.size() << " difference(s) from " << baseline_path << ":\n";
    for (const RatchetError& error : ratchet.errors) {
      context.out << "  " << error.code << (error.record.empty() ? "" : " " + error.record) << ": "
                  << error.message << "\n";
    }
  }
  return exit_code;
}

}  // namespace

int RunRun(CommandContext& context) { return Run(context); }

}  // namespace ratchet
