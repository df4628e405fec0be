// `ratchet run --baseline FILE`: scores every record of a baseline (or those named) into one
// evidence directory, then holds the outcomes to the baseline and reports every error, each with
// its code (docs/baseline.md), before it exits.
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <filesystem>
#include <iomanip>
#include <map>
#include <memory>
#include <sstream>
#include <string>
#include <vector>

#include "shard/reviewed_evidence.h"
#include "baseline/baseline.h"
#include "baseline/input_file.h"
#include "baseline/ratchet.h"
#include "baseline/ratchet_report.h"
#include "cli/commands.h"
#include "cli/run_report.h"
#include "cli/run_sharded.h"
#include "cli/score_args.h"
#include "cli/scorer_client.h"
#include "cli/tool_sha256.h"
#include "cli/verified_markdown.h"
#include "compare/terminal_text.h"
#include "contract/contract_view.h"
#include "core/args.h"
#include "core/exit_codes.h"
#include "core/file.h"
#include "core/sha256.h"
#include "core/version.h"
#include "evidence/layout.h"
#include "evidence/manifest.h"
#include "evidence/reader.h"
#include "rules/pyformat.h"
#include "rules/rule_set.h"

namespace ratchet {

const char kRunUsage[] =
    "usage: ratchet run --baseline FILE [--record ID ...] [--runs N] [--out DIR] [--require-lane]\n"
    "                   [--no-energy] [--json] [--data DIR] [--python PATH] [--rules ID|FILE]\n"
    "                   [--sign KEY] [--markdown FILE]\n"
    "                   [--executor local|slurm [EXECUTOR OPTIONS]]\n"
    "       ratchet run --resume DIR [--json] [--sign KEY] [--markdown FILE]\n"
    "                   [--executor local|slurm [EXECUTOR OPTIONS]]\n"
    "\n"
    "Scores every record of the baseline FILE (records.json; docs/baseline.md), or the records\n"
    "named, each timed call in a fresh sandboxed worker, into one evidence directory; then\n"
    "compares the contract and every outcome and timing with the reviewed baseline and lists\n"
    "every difference with its code before it exits. A time outside its tolerance, or an outcome\n"
    "that differs from the reviewed one by timing rules alone (timing-call, timing-group,\n"
    "dispersion-slow, dispersion-fast), is scored once more, and reported as spurious when it\n"
    "does not reproduce (on a CPU lane, whose timings are never compared, an outcome that\n"
    "differs by timing rules alone again is a note, not a difference); a time that stays\n"
    "outside names the board the reviewed time was scored on and this run's, as a lane holds\n"
    "every board of its kind. On a GPU, a record's first run that qualifies is followed by its\n"
    "energy column (docs/energy.md), which never changes an outcome.\n"
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
    "  --sign KEY       sign the evidence's manifest with the private key KEY (`ratchet key new`;\n"
    "                   default: $RATCHET_SIGNING_KEY, when set) as the last step before the\n"
    "                   directory takes its name (a sharded run: each shard's MANIFEST.json\n"
    "                   as soon as it is verified, and the run's when it is collected, all\n"
    "                   with KEY); SIGNATURE.json, docs/evidence.md\n"
    "  --markdown FILE  also write the run's summary for a pull request to FILE (as `ratchet\n"
    "                   report DIR --markdown FILE` writes it)\n"
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
    "A sharded run (docs/distributed.md): with --executor, each run of each record is a shard,\n"
    "scored by a scorer process of its own into DIR/shards/<id>, verified, and collected into\n"
    "DIR (run.json, MANIFEST.json); a shard whose scorer died, whose job failed or whose folder\n"
    "fails verification is scored again, an outcome never is. Its energy column is measured\n"
    "after each record's run 1 (other shards' energy.json say it was skipped).\n"
    "  --executor local|slurm  local: on this host, one shard at a time on each GPU (or --jobs\n"
    "                   on a CPU lane); slurm: each shard a task of a Slurm job array\n"
    "  --devices all|LIST  local, GPU lanes: the GPUs by index (0,2; default: all of them)\n"
    "  --jobs N         local, CPU lanes: shards side by side (default 1)\n"
    "  --attempts N     attempts at a shard before the run fails (default 3)\n"
    "  --slurm-folder DIR  slurm: a folder every node sees at the same path (job scripts,\n"
    "                   logs); the run's directory, the build and the data must be seen too\n"
    "  --partition P, --account A, --time-limit MINUTES, --gpus-per-shard N  slurm: passed to\n"
    "                   sbatch (default: the cluster's; one GPU a shard on a GPU lane)\n"
    "  --resume DIR     go on with the sharded run DIR, which was interrupted or failed: its\n"
    "                   shards that still verify (in a signed run, signed by its key: give the\n"
    "                   --sign KEY it began with) are kept, the others scored, then collected;\n"
    "                   its inputs are its own (the baseline must be unchanged). A collected\n"
    "                   run is never resumed, nor one whose MANIFEST.json is gone\n"
    "\n"
    "exit codes: 0 every record as the baseline expects; 1 a difference (each printed with its\n"
    "            code); 2 bad usage or input (a malformed baseline, a missing submission);\n"
    "            3 the harness could not do its work; 130 interrupted\n";

namespace {

// Whether `path` lies inside the folder `folder` (which need not exist yet), as paths go.
bool IsInside(const std::string& path, const std::string& folder) {
  std::error_code error;
  const std::filesystem::path file = std::filesystem::absolute(path, error).lexically_normal();
  const std::filesystem::path dir = std::filesystem::absolute(folder, error).lexically_normal();
  if (error) return false;
  auto d = dir.begin(), f = file.begin();
  for (; d != dir.end() && f != file.end(); ++d, ++f) {
    if (d->empty()) break;  // a trailing separator
    if (*d != *f) return false;
  }
  return (d == dir.end() || d->empty()) && f != file.end();
}

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

}  // namespace

void PrintRunOutcome(const RunRequest& request, const RunOutcome& outcome,
                     CommandContext& context) {
  const RatchetResult& ratchet = outcome.ratchet;
  if (request.markdown) {
    // Read back from the evidence and verified, as `ratchet report` does: what the reviewer sees
    // is what the evidence's calls give.
    EvidenceAuditOptions verify;
    verify.rules_path = request.options.rules_path;
    verify.data_dir = request.options.data_dir;
    Result<VerifiedMarkdown> markdown = MarkdownOfVerified(outcome.evidence, verify);
    Status written = markdown.ok() ? WriteFileAtomic(*request.markdown, markdown->text)
                                   : markdown.status();
    if (written.ok() && !markdown->stands) {
      context.err << "ratchet run: " << outcome.evidence
                  << " does not stand as `ratchet audit` verifies it; the summary says so first\n";
    }
    if (!written.ok()) {
      context.err << "ratchet run: the Markdown summary was not written: " << written.message()
                  << "\n";
    } else if (!request.json) {
      context.err << "summary: " << *request.markdown << "\n";
    }
  }
  if (request.json) {
    Json errors = Json::array();
    for (const RatchetError& error : ratchet.errors) {
      errors.push_back(
          {{"code", error.code}, {"record", error.record}, {"message", error.message}});
    }
    Json out = {{"evidence", outcome.evidence},
                {"baseline", request.baseline_path},
                {"lane", outcome.lane},
                {"lane_reviewed", ratchet.lane_reviewed},
                {"errors", errors},
                {"notes", ratchet.notes},
                {"records", ReportRecordsJson(outcome.records)},
                {"exit_code", outcome.exit_code}};
    context.out << out.dump(2) << "\n";
    return;
  }
  context.out << "\n"
              << Padded("record", 16) << Padded("expected", 36) << Padded("scored", 36)
              << "ranked_ms\n";
  for (const std::string& id : outcome.inputs.selected) {
    const BaselineRecord& record = request.baseline.records.at(id);
    const ScoredRecord& scored = outcome.inputs.scored.at(id);
    // A record id or rule id of a claim on one line, as every string from outside.
    context.out << Padded(TerminalText(id), 16)
                << Padded(record.expected ? TerminalText(OutcomeText(*record.expected))
                                          : "(unreviewed)",
                          36)
                << Padded(TerminalText(OutcomeText(scored.outcome)), 36) << MsText(scored.ranked_ms)
                << (scored.rerun_ranked_ms ? ", again " + MsText(scored.rerun_ranked_ms) : "")
                << "\n";
  }
  for (const std::string& note : ratchet.notes) {
    context.out << "note: " << TerminalText(note) << "\n";
  }
  if (ratchet.errors.empty()) {
    context.out << "ok: every record as " << request.baseline_path << " expects\n";
  } else {
    context.out << ratchet.errors.size() << " difference(s) from " << request.baseline_path
                << ":\n";
    for (const RatchetError& error : ratchet.errors) {
      context.out << "  " << TerminalText(error.code)
                  << (error.record.empty() ? "" : " " + TerminalText(error.record)) << ": "
                  << TerminalText(error.message) << "\n";
    }
  }
}

namespace {

// A comma-separated list of GPU indices ("0,2"), or "all".
Result<std::vector<std::string>> ParseDevices(const std::string& text) {
  std::vector<std::string> devices;
  if (text == "all") return devices;
  std::string current;
  for (size_t i = 0; i <= text.size(); ++i) {
    if (i == text.size() || text[i] == ',') {
      if (current.empty() || current.size() > 3 ||
          !std::all_of(current.begin(), current.end(), [](char c) { return c >= '0' && c <= '9'; })) {
        return Status::Usage("--devices is \"all\" or GPU indices separated by commas (0,2), not \"" +
                             text + "\"");
      }
      if (std::find(devices.begin(), devices.end(), current) != devices.end()) {
        return Status::Usage("--devices names GPU " + current + " twice");
      }
      devices.push_back(current);
      current.clear();
    } else {
      current += text[i];
    }
  }
  return devices;
}

// The options of a sharded run, when --executor (or --resume) asks for one; nullopt for the
// direct run. Options of one executor given with the other are usage errors.
Result<std::optional<ShardedRunOptions>> ShardedOptionsFromArgs(const Args& args) {
  const bool sharded = args.Has("executor") || args.Has("resume");
  const char* flags[] = {"devices",   "jobs",    "attempts",   "slurm-folder",
                         "partition", "account", "time-limit", "gpus-per-shard"};
  if (!sharded) {
    for (const char* flag : flags) {
      if (args.Has(flag)) {
        return Status::Usage(std::string("--") + flag +
                             " is an option of a sharded run: add --executor local or slurm");
      }
    }
    return std::optional<ShardedRunOptions>();
  }
  if (args.Has("resume") && !args.Has("executor")) {
    for (const char* flag : flags) {
      if (args.Has(flag)) {
        return Status::Usage(std::string("--") + flag +
                             " changes how the run goes on: name its executor as well");
      }
    }
    return std::optional<ShardedRunOptions>();  // the run's own, from run.json
  }
  ShardedRunOptions options;
  options.executor = *args.Get("executor");
  if (options.executor != "local" && options.executor != "slurm") {
    return Status::Usage("--executor is local or slurm, not \"" + options.executor + "\"");
  }
  const bool slurm = options.executor == "slurm";
  for (const char* flag : {"slurm-folder", "partition", "account", "time-limit",
                           "gpus-per-shard"}) {
    if (!slurm && args.Has(flag)) {
      return Status::Usage(std::string("--") + flag + " is an option of --executor slurm");
    }
  }
  for (const char* flag : {"devices", "jobs"}) {
    if (slurm && args.Has(flag)) {
      return Status::Usage(std::string("--") + flag +
                           " is an option of --executor local (Slurm places the shards)");
    }
  }
  if (args.Has("devices")) {
    Result<std::vector<std::string>> devices = ParseDevices(*args.Get("devices"));
    if (!devices.ok()) return devices.status();
    options.devices = *devices;
  }
  if (args.Has("jobs")) {
    // A scorer holds one of the host's eight sandbox slots.
    Result<int64_t> jobs = ParseCount("jobs", *args.Get("jobs"), 1, 8);
    if (!jobs.ok()) return jobs.status();
    options.jobs = static_cast<int>(*jobs);
  }
  if (args.Has("attempts")) {
    Result<int64_t> attempts = ParseCount("attempts", *args.Get("attempts"), 1, 10);
    if (!attempts.ok()) return attempts.status();
    options.max_attempts = static_cast<int>(*attempts);
  }
  if (slurm) {
    if (!args.Has("slurm-folder")) {
      return Status::Usage(
          "--executor slurm needs --slurm-folder DIR: a folder every node of the cluster sees "
          "at the same path (the run's directory must be on it too)");
    }
    options.slurm.folder = *args.Get("slurm-folder");
    options.slurm.partition = args.Get("partition").value_or("");
    options.slurm.account = args.Get("account").value_or("");
    if (args.Has("time-limit")) {
      Result<int64_t> minutes = ParseCount("time-limit", *args.Get("time-limit"), 1, 10080);
      if (!minutes.ok()) return minutes.status();
      options.slurm.time_minutes = static_cast<int>(*minutes);
    }
    if (args.Has("gpus-per-shard")) {
      Result<int64_t> gpus = ParseCount("gpus-per-shard", *args.Get("gpus-per-shard"), 0, 8);
      if (!gpus.ok()) return gpus.status();
      options.slurm.gpus = static_cast<int>(*gpus);
    }
  }
  return std::optional<ShardedRunOptions>(options);
}

// Checks what a run is asked (from the command line, or from a sharded run's run.json on
// --resume) and reads the baseline: a RunRequest, or the usage or input error.
Result<RunRequest> CheckRunRequest(const std::string& baseline_path,
                                   const std::vector<std::string>& asked,
                                   std::optional<int64_t> runs_flag, SessionOptions options,
                                   bool require_lane, bool json) {
  RunRequest request;
  request.baseline_path = baseline_path;
  request.asked = asked;
  request.runs_flag = runs_flag;
  request.require_lane = require_lane;
  request.json = json;
  request.options = std::move(options);
  // What promote checks: the baseline has not changed since this run compared with it (the
  // sha256 of the very bytes parsed).
  Result<Baseline> baseline = LoadBaseline(baseline_path, &request.baseline_sha256);
  if (!baseline.ok()) return baseline.status();
  request.baseline = std::move(*baseline);
  request.folder = DirName(baseline_path);
  Result<RuleSet> rules = LoadRuleSet(request.options.rules_path);
  if (!rules.ok()) return rules.status();

  std::vector<std::string> selected = asked;
  for (size_t i = 0; i < selected.size(); ++i) {
    if (std::find(selected.begin(), selected.begin() + i, selected[i]) != selected.begin() + i) {
      return Status::Usage("--record " + selected[i] + " is given twice");
    }
  }
  if (selected.empty()) {
    for (const auto& [id, record] : request.baseline.records) selected.push_back(id);
  }
  if (selected.empty()) return Status::BadInput(baseline_path + " holds no records");
  bool needs_python = false;
  for (const std::string& id : selected) {
    auto found = request.baseline.records.find(id);
    if (found == request.baseline.records.end()) {
      std::string known;
      for (const auto& [name, record] : request.baseline.records)
        known += (known.empty() ? "" : ", ") + name;
      return Status::Usage("no record \"" + id + "\" in " + baseline_path + "; its records: " +
                           known);
    }
    const BaselineRecord& record = found->second;
    const std::string file = InBaselineFolder(request.folder, record.submission);
    // What would stop the record before any worker is bad input, refused before any evidence.
    const std::string where = baseline_path + ": record \"" + id + "\"";
    Status present = CheckMethodFile(file, "record \"" + id + "\": its submission");
    if (!present.ok()) return present;
    const bool native = file.size() > 4 && file.compare(file.size() - 4, 4, ".cpp") == 0;
    if (!native && (file.size() < 3 || file.compare(file.size() - 3, 3, ".py") != 0)) {
      return Status::BadInput(where + ": " + record.submission +
                              " is neither a Python method file (.py) nor a native one (.cpp)");
    }
    if (native && !record.function.empty() && record.function != "method") {
      return Status::BadInput(where + ": a native submission's function is \"method\", not \"" +
                              record.function + "\"");
    }
    Status name = CheckEvidencePath(BaseName(file));
    if (!name.ok()) return Status::BadInput(where + ": " + name.message());
    RecordSpec spec;
    spec.id = id;
    spec.spec = record.function.empty() ? file : file + ":" + record.function;
    if (record.band_bp) {
      spec.band_bp = *record.band_bp;
    } else {
      Result<int64_t> band = rules->BandForDifficulty(*record.difficulty);
      if (!band.ok()) return Status::BadInput(where + ": " + band.status().message());
      spec.band_bp = *band;
    }
    Status crosses = CheckRecordCrosses(spec);
    if (!crosses.ok()) return Status::BadInput(where + ": " + crosses.message());
    needs_python = needs_python || !IsNativeSpec(spec.spec);
    request.specs[id] = spec;
  }
  request.selected = selected;
  request.options.needs_python = needs_python;
  return request;
}

// The run in one scorer session, record after record.
int RunDirect(RunRequest& request, CommandContext& context) {
  auto fail = [&](const Status& status) { return ReportError(context.err, "run", status); };
  // With --json the progress goes to stderr, so that stdout holds the JSON alone.
  CommandContext progress{context.argv, request.json ? context.err : context.out, context.err};
  Result<std::unique_ptr<ScorerClient>> begun = ScorerClient::Begin(request.options, progress);
  if (!begun.ok()) {
    if (!ScorerInterrupted()) return fail(begun.status());
    context.err << "ratchet run: interrupted\n";
    return kExitInterrupted;
  }
  ScorerClient& session = **begun;
  const std::string kind = session.device_kind();
  const bool gpu = kind != "cpu";
  const Baseline& baseline = request.baseline;

  RunOutcome outcome;
  RatchetInputs& inputs = outcome.inputs;
  inputs.rule_set = session.rule_set();
  inputs.require_lane = request.require_lane;
  std::vector<std::string> notes;
  for (const std::string& id : request.selected) {
    const BaselineRecord& record = baseline.records.at(id);
    if (record.device && !gpu) {
      notes.push_back(id + ": not scored: it runs on GPU lanes only, and this lane's device is " +
                      kind);
      continue;
    }
    inputs.selected.push_back(id);
    const RecordSpec& spec = request.specs.at(id);
    const int runs = RunsOf(request, id, gpu);
    progress.out << "record " << id << "\n";
    Result<RecordResult> result = session.Score(spec, runs);
    if (!result.ok()) return session.Fail(result.status());
    if (result->harness_error) return session.Fail(*result->harness_error);
    if (result->interrupted || session.interrupted()) return session.Interrupt();
    ReportRecord entry{result->ReportOf(spec.band_bp), std::nullopt};
    Status contract_written = session.WriteContract();
    if (session.contract().is_null()) return session.Fail(contract_written);
    const std::string lane = ContractView(session.contract()).lane_id().value_or("");
    const Scoring first{result->source_sha256,
                        {result->qualified ? "qualified" : "disqualified", result->broken()},
                        result->ranked_ms()};
    // An outcome that differs from the reviewed one by timing rules alone (on any lane), or a
    // time outside its tolerance on a reviewed GPU lane, is scored once more before it counts.
    const ScoreAgain why = WhetherToScoreAgain(baseline, id, lane, gpu, first);
    std::optional<Scoring> second;
    if (why != ScoreAgain::kNo) {
      progress.out << ScoreAgainLine(baseline, id, lane, why, first);
      Result<RecordResult> again = session.Score(spec, runs, runs + 1);
      if (!again.ok()) return session.Fail(again.status());
      if (again->harness_error) return session.Fail(*again->harness_error);
      if (again->interrupted || session.interrupted()) return session.Interrupt();
      second = Scoring{again->source_sha256,
                       {again->qualified ? "qualified" : "disqualified", again->broken()},
                       again->ranked_ms()};
      entry.rerun = again->ReportOf(spec.band_bp);
    }
    inputs.scored[id] = CombineScorings(why, first, second);
    outcome.records[id] = entry;
  }
  if (session.interrupted()) return session.Interrupt();
  (void)session.WriteContract();
  inputs.contract = session.contract();
  outcome.evidence = session.evidence_path();
  HoldToBaseline(request, notes, &outcome);
  Status completed = session.Complete(
      Json{{kRatchetReportKey, RatchetPartOf(request, outcome)}}, outcome.exit_code,
      outcome.ratchet.errors.empty()
          ? "as the baseline expects"
          : std::to_string(outcome.ratchet.errors.size()) + " difference(s) from the baseline");
  if (!completed.ok()) return kExitHarness;
  PrintRunOutcome(request, outcome, context);
  return outcome.exit_code;
}

Result<RunRequest> CheckResumedRequest(const RunInputs& inputs, bool json) {
  SessionOptions options;
  options.command = "run";
  options.out_prefix = "run";
  options.data_dir = inputs.data;
  options.python = inputs.python;
  options.rules_path = inputs.rules;
  options.out = inputs.out;
  options.energy = inputs.energy;
  options.tool_version = kRatchetVersion;
  options.tool_source_sha256 = ToolSourceSha256();
  Result<RunRequest> request = CheckRunRequest(inputs.baseline, inputs.records, inputs.runs,
                                               options, inputs.require_lane, json);
  if (!request.ok()) return request;
  if (request->baseline_sha256 != inputs.baseline_sha256) {
    return Status::BadInput(request->baseline_path +
                            " has changed since the run began: a resumed run holds its "
                            "records to the baseline it was planned against. Restore it, or "
                            "begin a new run");
  }
  return request;
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
                                                 {"no-energy", false},
                                                 {"sign", true},
                                                 {"markdown", true},
                                                 {"executor", true},
                                                 {"devices", true},
                                                 {"jobs", true},
                                                 {"attempts", true},
                                                 {"resume", true},
                                                 {"slurm-folder", true},
                                                 {"partition", true},
                                                 {"account", true},
                                                 {"time-limit", true},
                                                 {"gpus-per-shard", true}});
  if (!args.ok()) return fail(args.status());
  if (!args->positional().empty()) {
    return fail(Status::Usage("unexpected argument '" + args->positional().front() + "'"));
  }
  Result<std::optional<ShardedRunOptions>> sharded = ShardedOptionsFromArgs(*args);
  if (!sharded.ok()) return fail(sharded.status());
  const bool json = args->Has("json");
  Result<std::optional<std::string>> signing_key = SigningKeyFromArgs(*args);
  if (!signing_key.ok()) return fail(signing_key.status());
  // The summary replaces a file, never a folder: said before any scoring, not after.
  if (args->Has("markdown") && IsDirectory(*args->Get("markdown"))) {
    return fail(Status::Usage("--markdown " + *args->Get("markdown") +
                              " is a folder: name the file to write the summary to"));
  }
  // The summary is not written into the evidence: a file the run did not write there would
  // make it fail its audit.
  if (args->Has("markdown")) {
    const std::optional<std::string> into =
        args->Has("resume") ? args->Get("resume") : args->Get("out");
    if (into && IsInside(*args->Get("markdown"), *into)) {
      return fail(Status::Usage("--markdown " + *args->Get("markdown") + " is inside " + *into +
                                ", the run's evidence, which holds only what the run writes: "
                                "name a file outside it"));
    }
  }
  if (args->Has("resume")) {
    if (Status checked = CheckInputTree(*args->Get("resume"), "the run's directory");
        !checked.ok()) {
      return fail(checked);
    }
    for (const char* flag : {"baseline", "record", "runs", "out", "require-lane", "data",
                             "python", "rules", "no-energy"}) {
      if (args->Has(flag)) {
        return fail(Status::Usage(std::string("--resume goes on with the run's own inputs "
                                              "(its run.json): leave out --") +
                                  flag));
      }
    }
    return ResumeSharded(*args->Get("resume"), *sharded, json, *signing_key, args->Get("markdown"),
                         context, CheckResumedRequest);
  }
  if (!args->Has("baseline")) {
    return fail(
        Status::Usage("name the baseline: --baseline FILE (for example baselines/records.json)"));
  }
  std::optional<int64_t> runs_flag;
  if (args->Has("runs")) {
    Result<int64_t> runs = ParseCount("runs", *args->Get("runs"), 1, 100);
    if (!runs.ok()) return fail(runs.status());
    runs_flag = *runs;
  }
  Result<RunRequest> request =
      CheckRunRequest(*args->Get("baseline"), args->GetAll("record"), runs_flag,
                      SessionOptionsFromArgs(*args, "run"), args->Has("require-lane"), json);
  if (!request.ok()) return fail(request.status());
  request->options.signing_key = *signing_key;
  request->markdown = args->Get("markdown");
  if (*sharded) return RunSharded(*request, **sharded, context);
  return RunDirect(*request, context);
}

}  // namespace

int RunRun(CommandContext& context) { return Run(context); }

}  // namespace ratchet
