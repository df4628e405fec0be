#include "cli/run_sharded.h"

#include <dirent.h>
#include <fcntl.h>
#include <sys/file.h>
#include <sys/random.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstdio>
#include <ctime>
#include <filesystem>
#include <functional>
#include <memory>

#include "baseline/ratchet_report.h"
#include "cli/interrupt.h"
#include "cli/score_args.h"
#include "cli/scorer_client.h"
#include "contract/contract_view.h"
#include "core/exit_codes.h"
#include "core/file.h"
#include "core/sha256.h"
#include "core/subprocess.h"
#include "data/locate.h"
#include "evidence/layout.h"
#include "evidence/reader.h"
#include "evidence/signature.h"
#include "rules/judge.h"
#include "rules/rule_set.h"
#include "shard/collect.h"
#include "shard/local_executor.h"
#include "shard/sharded_run.h"
#include "shard/shards.h"
#include "shard/verify.h"

namespace ratchet {

namespace {

// An absolute path for one a shard's process reads, which may start in another folder (a Slurm
// task does). A bare name (an interpreter found on PATH) is left as it is.
std::string Absolute(const std::string& path) {
  if (path.empty() || path[0] == '/') return path;
  if (path.find('/') == std::string::npos && !PathExists(path)) return path;
  std::error_code error;
  std::filesystem::path absolute = std::filesystem::absolute(path, error);
  return error ? path : absolute.lexically_normal().string();
}

std::string SelfExecutable() {
  char buffer[4096];
  const ssize_t n = readlink("/proc/self/exe", buffer, sizeof buffer - 1);
  return n > 0 ? std::string(buffer, static_cast<size_t>(n)) : "ratchet";
}

// This machine's contract for the run's options, as `ratchet-scorer contract --json` gives it:
// what every shard's contract must lock alike.
Result<Json> MachineContract(const SessionOptions& options) {
  Result<std::string> scorer = FindScorer();
  if (!scorer.ok()) return scorer.status();
  std::vector<std::string> argv = {*scorer, "contract", "--json"};
  if (options.data_dir) argv.insert(argv.end(), {"--data", *options.data_dir});
  if (options.rules_path) argv.insert(argv.end(), {"--rules", *options.rules_path});
  if (options.python) argv.insert(argv.end(), {"--python", *options.python});
  Result<ProcessResult> ran = RunProcess(argv, 600);
  if (!ran.ok()) return ran.status();
  if (ran->exit_code != 0) {
    std::string said = ran->err;
    while (!said.empty() && said.back() == '\n') said.pop_back();
    const std::string prefix = "ratchet-scorer contract: ";
    if (said.compare(0, prefix.size(), prefix) == 0) said = said.substr(prefix.size());
    if (ran->exit_code == kExitBadInput) return Status::BadInput(said);
    return Status::Unavailable("this machine's contract could not be made: " + said);
  }
  return ParseJson(ran->out, "the contract ratchet-scorer printed");
}

// The GPUs of this host by index: those CUDA_VISIBLE_DEVICES names, else every /dev/nvidiaN.
std::vector<std::string> HostGpus() {
  std::vector<std::string> gpus;
  const char* visible = std::getenv("CUDA_VISIBLE_DEVICES");
  if (visible != nullptr && *visible != '\0') {
    std::string current;
    for (const char* c = visible;; ++c) {
      if (*c == ',' || *c == '\0') {
        if (!current.empty()) gpus.push_back(current);
        current.clear();
        if (*c == '\0') break;
      } else {
        current += *c;
      }
    }
    return gpus;
  }
  std::vector<int> found;
  if (DIR* dev = opendir("/dev")) {
    while (dirent* entry = readdir(dev)) {
      const std::string name = entry->d_name;
      if (name.size() > 6 && name.compare(0, 6, "nvidia") == 0 &&
          std::all_of(name.begin() + 6, name.end(), [](char c) { return c >= '0' && c <= '9'; })) {
        found.push_back(std::stoi(name.substr(6)));
      }
    }
    closedir(dev);
  }
  std::sort(found.begin(), found.end());
  for (int index : found) gpus.push_back(std::to_string(index));
  return gpus;
}

std::string UtcStampNow() {
  const std::time_t now = std::time(nullptr);
  std::tm utc{};
  gmtime_r(&now, &utc);
  char text[32];
  std::strftime(text, sizeof text, "%Y%m%dT%H%M%SZ", &utc);
  return text;
}

// Removes a shard's folder (and the partial folders a killed scorer left beside it) before it is
// scored again: only what a verified attempt wrote is ever kept.
void ClearShardFolder(const std::string& folder) {
  std::error_code ignored;
  for (const std::string& partial : FindPartialEvidence(folder)) {
    std::filesystem::remove_all(partial, ignored);
  }
  std::filesystem::remove_all(folder, ignored);
}

// Keeps run.json in step with the scheduler: every change of the counts is written, so that a
// run that is killed keeps each attempt's provenance.
class RunJournal : public ShardProgress {
 public:
  RunJournal(std::string dir, ShardedRun* run, std::map<std::string, size_t> earlier,
             ShardProgress* shown)
      : dir_(std::move(dir)), run_(run), earlier_(std::move(earlier)), shown_(shown) {}
  void Attach(const ShardScheduler* scheduler) { scheduler_ = scheduler; }

  void Counts(const ShardCounts& counts) override {
    Sync();
    if (shown_) shown_->Counts(counts);
  }
  void Line(const std::string& line) override {
    if (shown_) shown_->Line(line);
  }
  void Finish() override {
    Sync();
    if (shown_) shown_->Finish();
  }

  // run.json's shards from the scheduler's entries: each one's attempts are those of earlier
  // sessions (kept) and this one's, numbered after them.
  void Sync() {
    if (scheduler_ == nullptr) return;
    for (ShardedRunShard& s : run_->shards) {
      auto found = scheduler_->entries().find(s.shard.id);
      if (found == scheduler_->entries().end()) continue;
      const ShardScheduler::Entry& entry = found->second;
      const size_t before = earlier_.count(s.shard.id) ? earlier_.at(s.shard.id) : 0;
      s.attempts.resize(before);
      for (ShardAttempt attempt : entry.attempts) {
        attempt.attempt += static_cast<int>(before);
        if (attempt.end == AttemptEnd::kScored && attempt.device_uuid.empty()) {
          attempt.device_uuid = EvidenceBoard(ShardFolder(dir_, s.shard.id));
        }
        s.attempts.push_back(attempt);
      }
      switch (entry.state) {
        case ShardScheduler::State::kDone:
          s.state = "done";
          break;
        case ShardScheduler::State::kFailed:
          s.state = "failed";
          break;
        case ShardScheduler::State::kRunning:
          s.state = "running";
          break;
        default:
          s.state = "queued";
      }
    }
    (void)WriteShardedRun(dir_, *run_);
  }

 private:
  std::string dir_;
  ShardedRun* run_;
  std::map<std::string, size_t> earlier_;
  ShardProgress* shown_;
  const ShardScheduler* scheduler_ = nullptr;
};

// The run, planned or read back, and what goes with it while it is scored.
struct RunState {
  std::string dir;
  ShardedRun run;
  std::string seed;  // the run seed, hex
  bool gpu = false;
  std::string kind;
  Json contract;  // this machine's
  // Attempts each shard had in earlier sessions (--resume): this session's are numbered after
  // them, in run.json and in the logs' names.
  std::map<std::string, size_t> earlier;
};

// Plans shard `run_index` of `record` into `state`: its id, its plan file (its seed, its folder).
Status PlanShard(RunState& state, const RunRequest& request, const std::string& record,
                 int run_index, bool rerun) {
  const RecordSpec& spec = request.specs.at(record);
  Result<std::string> sha256 = Sha256File(SpecFile(spec.spec));
  if (!sha256.ok()) return sha256.status();
  Shard shard;
  shard.record = record;
  shard.submission_sha256 = *sha256;
  shard.run = run_index;
  Result<std::string> id =
      ShardId(state.run.locked, record, *sha256, run_index, state.run.seed_commit);
  if (!id.ok()) return id.status();
  shard.id = *id;
  ShardPlan plan;
  plan.shard = shard;
  plan.record = spec;
  const std::string file = SpecFile(spec.spec);
  plan.record.spec = Absolute(file) + spec.spec.substr(file.size());
  plan.options = request.options;
  plan.options.command = "score-shard";
  plan.options.out = ShardFolder(state.dir, shard.id);
  if (plan.options.data_dir) plan.options.data_dir = Absolute(*plan.options.data_dir);
  if (plan.options.rules_path && PathExists(*plan.options.rules_path)) {
    plan.options.rules_path = Absolute(*plan.options.rules_path);
  }
  if (plan.options.python) plan.options.python = Absolute(*plan.options.python);
  // The energy column is measured once per record: after its first run.
  plan.options.energy = request.options.energy && run_index == 1 && !rerun;
  Result<std::string> seed = ShardSeed(state.seed, shard.id);
  if (!seed.ok()) return seed.status();
  plan.options.seed = *seed;
  plan.options.signing_key.reset();  // the run's manifest is signed, by this process
  plan.run_seed_commit = state.run.seed_commit;
  // A CPU lane's shards run side by side: their times are development figures, as every CPU
  // lane's are.
  plan.shared_device = !state.gpu;
  Status written =
      WriteFileAtomic(ShardPlanPath(state.dir, shard.id), ShardPlanJson(plan).dump(2) + "\n", 0600);
  if (!written.ok()) return written;
  state.run.shards.push_back(ShardedRunShard{shard, rerun, "queued", {}});
  return Status::Ok();
}

// The records scored on this lane, and a note for each left out.
std::vector<std::string> LaneRecords(const RunRequest& request, const RunState& state,
                                     std::vector<std::string>* notes) {
  std::vector<std::string> records;
  for (const std::string& id : request.selected) {
    if (request.baseline.records.at(id).device && !state.gpu) {
      notes->push_back(id + ": not scored: it runs on GPU lanes only, and this lane's device is " +
                       state.kind);
      continue;
    }
    records.push_back(id);
  }
  return records;
}

std::unique_ptr<ShardExecutor> MakeExecutor(const RunState& state,
                                            const ShardedRunOptions& options, Status* error) {
  const std::string dir = state.dir;
  const std::string self = SelfExecutable();
  const std::map<std::string, size_t>* earlier = &state.earlier;
  ShardCommandMaker maker = [dir, self, earlier](const Shard& shard, int attempt,
                                                 const std::string&) -> Result<ShardCommand> {
    ShardCommand command;
    command.argv = {self, "score-shard", ShardPlanPath(dir, shard.id)};
    auto before = earlier->find(shard.id);
    const int number = attempt + (before == earlier->end() ? 0 : static_cast<int>(before->second));
    const std::string log = ShardLogPath(dir, shard.id, number);
    command.stdout_path = log;
    command.stderr_path = log + ".err";
    command.folder = ShardFolder(dir, shard.id);
    ClearShardFolder(command.folder);
    return command;
  };
  if (options.executor == "slurm") {
    SlurmOptions slurm = options.slurm;
    slurm.folder = Absolute(slurm.folder);
    if (state.gpu && slurm.gpus == 0) slurm.gpus = 1;
    if (!IsDirectory(slurm.folder)) {
      *error = Status::Usage("--slurm-folder " + slurm.folder + " is not a folder");
      return nullptr;
    }
    return std::make_unique<SlurmExecutor>(slurm, maker);
  }
  std::vector<std::string> devices;
  if (state.gpu) {
    devices = options.devices.empty() ? HostGpus() : options.devices;
    if (devices.empty()) {
      *error = Status::Unavailable("this lane has a GPU, but no /dev/nvidiaN is here: name the GPUs "
                               "with --devices 0,1");
      return nullptr;
    }
  } else {
    if (!options.devices.empty()) {
      *error = Status::Usage("--devices names GPUs, and this lane has none: --jobs N runs N "
                             "shards side by side on a CPU lane");
      return nullptr;
    }
    devices.assign(static_cast<size_t>(options.jobs), "cpu");
  }
  return std::make_unique<LocalExecutor>(devices, maker);
}

// A run that stops on an error is failed, never left as running: --resume goes on with it.
int FailRun(RunState& state, const Status& status, CommandContext& context) {
  if (state.run.state != "complete") {
    state.run.state = "failed";
    state.run.message = status.message();
    (void)WriteShardedRun(state.dir, state.run);
  }
  return ReportError(context.err, "run", status);
}

// The check each attempt passes as it ends: its folder verified, through the verification the
// audit makes, then signed with the run's key (so that --resume can tell what this key
// witnessed). A fresh attempt holds no signature yet: it is verified unsigned, then signed.
std::function<Status(const Shard&, const ShardAttempt&)> VerifyAndSign(const RunState& state, const RunRequest& request,
                                     const ShardVerification& verification) {
  return [&state, &request, &verification](const Shard& shard,
                                           const ShardAttempt& attempt) -> Status {
    const std::string folder =
        attempt.folder.empty() ? ShardFolder(state.dir, shard.id) : attempt.folder;
    Result<VerifiedShard> verified =
        VerifyShard(folder, shard, state.run, state.seed, "", verification.options);
    if (!verified.ok()) return verified.status();
    if (!verified->stands()) return Status::BadInput(verified->why_not());
    if (!request.options.signing_key) return Status::Ok();
    return SignShard(folder, *request.options.signing_key, verified->audit.manifest_sha256);
  };
}

// Every shard of run.json into the scheduler: one done before and verified again now (against
// the run's signer) is kept; any other is queued, a done one that fails verification said so in
// its provenance and on `shown`. An attempt the killed ratchet left running is recorded first,
// so that the one resumed now is numbered after it and its log is kept. Returns how many were kept.
Result<size_t> QueueShards(RunState& state, const ShardVerification& verification,
                           ShardScheduler& scheduler, std::ostream& shown) {
  ShardedRun& run = state.run;
  size_t kept = 0;
  for (ShardedRunShard& s : run.shards) {
    if (s.state == "running") {
      ShardAttempt killed;
      killed.attempt = static_cast<int>(s.attempts.size()) + 1;
      killed.end = AttemptEnd::kFault;
      killed.why = "the ratchet running it was killed before it ended; its output is " +
                   ShardLogPath(state.dir, s.shard.id, killed.attempt) + " if it started";
      killed.folder = ShardFolder(state.dir, s.shard.id);
      s.attempts.push_back(killed);
    }
    state.earlier[s.shard.id] = s.attempts.size();
    const std::string folder = ShardFolder(state.dir, s.shard.id);
    Status verified = Status::Ok();
    if (s.state == "done") {
      Result<VerifiedShard> shard = VerifyShard(folder, s.shard, run, state.seed, run.signer,
                                                verification.options);
      if (!shard.ok()) return shard.status();
      if (!shard->stands()) verified = Status::BadInput(shard->why_not());
    }
    if (s.state == "done" && verified.ok()) {
      (void)scheduler.AddDone(s.shard, {});
      ++kept;
      continue;
    }
    if (s.state == "done") {
      // Said in the provenance and on the terminal: a shard scored before is scored again.
      const std::string why = "discarded at resume: its folder fails verification: " +
                              verified.message();
      if (!s.attempts.empty()) s.attempts.back().why = why;
      shown << "shard " << s.shard.id.substr(0, 12) << " (" << s.shard.record << ", run "
            << s.shard.run << ") is scored again: " << why << "\n";
    }
    s.state = "queued";
    (void)scheduler.Add(s.shard);
  }
  return kept;
}

// How the scoring of the shards ended.
enum class ScoringEnd { kScored, kInterrupted };

// Runs the scheduler until every shard is scored, then once more for the second scorings a
// record's first calls for (once: a resumed run may have them already). Shards that fail every
// attempt are an error naming each (FailRun marks the run failed).
Result<ScoringEnd> ScoreShards(RunState& state, const RunRequest& request,
                               const ShardVerification& verification,
                               const std::vector<std::string>& records, ShardScheduler& scheduler,
                               RunJournal& journal, const std::function<int()>& interrupted,
                               std::ostream& shown) {
  ShardedRun& run = state.run;
  for (bool second_pass = false;; second_pass = true) {
    const ShardScheduler::End end = scheduler.Run(interrupted, &journal);
    if (end == ShardScheduler::End::kInterrupted || interrupted() > 0) {
      return ScoringEnd::kInterrupted;
    }
    if (end == ShardScheduler::End::kFailed) {
      std::string failed;
      for (const ShardedRunShard& s : run.shards) {
        if (s.state == "failed") {
          failed += "\n  shard " + s.shard.id.substr(0, 12) + " (" + s.shard.record + ", run " +
                    std::to_string(s.shard.run) + "): " +
                    (s.attempts.empty() ? "" : s.attempts.back().why);
        }
      }
      return Status::Unavailable("shards of " + state.dir + " failed every attempt:" + failed +
                                 "\n`ratchet run --resume " + state.dir +
                                 "` tries them again once the cause is mended");
    }
    if (second_pass) return ScoringEnd::kScored;
    Result<std::vector<ScoreAgainShards>> again =
        RecordsToScoreAgain(state.dir, run, verification, state.gpu, request, records);
    if (!again.ok()) return again.status();
    bool added = false;
    for (const ScoreAgainShards& record : *again) {
      shown << record.line;
      for (int r = record.runs + 1; r <= 2 * record.runs; ++r) {
        RATCHET_RETURN_IF_ERROR(PlanShard(state, request, record.record, r, true));
        (void)scheduler.Add(run.shards.back().shard);
        added = true;
      }
    }
    (void)WriteShardedRun(state.dir, run);
    if (!added) return ScoringEnd::kScored;
  }
}

// Collect: every shard verified again, the records assembled, the run held to the baseline;
// then run.json complete and the run sealed (and signed) over the shard manifests as collect
// verified them. A shard changed since collect verified it fails the run while --resume can
// verify it again; a seal refused after run.json says complete leaves a run no one may seal.
Result<RunOutcome> CollectAndSeal(RunState& state, const RunRequest& request,
                                  const ShardVerification& verification,
                                  const std::vector<std::string>& records,
                                  const std::vector<std::string>& notes) {
  ShardedRun& run = state.run;
  std::map<std::string, std::string> verified_manifests;
  Result<RunOutcome> collected =
      CollectShards(state.dir, run, verification, state.gpu, request,
                    verification.options.rules->document, records, notes, &verified_manifests);
  if (!collected.ok()) return collected.status();
  Status as_verified = CheckShardsAsVerified(state.dir, run, verified_manifests);
  if (!as_verified.ok()) {
    return Status::BadInput(as_verified.message() + "; `ratchet run --resume " + state.dir +
                            "` verifies it again");
  }
  const RunOutcome& outcome = *collected;
  run.report = Json{{"records", ReportRecordsJson(outcome.records)},
                    {kRatchetReportKey, RatchetPartOf(request, outcome)}};
  run.seed = state.seed;
  run.exit_code = outcome.exit_code;
  run.message = outcome.ratchet.errors.empty()
                    ? "as the baseline expects"
                    : std::to_string(outcome.ratchet.errors.size()) +
                          " difference(s) from the baseline";
  run.state = "complete";
  RATCHET_RETURN_IF_ERROR(WriteShardedRun(state.dir, run));
  std::error_code ignored;
  std::filesystem::remove_all(state.dir + "/plans", ignored);
  Status sealed = SealShardedRun(state.dir, run, verified_manifests, request.options.signing_key);
  if (!sealed.ok()) {
    // Complete in run.json, its seed revealed, and not sealed: no later process may seal it.
    return Status::BadInput(sealed.message() + "; " + state.dir +
                            " is left unsealed, and --resume refuses it: begin a new run");
  }
  return collected;
}

// Scores every shard not done, adds the second scorings the first call for, and collects: the
// steps above, in order.
int Drive(RunState& state, const RunRequest& request, const ShardedRunOptions& options,
          CommandContext& context) {
  std::ostream& shown = request.json ? context.err : context.out;
  std::vector<std::string> notes;
  const std::vector<std::string> records = LaneRecords(request, state, &notes);

  Status made = Status::Ok();
  std::unique_ptr<ShardExecutor> executor = MakeExecutor(state, options, &made);
  if (!executor) return FailRun(state, made, context);
  Result<ShardVerification> verification = ShardVerificationFor(state.seed, request);
  if (!verification.ok()) return FailRun(state, verification.status(), context);
  ShardScheduler scheduler(executor.get(), options.max_attempts,
                           VerifyAndSign(state, request, *verification));
  Result<size_t> kept = QueueShards(state, *verification, scheduler, shown);
  if (!kept.ok()) return FailRun(state, kept.status(), context);
  if (*kept > 0) {
    shown << "run " << state.dir << ": " << *kept << " shard(s) scored before are kept\n";
  }

  std::unique_ptr<ShardProgress> display;
  if (!request.json) {
    if (isatty(STDOUT_FILENO)) {
      display = std::make_unique<TerminalProgress>(shown);
    } else {
      display = std::make_unique<PlainProgress>(shown);
    }
  }
  RunJournal journal(state.dir, &state.run, state.earlier, display.get());
  journal.Attach(&scheduler);
  // Held from here to the end: a signal during collect and the seal is answered by neither.
  InterruptHold hold;
  Result<ScoringEnd> scored = ScoreShards(state, request, *verification, records, scheduler,
                                          journal, [&hold] { return hold.Count(); }, shown);
  if (!scored.ok()) return FailRun(state, scored.status(), context);
  if (*scored == ScoringEnd::kInterrupted) {
    state.run.state = "interrupted";
    state.run.message = "interrupted; ratchet run --resume goes on";
    (void)WriteShardedRun(state.dir, state.run);
    context.err << "ratchet run: interrupted: " << state.dir
                << " keeps every shard scored; `ratchet run --resume " << state.dir
                << "` scores the rest and collects the run\n";
    return kExitInterrupted;
  }

  Result<RunOutcome> outcome = CollectAndSeal(state, request, *verification, records, notes);
  if (!outcome.ok()) return FailRun(state, outcome.status(), context);
  if (!request.json) shown << "evidence: " << state.dir << "\n";
  PrintRunOutcome(request, *outcome, context);
  return outcome->exit_code;
}

// An exclusive lock on the run's directory, for as long as this process works on it.
Result<int> LockRun(const std::string& dir) {
  const int fd = open(dir.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  if (fd < 0) return Status::IOError("open " + dir, errno);
  if (flock(fd, LOCK_EX | LOCK_NB) != 0) {
    close(fd);
    return Status::BadInput("another ratchet works on " + dir + " now; wait for it to end");
  }
  return fd;
}

}  // namespace

RunInputs RunRequestInputs(const RunRequest& request, const ShardedRunOptions& options) {
  RunInputs in;
  in.baseline = Absolute(request.baseline_path);
  in.baseline_sha256 = request.baseline_sha256;
  in.records = request.asked;
  in.runs = request.runs_flag;
  in.rules = request.options.rules_path && PathExists(*request.options.rules_path)
                 ? std::optional<std::string>(Absolute(*request.options.rules_path))
                 : request.options.rules_path;
  if (request.options.data_dir) in.data = Absolute(*request.options.data_dir);
  in.python = request.options.python;
  in.out = request.options.out;
  in.energy = request.options.energy;
  in.require_lane = request.require_lane;
  in.executor = options.executor;
  in.devices = options.devices;
  in.jobs = options.jobs;
  in.attempts = options.max_attempts;
  in.slurm = options.slurm;  // run.json keeps its folder, partition, account, time and GPUs
  return in;
}

ShardedRunOptions ShardedRunOptionsFromInputs(const RunInputs& in) {
  ShardedRunOptions options;
  options.executor = in.executor;
  options.devices = in.devices;
  options.jobs = in.jobs;
  options.max_attempts = in.attempts;
  options.slurm = in.slurm;
  return options;
}

int RunSharded(RunRequest& request, const ShardedRunOptions& options, CommandContext& context) {
  auto fail = [&](const Status& status) { return ReportError(context.err, "run", status); };
  RunState state;
  Result<Json> contract = MachineContract(request.options);
  if (!contract.ok()) return fail(contract.status());
  state.contract = *contract;
  ContractView view(state.contract);
  if (!view.locked().ok() || !view.lane_id().ok()) {
    return fail(Status::Unavailable("the contract ratchet-scorer printed has no locked part or lane"));
  }
  state.kind = view.device_kind().value_or("cpu");
  state.gpu = state.kind != "cpu";
  state.run.locked = *view.locked();
  state.run.lane = *view.lane_id();
  if (request.options.signing_key) {
    Result<std::string> signer = PublicKeyOf(*request.options.signing_key, "the signing key");
    if (!signer.ok()) return fail(signer.status());
    state.run.signer = *signer;
  }

  std::string raw(32, '\0');
  if (getrandom(raw.data(), raw.size(), 0) != static_cast<ssize_t>(raw.size())) {
    return fail(Status::IOError("getrandom", errno));
  }
  state.seed = HexEncode(raw);
  state.run.seed_commit = Sha256Hex(raw);

  // The executor's options are checked before the run's directory exists.
  Status usable = Status::Ok();
  if (!MakeExecutor(state, options, &usable)) return fail(usable);

  std::string dir = request.options.out.value_or(std::string(kDefaultEvidenceFolder) + "/run-" +
                                                 UtcStampNow() + "-" +
                                                 state.run.seed_commit.substr(0, 8));
  if (PathExists(dir)) return fail(Status::Usage(dir + " already exists: name a new folder"));
  const std::string parent = DirName(dir);
  if (!request.options.out && !IsDirectory(parent) && mkdir(parent.c_str(), 0755) != 0 &&
      errno != EEXIST) {
    return fail(Status::IOError("mkdir " + parent, errno));
  }
  if (mkdir(dir.c_str(), 0755) != 0) return fail(Status::IOError("mkdir " + dir, errno));
  dir = Absolute(dir);
  state.dir = dir;
  for (const auto& [sub, mode] : {std::pair{"shards", 0755}, {"plans", 0700}, {"logs", 0755}}) {
    if (mkdir((dir + "/" + sub).c_str(), static_cast<mode_t>(mode)) != 0) {
      return fail(Status::IOError("mkdir " + dir + "/" + sub, errno));
    }
  }
  Result<int> lock = LockRun(dir);
  if (!lock.ok()) return fail(lock.status());
  Status seed_written = WriteFileAtomic(RunSeedPath(dir), state.seed + "\n", 0600);
  if (!seed_written.ok()) return fail(seed_written);
  state.run.inputs = RunRequestInputs(request, options);
  std::vector<std::string> notes;
  for (const std::string& id : LaneRecords(request, state, &notes)) {
    const int runs = RunsOf(request, id, state.gpu);
    for (int r = 1; r <= runs; ++r) {
      Status planned = PlanShard(state, request, id, r, false);
      if (!planned.ok()) return fail(planned);
    }
  }
  Status written = WriteShardedRun(dir, state.run);
  if (!written.ok()) return fail(written);
  (request.json ? context.err : context.out)
      << "run " << dir << ": " << state.run.shards.size() << " shard(s), executor "
      << options.executor << "\n";
  const int code = Drive(state, request, options, context);
  close(*lock);
  return code;
}

int ResumeSharded(const std::string& dir_given, const std::optional<ShardedRunOptions>& given,
                  bool json, const std::optional<std::string>& signing_key,
                  const std::optional<std::string>& markdown, CommandContext& context,
                  Result<RunRequest> (*check)(const RunInputs& inputs, bool json)) {
  auto fail = [&](const Status& status) { return ReportError(context.err, "run", status); };
  if (!IsShardedRun(dir_given)) {
    return fail(Status::Usage(dir_given + " is not a sharded run's directory (no run.json): "
                              "--resume goes on with a run begun with --executor"));
  }
  const std::string dir = Absolute(dir_given);
  Result<int> lock = LockRun(dir);
  if (!lock.ok()) return fail(lock.status());
  RunState state;
  state.dir = dir;
  Result<ShardedRun> run = ReadShardedRun(dir);
  if (!run.ok()) return fail(run.status());
  state.run = *run;
  if (state.run.state == "complete") {
    // A collected run is never collected or signed again: with its MANIFEST.json gone, nothing
    // would tell its shards from ones rewritten since.
    close(*lock);
    return fail(Status::Usage(
        PathExists(dir + "/" + kShardedRunManifestFile)
            ? dir + " is complete: there is nothing to resume"
            : dir + " was collected, and its " + kShardedRunManifestFile +
                  " is gone: a collected run is not collected or signed again; `ratchet audit " +
                  dir + "` says what is left of it, and a new run scores the records again"));
  }
  // The run is signed with one key: the one that signed its shards as they were verified. A run
  // begun unsigned and resumed with --sign has its shards scored so far scored again, since no
  // key witnessed them.
  if (signing_key) {
    Result<std::string> signer = PublicKeyOf(*signing_key, "the signing key");
    if (!signer.ok()) return fail(signer.status());
    if (!state.run.signer.empty() && *signer != state.run.signer) {
      close(*lock);
      return fail(Status::Usage("the run is signed with key " + KeyId(state.run.signer) +
                                ", and --sign names key " + KeyId(*signer) +
                                ": resume it with --sign and the key it began with"));
    }
    state.run.signer = *signer;
  } else if (!state.run.signer.empty()) {
    close(*lock);
    return fail(Status::Usage("the run is signed with key " + KeyId(state.run.signer) +
                              ": resume it with --sign and that key"));
  }
  Result<std::string> seed_text = ReadFile(RunSeedPath(dir), 256);
  if (!seed_text.ok()) return fail(seed_text.status());
  Result<std::string> seed = ParseSeedFile(*seed_text, RunSeedPath(dir));
  if (!seed.ok()) return fail(seed.status());
  if (!SeedMatchesCommit(*seed, state.run.seed_commit)) {
    return fail(Status::BadInput(RunSeedPath(dir) + " is not the seed run.json commits to"));
  }
  state.seed = *seed;
  Result<RunRequest> request = check(state.run.inputs, json);
  if (!request.ok()) return fail(request.status());
  request->options.signing_key = signing_key;
  request->markdown = markdown;
  const ShardedRunOptions options = given ? *given : ShardedRunOptionsFromInputs(state.run.inputs);
  Result<Json> contract = MachineContract(request->options);
  if (!contract.ok()) return fail(contract.status());
  state.contract = *contract;
  ContractView view(state.contract);
  if (!view.locked().ok() || *view.locked() != state.run.locked) {
    return fail(Status::BadInput("this machine's contract does not lock what the run's does (a "
                                 "scorer, rule set or dataset changed since it began): its shards "
                                 "could not be collected into one run; begin a new run"));
  }
  state.kind = view.device_kind().value_or("cpu");
  state.gpu = state.kind != "cpu";
  state.run.state = "running";
  state.run.message.clear();
  (json ? context.err : context.out) << "run " << dir << ": resumed\n";
  const int code = Drive(state, *request, options, context);
  close(*lock);
  return code;
}

}  // namespace ratchet
