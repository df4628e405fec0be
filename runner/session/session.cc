#include "session/session.h"

#include <sys/random.h>
#include <sys/stat.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <ctime>
#include <set>

#include "contract/contract.h"
#include "contract/python.h"
#include "core/escaping_stream.h"
#include "core/exit_codes.h"
#include "core/file.h"
#include "core/sha256.h"
#include "data/pool.h"
#include "energy/energy_file.h"
#include "energy/measure.h"
#include "evidence/layout.h"
#include "evidence/signature.h"
#include "rules/judge.h"
#include "rules/pyformat.h"
#include "sandbox/spawn.h"
#include "scorer/plan.h"
#include "session/interrupt.h"
#include "session/run_evidence.h"
#include "session/run_progress.h"

namespace ratchet {
namespace {

std::string UtcStamp() {
  std::time_t now = std::time(nullptr);
  std::tm utc;
  gmtime_r(&now, &utc);
  char text[32];
  std::strftime(text, sizeof text, "%Y%m%dT%H%M%SZ", &utc);
  return text;
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

}  // namespace

ScoringSession::ScoringSession(SessionOutput output, const SessionOptions& options)
    : context_(output), options_(options) {}

ScoringSession::~ScoringSession() {
  // Whatever path left early, the directory is finished: never left looking complete.
  if (evidence_ && !finished_) {
    (void)Finish(kStatusFailed, kExitHarness, "ratchet stopped before finishing the run");
  }
}

bool ScoringSession::interrupted() const { return Interrupted(); }

std::string ScoringSession::device_kind() const {
  return contract_inputs_ ? contract_inputs_->machine.device.kind : "cpu";
}

Result<std::unique_ptr<ScoringSession>> ScoringSession::Begin(const SessionOptions& options,
                                                              SessionOutput context) {
  // From here on a signal sets the flag instead of ending the process: one that came between
  // the evidence folder's beginning and a later handler would leave the folder partial.
  InstallInterruptHandlers();
  std::unique_ptr<ScoringSession> session(new ScoringSession(context, options));
  Result<RuleSet> rules = LoadRuleSet(options.rules_path);
  if (!rules.ok()) return rules.status();
  session->rules_ = std::move(*rules);
  Result<Pairing> pairing = PairingFromEnvironment();
  if (!pairing.ok()) return pairing.status();
  session->pairing_ = *pairing;
  Result<CompileStepWhen> compile_step = CompileStepFromEnvironment();
  if (!compile_step.ok()) return compile_step.status();
  session->compile_step_ = *compile_step;

  // A Python submission needs an interpreter with torch. Without one, the lane still records the
  // machine's Python, so that native and Python runs on one machine share one lane (as `ratchet
  // contract` prints it); the interpreter is then asked on a thread while the datasets are
  // verified, the submissions prepared and the first worker starts.
  std::optional<PythonFacts> python_facts;
  if (options.needs_python) {
    Result<PythonFacts> found = FindPython(options.python);
    if (!found.ok()) return found.status();
    session->python_ = found->path;
    python_facts = *found;
  } else {
    session->python_probe_ = std::async(std::launch::async, FindPythonIfAny, options.python);
  }

  Result<DataSearch> search = MakeDataSearch(options.data_dir);
  if (!search.ok()) return search.status();
  Result<std::vector<LocatedDataset>> datasets = LocateDatasets(*search);
  if (!datasets.ok()) return datasets.status();
  session->datasets_ = *datasets;
  std::vector<std::string> covered = {"/usr/share/datasets"};
  for (const LocatedDataset& located : *datasets) {
    if (located.name == session->rules_.datasets.mnist && !located.present) {
      return Status::Unavailable(
          "mnist is absent (looked in the data folders of `ratchet datasets`): run scripts/setup");
    }
    if (located.present) {
      covered.push_back(DirName(located.images_path));
      covered.push_back(DirName(located.labels_path));
    }
  }
  session->covered_ = OutermostFolders(covered);
  // The pools (read, verified, box-averaged: a few hundred ms) load on a thread while the
  // submissions are prepared and the contract gathered; the first draw waits for them. An error
  // here comes again, and is reported, where a run asks for the pool.
  session->pools_loaded_ = std::async(std::launch::async, [located = *datasets] {
    for (const LocatedDataset& dataset : located) {
      if (dataset.present) (void)SharedPool(dataset);
    }
  });

  // The datasets stay out of a worker's reach, and so does this process.
  RATCHET_RETURN_IF_ERROR(MakeParentNonDumpable());
  // Each scorer holds a sandbox slot of its own (its worker uids and their lock): each kills
  // every process of its slot's uids when it reaps, and no other slot's.
  if (DescribeSandbox().full) {
    Result<SandboxLock> held =
        SandboxLock::AcquireSlot(options.command, context.err, InterruptFlag());
    if (!held.ok()) return held.status();
    session->lock_.emplace(std::move(*held));
  }

  ContractOptions contract_options;
  contract_options.data_dir = options.data_dir;
  contract_options.rules_path = options.rules_path;
  contract_options.python = python_facts;
  contract_options.located = *datasets;
  contract_options.read_cuda_properties = false;  // from the first worker's hello (WriteContract)
  if (!options.tool_source_sha256.empty()) {
    contract_options.tool = ToolIdentity{options.tool_version, options.tool_source_sha256};
  }
  Result<ContractInputs> inputs = GatherContractInputs(contract_options);
  if (!inputs.ok()) return inputs.status();
  session->contract_inputs_ = std::move(*inputs);

  if (options.signing_key) {
    Result<std::string> key = PublicKeyOf(*options.signing_key, "the signing key");
    if (!key.ok()) return key.status();
  }
  if (options.seed) {
    Result<RunSeed> given = ParseRunSeed(*options.seed, "the session's seed");
    if (!given.ok()) return Status::BadInput(given.status().message());
    session->seed_ = *given;
  } else if (getrandom(session->seed_.bytes.data(), session->seed_.bytes.size(), 0) !=
             static_cast<ssize_t>(session->seed_.bytes.size())) {
    return Status::IOError("getrandom", errno);
  }
  // A signal so far ends the session here, before it has a folder to finish; one from now on is
  // answered by the run, which stops at its next step and finishes the folder as interrupted.
  if (Interrupted()) return Status::Unavailable("interrupted before the evidence folder began");
  const std::string commit = RunSeedSha256(session->seed_);
  const std::string folder = EvidenceFolder(options);
  const std::string out = options.out.value_or(folder + "/" + options.out_prefix + "-" +
                                               UtcStamp() + "-" + commit.substr(0, 8));
  if (!options.out && !IsDirectory(folder)) {
    if (mkdir(folder.c_str(), 0755) != 0 && errno != EEXIST) {
      return Status::IOError("mkdir " + folder, errno);
    }
  }
  Result<EvidenceWriter> evidence = EvidenceWriter::Begin(out);
  if (!evidence.ok()) return evidence.status();
  session->evidence_.emplace(std::move(*evidence));
  if (options.signing_key) session->evidence_->SignWith(*options.signing_key);
  Status committed = session->evidence_->CommitSeed(commit);
  if (!committed.ok()) {
    (void)session->Finish(kStatusFailed, ExitCodeFor(committed), committed.message());
    return committed;
  }
  return session;
}

// The contract is written once every fact of it is known, before the first window of the first
// call: the interpreter's versions come from the probe on its thread, and on a CUDA device the
// board's L2 size and SM count from the first worker's hello (the same figures `ratchet contract`
// asks CUDA for through the interpreter, which is asked here only when no hello told them: a
// run that ended before its first worker answered). Every ending writes it too (a probe that
// failed leaves the interpreter's facts null).
Status ScoringSession::WriteContract(const Json* hello) {
  if (!contract_.is_null()) return Status::Ok();
  Status probe;
  if (python_probe_.valid()) {
    Result<std::optional<PythonFacts>> found = python_probe_.get();
    if (found.ok()) {
      contract_inputs_->machine.python = *found;
    } else {
      probe = found.status();
    }
  }
  if (hello) AddCudaPropertiesFromHello(*hello, &contract_inputs_->machine);
  // What no hello told is asked of CUDA through the interpreter (seconds: torch is imported),
  // unless the run was interrupted, which should end at once: the lane then says null.
  if (!Interrupted()) AddCudaProperties(&contract_inputs_->machine);
  Result<Json> contract =
      BuildContract(contract_inputs_->locked, contract_inputs_->machine, contract_inputs_->tool);
  if (!contract.ok()) return contract.status();
  RATCHET_RETURN_IF_ERROR(evidence_->WriteJson(kContractFile, *contract));
  contract_ = *contract;
  return probe;
}

Result<RecordResult> ScoringSession::Score(const RecordSpec& record, int runs, int first_run) {
  RecordResult result;
  result.id = record.id;
  Result<Prepared> prepared = PrepareSubmission(record.spec, rules_, python_, covered_);
  if (!prepared.ok()) return prepared.status();
  result.source_sha256 = prepared->source_sha256;
  result.file = BaseName(prepared->submission.path);
  result.function = prepared->submission.function;
  result.review_flags = prepared->review_flags;
  result.qualified = true;

  context_.out << result.file << ":" << result.function << " at "
               << FormatFixed(record.band_bp / 100.0, 2)
               << "% error: " << (rules_.calls.mnist_calls + rules_.calls.holdout_calls)
               << " timed calls, each in a fresh process\n";
  for (const std::string& flag : result.review_flags) {
    context_.out << "  review flag: " << flag << "\n";
  }
  context_.out.flush();

  if (prepared->failure) {
    context_.out << "disqualified: " << QuotedLines(prepared->failure->message) << "\n";
    RunOutcome outcome;
    outcome.failure = prepared->failure;
    RATCHET_RETURN_IF_ERROR(WriteRun(*evidence_, record.id, first_run, *prepared, outcome));
    ReportRun refused = ReportRunOf(first_run, outcome);
    refused.refused = true;
    result.runs.push_back(std::move(refused));
    result.qualified = false;
    result.problems = outcome.problems();
    return result;
  }
  for (int run = first_run; run < first_run + runs; ++run) {
    if (runs > 1 || first_run > 1) {
      context_.out << "run " << run << "/" << first_run + runs - 1 << "\n";
    }
    RunInputs inputs;
    inputs.submission = prepared->submission;
    inputs.band_bp = record.band_bp;
    inputs.seed = SeedOfRecordRun(seed_, record.id, run);
    inputs.datasets = datasets_;
    inputs.covered = covered_;
    inputs.python = python_;
    inputs.rules = &rules_;
    inputs.interrupted = InterruptFlag();
    RunProgress progress(this, context_.out);
    inputs.observer = &progress;
    inputs.pairing = pairing_;
    inputs.compile_step = compile_step_;
    inputs.board_is_gpu = device_kind() == "cuda";
    Result<RunOutcome> outcome = ScoreRun(inputs);
    if (!outcome.ok()) {
      result.harness_error = outcome.status();
      result.qualified = false;
      return result;
    }
    RATCHET_RETURN_IF_ERROR(WriteRun(*evidence_, record.id, run, *prepared, *outcome));
    if (outcome->harness_failure) {
      result.harness_error = Status::Unavailable(outcome->harness_failure->message);
      result.qualified = false;
      return result;
    }
    if (outcome->interrupted) {
      result.interrupted = true;
      result.qualified = false;
      return result;
    }
    if (outcome->judgement) {
      context_.out << outcome->judgement->summary
                   << (outcome->qualified()
                           ? "; score " + FormatFixed(outcome->judgement->ranked_ms, 3) + " ms"
                           : "")
                   << "\n";
    }
    for (const Problem& problem : outcome->problems()) {
      context_.out << "disqualified: " << QuotedLines(problem.message) << "\n";
    }
    ReportRun entry = ReportRunOf(run, *outcome);
    if (outcome->qualified()) {
      bool stopped = false;
      Result<Json> energy = ScoreEnergy(record, run, *prepared, *outcome,
                                        energy_measured_.count(record.id) > 0, &stopped);
      if (!energy.ok()) return energy.status();
      if (stopped) {
        result.interrupted = true;
        result.qualified = false;
        return result;
      }
      entry.energy = *energy;
      if (std::optional<double> mj = ClaimedEnergyMj(*energy)) {
        result.energy_mj.push_back(*mj);
        // Once per record, a re-run of it included; a column that gave no figure is tried again.
        energy_measured_.insert(record.id);
      }
    }
    result.runs.push_back(entry);
    if (outcome->qualified()) {
      result.ranked.push_back(outcome->judgement->ranked_ms);
    } else {
      result.qualified = false;
      for (const Problem& problem : outcome->problems()) result.problems.push_back(problem);
    }
  }
  return result;
}

Result<Json> ScoringSession::ScoreEnergy(const RecordSpec& record, int run,
                                         const Prepared& prepared, const RunOutcome& outcome,
                                         bool measured_before, bool* interrupted) {
  auto say = [&](const std::string& line) {
    context_.out << line << "\n";
    context_.out.flush();
  };
  // The workers' device, as the timed calls' hello gave it.
  const Json hello = outcome.calls.empty() ? Json() : outcome.calls.front().hello;
  const Json device = hello.is_object() ? hello.value("device", Json()) : Json();
  if (device != Json("cuda")) {
    // No board to read: CPU timings are never compared, nor is there an energy column.
    const std::string reason = NoBoardReason(device);
    say("energy: none: " + reason);
    return EnergyNotMeasuredJson(reason);
  }
  const std::string file = RunFile(RunFolder(record.id, run), kEnergyFile);
  if (!options_.energy) {
    const Json skipped = EnergyNotMeasuredJson("skipped (--no-energy)");
    say("energy not measured: skipped (--no-energy)");
    RATCHET_RETURN_IF_ERROR(evidence_->WriteJson(file, skipped));
    return skipped;
  }
  if (measured_before) {
    // About 70 s of windows that another run of the same file would only repeat.
    const std::string reason = "measured once per record, after its first qualified run";
    const Json skipped = EnergyNotMeasuredJson(reason);
    say("energy: " + reason);
    RATCHET_RETURN_IF_ERROR(evidence_->WriteJson(file, skipped));
    return skipped;
  }
  EnergyInputs inputs;
  inputs.submission = prepared.submission;
  inputs.covered = covered_;
  inputs.python = python_;
  inputs.rules = &rules_;
  inputs.seed = SeedOfRecordRun(seed_, record.id, run);
  inputs.datasets = datasets_;
  inputs.warmup_dataset = outcome.plan.warmup;
  std::vector<double> mnist_ms;
  for (const CallRecord& call : outcome.calls) {
    if (call.dataset == rules_.datasets.mnist) mnist_ms.push_back(call.ms);
  }
  inputs.timed_mnist_ms_median = Median(mnist_ms);
  inputs.band_bp = record.band_bp;
  inputs.interrupted = InterruptFlag();
  say(EnergyIntroLine(rules_));
  EnergyOutcome energy = MeasureEnergyColumn(inputs, [] { return OpenNvml(); });
  if (energy.interrupted) {
    *interrupted = true;
    return Json();
  }
  for (const std::string& line : EnergyLines(energy)) say(line);
  RATCHET_RETURN_IF_ERROR(evidence_->WriteJson(file, energy.evidence));
  return energy.ReportJson();
}

Status ScoringSession::Finish(const char* status, int exit_code, const std::string& message) {
  finished_ = true;
  Status written = WriteContract();
  if (!written.ok()) ReportError(context_.err, options_.command.c_str(), written);
  Status finished = evidence_->Finish(status, exit_code, message);
  if (!finished.ok()) {
    context_.err << "ratchet " << options_.command << ": error: could not finish the evidence in "
                 << evidence_->partial_path() << ": " << finished.message() << "\n";
    return finished;
  }
  context_.out << "evidence: " << evidence_->final_path() << " (" << status << ")\n";
  context_.out.flush();
  return Status::Ok();
}

Status ScoringSession::Complete(const std::map<std::string, ReportRecord>& records,
                                const Json& extra, int exit_code, const std::string& message) {
  const Json report =
      ReportJson(DescribeSandbox().full ? "full" : "partial: " + DescribeSandbox().partial_reason,
                 records, extra);
  Status written = WriteContract();
  if (written.ok()) written = evidence_->RevealSeed(HexEncode(seed_.view()));
  if (written.ok()) written = evidence_->WriteJson(kReportFile, report);
  if (!written.ok()) {
    Fail(written);
    return written;
  }
  return Finish(kStatusComplete, exit_code, message);
}

int ScoringSession::Fail(const Status& status) {
  int code = ReportError(context_.err, options_.command.c_str(), status);
  if (!Finish(kStatusFailed, code, status.message()).ok()) return kExitHarness;
  return code;
}

int ScoringSession::Interrupt() {
  context_.err << "ratchet " << options_.command << ": interrupted\n";
  if (!Finish(kStatusInterrupted, kExitInterrupted, "interrupted by a signal").ok()) {
    return kExitHarness;
  }
  return kExitInterrupted;
}

}  // namespace ratchet
