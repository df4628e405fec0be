// `ratchet score`: scores one submission as the rule set's protocol does, every timed call in a
// fresh sandboxed worker, prints a line per call, the summary and the ranked time, and leaves a
// complete evidence directory.
#include <signal.h>
#include <sys/random.h>

#include <atomic>
#include <cerrno>
#include <chrono>
#include <ctime>
#include <future>
#include <optional>
#include <ostream>
#include <set>
#include <sys/stat.h>

#include "cli/args.h"
#include "cli/commands.h"
#include "cli/exit_codes.h"
#include "contract/gather.h"
#include "contract/python.h"
#include "core/file.h"
#include "core/sha256.h"
#include "data/locate.h"
#include "data/pool.h"
#include "evidence/layout.h"
#include "evidence/writer.h"
#include "rules/pyformat.h"
#include "rules/rule_set.h"
#include "sandbox/lock.h"
#include "sandbox/spawn.h"
#include "scorer/prepare.h"
#include "scorer/run.h"

namespace ratchet {

const char kScoreUsage[] =
    "usage: ratchet score FILE[:function] [--difficulty N | --band BP] [--runs N] [--out DIR]\n"
    "                     [--data DIR] [--python PATH] [--rules FILE]\n"
    "\n"
    "Scores one submission: a Python method file (FILE.py, the function named or the single\n"
    "top-level one) or a native one (FILE.cpp, defining method() with RATCHET_METHOD). Every timed\n"
    "call runs in a fresh sandboxed worker; docs/scoring.md describes a run step by step.\n"
    "Prints a line per call, the summary and the ranked time, and writes the evidence directory.\n"
    "\n"
    "  --difficulty N  the error band of difficulty N (1-5; default 1: 5.40%)\n"
    "  --band BP       the error band in basis points instead (1-9999; 540 = 5.40%)\n"
    "  --runs N        score it N times (default 1); the ranked time is the median\n"
    "  --out DIR       the evidence directory, which must not exist\n"
    "                  (default: evidence/score-<UTC time>-<seed commit prefix>)\n"
    "  --data DIR      search DIR first for datasets (see `ratchet datasets --help`)\n"
    "  --python PATH   the interpreter for Python submissions, recorded in the lane for native ones\n"
    "                  too (default: $RATCHET_PYTHON, else the first python3 on PATH that imports\n"
    "                  torch)\n"
    "  --rules FILE    a rule-set file instead of the embedded mnist-a100/1.2.0\n"
    "\n"
    "exit codes: 0 qualified; 1 disqualified (every problem printed); 2 bad usage or input;\n"
    "            3 the harness could not run it (no dataset, no worker); 130 interrupted\n";

namespace {

std::atomic<bool> g_interrupted{false};

void OnSignal(int) { g_interrupted.store(true); }

std::string UtcStamp() {
  std::time_t now = std::time(nullptr);
  std::tm utc;
  gmtime_r(&now, &utc);
  char text[32];
  std::strftime(text, sizeof text, "%Y%m%dT%H%M%SZ", &utc);
  return text;
}

std::string RecordId(const std::string& path) {
  std::string stem = BaseName(path);
  size_t dot = stem.rfind('.');
  if (dot != std::string::npos && dot > 0) stem = stem.substr(0, dot);
  std::string id;
  for (char c : stem) {
    bool plain = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
                 c == '-' || c == '_' || c == '.';
    id += plain ? c : '_';
  }
  return id.empty() || id[0] == '.' ? "submission" + id : id;
}

Result<int64_t> ParseInt(const std::string& flag, const std::string& text, int64_t low, int64_t high) {
  char* end = nullptr;
  errno = 0;
  long long value = std::strtoll(text.c_str(), &end, 10);
  if (text.empty() || *end != '\0' || errno != 0 || value < low || value > high) {
    return Status::Usage("--" + flag + " must be a whole number from " + std::to_string(low) +
                         " to " + std::to_string(high) + ", not '" + text + "'");
  }
  return static_cast<int64_t>(value);
}

// The seed of run k of a record: HMAC-SHA256(run seed, "record/<id>/run/<k>").
RunSeed SeedOfRun(const RunSeed& seed, const std::string& record_id, int run) {
  std::string key = HmacSha256(seed.view(), "record/" + record_id + "/run/" + std::to_string(run));
  RunSeed out;
  std::copy(key.begin(), key.end(), out.bytes.begin());
  return out;
}

Json CallsJson(const RunOutcome& outcome) {
  Json calls = Json::array();
  int number = 0;
  for (const CallRecord& call : outcome.calls) {
    ++number;
    calls.push_back({{"call", number},
                     {"dataset", call.dataset},
                     {"draw_index", call.draw_index},
                     {"warmup_dataset", call.warmup_dataset},
                     {"warmup_draw_index", call.warmup_draw_index},
                     {"inputs_sha256", call.inputs_sha256},
                     {"ms", call.ms},
                     {"parent_ms", call.parent_ms},
                     {"overhead_ms", call.overhead_ms},
                     {"correct", call.correct},
                     {"total", call.total},
                     {"worker_exit", call.worker_exit},
                     {"log_bytes", call.log_total_bytes}});
  }
  return calls;
}

Json ProblemsJson(const std::vector<Problem>& problems) {
  Json out = Json::array();
  for (const Problem& problem : problems) out.push_back({{"rule", problem.rule}, {"message", problem.message}});
  return out;
}

Json JudgeJson(const RunOutcome& outcome) {
  Json judge = {{"problems", ProblemsJson(outcome.problems())},
                {"qualified", outcome.qualified()},
                {"ranked_ms", outcome.qualified() ? Json(outcome.judgement->ranked_ms) : Json()},
                {"summary", outcome.judgement ? Json(outcome.judgement->summary) : Json()},
                {"floored", outcome.judgement ? outcome.judgement->floored : false}};
  if (outcome.failure) judge["failed_call"] = outcome.calls.size();
  if (outcome.harness_failure) judge["harness_failure"] = outcome.harness_failure->message;
  return judge;
}

Status WriteRun(EvidenceWriter& evidence, const std::string& record_id, int run,
                const Prepared& prepared, const std::string& source, const RunOutcome& outcome) {
  const std::string folder = RunFolder(record_id, run);
  RATCHET_RETURN_IF_ERROR(
      evidence.WriteFile(folder + "/submission/" + BaseName(prepared.submission.path), source));
  RATCHET_RETURN_IF_ERROR(evidence.WriteJson(folder + "/calls.json", CallsJson(outcome)));
  RATCHET_RETURN_IF_ERROR(evidence.WriteJson(folder + "/judge.json", JudgeJson(outcome)));
  int number = 0;
  for (const CallRecord& call : outcome.calls) {
    ++number;
    if (!call.labels.empty()) {
      RATCHET_RETURN_IF_ERROR(evidence.WriteFile(folder + "/labels/" + CallNumber(number) + ".u8", call.labels));
    }
    RATCHET_RETURN_IF_ERROR(evidence.WriteFile(folder + "/logs/" + CallNumber(number) + ".log", call.log));
  }
  return Status::Ok();
}

// The folders to cover, without one inside another (covering the outer one hides it already).
std::vector<std::string> OutermostFolders(std::vector<std::string> folders) {
  std::sort(folders.begin(), folders.end());
  std::vector<std::string> out;
  for (const std::string& folder : folders) {
    if (!out.empty() && (folder == out.back() || folder.rfind(out.back() + "/", 0) == 0)) continue;
    out.push_back(folder);
  }
  return out;
}

double Median(std::vector<double> values) {
  std::sort(values.begin(), values.end());
  size_t middle = values.size() / 2;
  return values.size() % 2 ? values[middle] : 0.5 * (values[middle - 1] + values[middle]);
}

int Run(CommandContext& context) {
  auto fail = [&](const Status& status) { return ReportError(context.err, "score", status); };
  Result<Args> args = Args::Parse(context.argv, {{"difficulty", true}, {"band", true}, {"runs", true},
                                                 {"out", true}, {"data", true}, {"python", true},
                                                 {"rules", true}});
  if (!args.ok()) return fail(args.status());
  if (args->positional().size() != 1) {
    return fail(Status::Usage(args->positional().empty() ? "name a method file: FILE.py[:function] or FILE.cpp"
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
    Result<int64_t> band = ParseInt("band", *args->Get("band"), 1, 9999);
    if (!band.ok()) return fail(band.status());
    band_bp = *band;
  } else {
    Result<int64_t> difficulty = ParseInt("difficulty", args->Get("difficulty").value_or("1"), 1, 1000);
    if (!difficulty.ok()) return fail(difficulty.status());
    Result<int64_t> band = rules->BandForDifficulty(*difficulty);
    if (!band.ok()) return fail(Status::Usage(band.status().message()));
    band_bp = *band;
  }
  Result<int64_t> runs = ParseInt("runs", args->Get("runs").value_or("1"), 1, 100);
  if (!runs.ok()) return fail(runs.status());

  const std::string spec = args->positional().front();
  const bool native = spec.size() > 4 && (spec.rfind(".cpp") == spec.size() - 4 ||
                                          spec.find(".cpp:") != std::string::npos);
  // A Python submission needs an interpreter with torch. A native one does not, but the lane
  // records the machine's Python either way, so that native and Python runs on one machine share
  // one lane (as `ratchet contract` prints it); for a native run the interpreter (most of a second
  // to import torch) is asked on a thread while the datasets are verified and the submission
  // prepared.
  std::future<Result<std::optional<PythonFacts>>> native_python;
  if (native) native_python = std::async(std::launch::async, FindPythonIfAny, args->Get("python"));

  Result<DataSearch> search = MakeDataSearch(args->Get("data"));
  if (!search.ok()) return fail(search.status());
  Result<std::vector<LocatedDataset>> datasets = LocateDatasets(*search);
  if (!datasets.ok()) return fail(datasets.status());
  std::vector<std::string> covered = {"/usr/share/datasets"};
  for (const LocatedDataset& located : *datasets) {
    if (located.name == rules->datasets.mnist && !located.present) {
      return fail(Status::Unavailable("mnist is absent (looked in the data folders of `ratchet datasets`): run scripts/setup"));
    }
    if (located.present) {
      covered.push_back(DirName(located.images_path));
      covered.push_back(DirName(located.labels_path));
    }
  }
  covered = OutermostFolders(covered);
  // The pools (read, verified, box-averaged: a few hundred ms) load on a thread while the
  // submission is prepared and the contract gathered; the run's first draw waits for them.
  // An error here comes again, and is reported, where the run asks for the pool.
  std::future<void> pools_loaded = std::async(std::launch::async, [located = *datasets] {
    for (const LocatedDataset& dataset : located) {
      if (dataset.present) (void)SharedPool(dataset);
    }
  });

  std::string python;
  std::optional<PythonFacts> python_facts;
  if (!native) {
    Result<PythonFacts> found = FindPython(args->Get("python"));
    if (!found.ok()) return fail(found.status());
    python = found->path;
    python_facts = *found;
  }
  // The datasets stay out of a worker's reach, and so does this process.
  Status dumpable = MakeParentNonDumpable();
  if (!dumpable.ok()) return fail(dumpable);
  // One run at a time owns the sandbox user: each kills every process of it when it reaps.
  std::optional<SandboxLock> lock;
  if (DescribeSandbox().full) {
    Result<SandboxLock> held = SandboxLock::Acquire(/*wait=*/false);
    if (!held.ok()) {
      context.err << "ratchet score: " << held.status().message() << "; waiting for it\n";
      held = SandboxLock::Acquire(/*wait=*/true);
    }
    if (!held.ok()) return fail(held.status());
    lock.emplace(std::move(*held));
  }

  Result<Prepared> prepared = PrepareSubmission(spec, *rules, python, covered);
  if (!prepared.ok()) return fail(prepared.status());
  const std::string* source = &prepared->submission.source;
  const std::string record_id = RecordId(prepared->submission.path);

  ContractOptions contract_options;
  contract_options.data_dir = args->Get("data");
  contract_options.rules_path = args->Get("rules");
  contract_options.python = python_facts;
  contract_options.located = *datasets;
  Result<ContractInputs> contract_inputs = GatherContractInputs(contract_options);
  if (!contract_inputs.ok()) return fail(contract_inputs.status());

  RunSeed seed;
  if (getrandom(seed.bytes.data(), seed.bytes.size(), 0) != static_cast<ssize_t>(seed.bytes.size())) {
    return fail(Status::IOError("getrandom", errno));
  }
  const std::string commit = RunSeedSha256(seed);
  const std::string out = args->Get("out").value_or("evidence/score-" + UtcStamp() + "-" + commit.substr(0, 8));
  if (!args->Has("out") && !IsDirectory("evidence")) {
    if (mkdir("evidence", 0755) != 0 && errno != EEXIST) return fail(Status::IOError("mkdir evidence", errno));
  }
  Result<EvidenceWriter> evidence = EvidenceWriter::Begin(out);
  if (!evidence.ok()) return fail(evidence.status());
  // The contract is written once every fact of it is known: for a native run the interpreter's
  // versions come from the probe on its thread, which may still be importing torch while the
  // first worker starts; it is waited for before that worker's first call.
  bool contract_written = false;
  auto write_contract = [&]() -> Status {
    if (contract_written) return Status::Ok();
    if (native_python.valid()) {
      Result<std::optional<PythonFacts>> found = native_python.get();
      if (!found.ok()) return found.status();
      contract_inputs->machine.python = *found;
    }
    Result<Json> contract = BuildContract(contract_inputs->locked, contract_inputs->machine);
    if (!contract.ok()) return contract.status();
    RATCHET_RETURN_IF_ERROR(evidence->WriteJson(kContractFile, *contract));
    contract_written = true;
    return Status::Ok();
  };
  auto finish = [&](const char* status, int code, const std::string& message) {
    // Every ending has its contract (a probe that failed leaves the interpreter's facts null).
    Status finished = write_contract();
    if (!finished.ok()) ReportError(context.err, "score", finished);
    finished = evidence->Finish(status, code, message);
    if (!finished.ok()) {
      context.err << "ratchet score: error: could not finish the evidence in "
                  << evidence->partial_path() << ": " << finished.message() << "\n";
      return static_cast<int>(kExitHarness);
    }
    context.out << "evidence: " << evidence->final_path() << " (" << status << ")\n";
    return code;
  };
  auto abort_run = [&](const Status& status) {
    ReportError(context.err, "score", status);
    return finish(kStatusFailed, ExitCodeFor(status), status.message());
  };
  Status written = evidence->CommitSeed(commit);
  if (!written.ok()) return abort_run(written);

  g_interrupted.store(false);
  struct sigaction action = {};
  action.sa_handler = OnSignal;
  sigaction(SIGINT, &action, nullptr);
  sigaction(SIGTERM, &action, nullptr);

  const std::string name = BaseName(prepared->submission.path);
  context.out << name << ":" << prepared->submission.function << " at " << FormatFixed(band_bp / 100.0, 2)
              << "% error: " << (rules->calls.mnist_calls + rules->calls.holdout_calls)
              << " timed calls, each in a fresh process\n";
  for (const std::string& flag : prepared->review_flags) context.out << "  review flag: " << flag << "\n";
  context.out.flush();

  Json report_runs = Json::array();
  std::vector<double> ranked;
  bool qualified = true, interrupted = false;
  std::vector<Problem> problems;
  if (prepared->failure) {
    context.out << "disqualified: " << prepared->failure->message << "\n";
    RunOutcome outcome;
    outcome.failure = prepared->failure;
    written = WriteRun(*evidence, record_id, 1, *prepared, *source, outcome);
    if (!written.ok()) return abort_run(written);
    report_runs.push_back({{"run", 1}, {"qualified", false}, {"problems", ProblemsJson(outcome.problems())}});
    qualified = false;
    problems = outcome.problems();
  } else {
    for (int run = 1; run <= *runs; ++run) {
      if (*runs > 1) context.out << "run " << run << "/" << *runs << "\n";
      RunInputs inputs;
      inputs.submission = prepared->submission;
      inputs.band_bp = band_bp;
      inputs.seed = SeedOfRun(seed, record_id, run);
      inputs.datasets = *datasets;
      inputs.covered = covered;
      inputs.python = python;
      inputs.rules = &*rules;
      inputs.interrupted = &g_interrupted;
      inputs.before_first_call = write_contract;
      Result<RunOutcome> outcome = ScoreOnce(inputs, [&](const std::string& line) {
        context.out << line << "\n";
        context.out.flush();
      });
      if (!outcome.ok()) return abort_run(outcome.status());
      written = WriteRun(*evidence, record_id, run, *prepared, *source, *outcome);
      if (!written.ok()) return abort_run(written);
      if (outcome->harness_failure) {
        return abort_run(Status::Unavailable(outcome->harness_failure->message));
      }
      if (outcome->interrupted) {
        interrupted = true;
        break;
      }
      if (outcome->judgement) {
        context.out << outcome->judgement->summary
                    << (outcome->qualified() ? "; score " + FormatFixed(outcome->judgement->ranked_ms, 3) + " ms" : "")
                    << "\n";
      }
      for (const Problem& problem : outcome->problems()) {
        context.out << "disqualified: " << problem.message << "\n";
      }
      report_runs.push_back({{"run", run},
                             {"qualified", outcome->qualified()},
                             {"ranked_ms", outcome->qualified() ? Json(outcome->judgement->ranked_ms) : Json()},
                             {"summary", outcome->judgement ? Json(outcome->judgement->summary) : Json()},
                             {"problems", ProblemsJson(outcome->problems())},
                             {"holdout", outcome->plan.holdout},
                             {"warmup", outcome->plan.warmup},
                             {"single_foreign", outcome->plan.single_foreign}});
      if (outcome->qualified()) {
        ranked.push_back(outcome->judgement->ranked_ms);
      } else {
        qualified = false;
        for (const Problem& problem : outcome->problems()) problems.push_back(problem);
      }
    }
  }
  if (interrupted) {
    context.err << "ratchet score: interrupted\n";
    return finish(kStatusInterrupted, kExitInterrupted, "interrupted by a signal");
  }
  written = evidence->RevealSeed(HexEncode(seed.view()));
  std::set<std::string> broken;
  for (const Problem& problem : problems) broken.insert(problem.rule);
  Json record = {{"submission", name},
                 {"function", prepared->submission.function},
                 {"sha256", prepared->source_sha256},
                 {"band_bp", band_bp},
                 {"outcome", {{"status", qualified ? "qualified" : "disqualified"},
                              {"broken", Json(std::vector<std::string>(broken.begin(), broken.end()))}}},
                 {"ranked_ms", qualified && !ranked.empty() ? Json(Median(ranked)) : Json()},
                 {"review_flags", prepared->review_flags},
                 {"runs", report_runs}};
  Json report = {{"schema", "ratchet.report/1"},
                 {"sandbox", DescribeSandbox().full ? "full" : "partial: " + DescribeSandbox().partial_reason},
                 {"records", {{record_id, record}}}};
  if (written.ok()) written = evidence->WriteJson(kReportFile, report);
  if (!written.ok()) return abort_run(written);
  if (qualified && ranked.size() > 1) {
    context.out << "ranked time, median of " << ranked.size() << " runs: " << FormatFixed(Median(ranked), 3) << " ms\n";
  }
  return finish(kStatusComplete, qualified ? kExitSuccess : kExitFinding,
                qualified ? "qualified" : "disqualified");
}

}  // namespace

int RunScore(CommandContext& context) { return Run(context); }

}  // namespace ratchet
