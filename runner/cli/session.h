// A scoring session: what `ratchet score` and `ratchet run` share. It verifies the datasets,
// holds the sandbox lock, gathers the contract, begins the evidence directory with the committed
// run seed, scores records into it (every run of every record, each timed call in a fresh
// sandboxed worker, a line per call on the way), and finishes the directory as complete, failed
// or interrupted. The commands decide what to score and what a result means.
#ifndef RATCHET_CLI_SESSION_H_
#define RATCHET_CLI_SESSION_H_

#include <future>
#include <memory>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "cli/args.h"
#include "cli/commands.h"
#include "contract/gather.h"
#include "core/canonical_json.h"
#include "core/status.h"
#include "data/locate.h"
#include "evidence/writer.h"
#include "rules/rule_set.h"
#include "sandbox/lock.h"
#include "scorer/prepare.h"
#include "scorer/run.h"

namespace ratchet {

struct SessionOptions {
  const char* command = "score";  // for messages: "ratchet <command>: ..."
  std::optional<std::string> data_dir, python, rules_path, out;
  // The default evidence folder is evidence/<out_prefix>-<UTC time>-<seed commit prefix>.
  std::string out_prefix = "score";
  // Whether any submission is a Python file: then an interpreter with torch is required.
  bool needs_python = false;
  // Measure the energy column after each run that qualifies on a GPU (--no-energy: false).
  bool energy = true;
};

// One record to score: `spec` is FILE[:function] as `ratchet score` takes it.
struct RecordSpec {
  std::string id;
  std::string spec;
  int64_t band_bp = 0;
};

// What the runs of one record came to.
struct RecordResult {
  std::string id;
  bool qualified = false;  // every run qualified
  bool interrupted = false;
  std::optional<Status> harness_error;  // the harness could not finish a run
  std::vector<Problem> problems;        // of every run that did not qualify
  std::vector<double> ranked;           // of the runs that qualified
  std::vector<double> energy_mj;        // the energy columns measured (mJ per call above idle)
  std::string source_sha256;
  std::string file;      // the submission's file name
  std::string function;  // the function scored
  std::vector<std::string> review_flags;
  Json runs = Json::array();  // the report's per-run entries
  // The report's "energy": the median of `energy_mj` (one column, measured once per record)
  // when every run qualified and one has a figure, else null, and how many runs have one.
  Json EnergyJson() const;
  // Median of `ranked` when qualified.
  std::optional<double> ranked_ms() const;
  std::vector<std::string> broken() const;  // the rule ids of `problems`, sorted, each once
  Json ReportJson(int64_t band_bp) const;
};

class ScoringSession {
 public:
  // Everything before the first worker that can fail on bad input or a missing dataset fails
  // here, before any evidence folder exists.
  static Result<std::unique_ptr<ScoringSession>> Begin(const SessionOptions& options,
                                                       CommandContext& context);
  ~ScoringSession();

  const RuleSet& rules() const { return rules_; }
  const std::string& evidence_path() const { return evidence_->final_path(); }
  // The contract once written (null before the first window of the session, or Complete).
  const Json& contract() const { return contract_; }
  // The lane's device kind ("cpu", "cuda"), known from Begin on.
  std::string device_kind() const;
  // SIGINT or SIGTERM arrived since Begin (the run in progress stops at its next step).
  bool interrupted() const;

  // Scores `runs` runs of `record`, numbered from `first_run`, into the evidence. A submission
  // that fails before any worker (rule `source`) is one disqualified run. Returns an error only
  // when the evidence cannot be written; a harness failure is in the result.
  Result<RecordResult> Score(const RecordSpec& record, int runs, int first_run = 1);

  // Writes report.json ({"schema", "sandbox", "records", plus `extra`'s fields}), reveals the
  // seed and finishes the directory as complete with `exit_code`.
  Status Complete(const Json& records, const Json& extra, int exit_code,
                  const std::string& message);
  // Completes the contract (waiting for the interpreter probe if it still runs; on a CUDA device
  // the board's L2 size and SM count from `hello`, the first worker's, else asked of CUDA) and
  // writes it into the evidence, once; contract() holds it after. An error of the probe is
  // returned, the contract is still written, with the interpreter's facts null.
  Status WriteContract(const Json* hello = nullptr);
  // Finishes as failed (the harness could not do its work) or interrupted; prints why.
  int Fail(const Status& status);
  int Interrupt();

 private:
  ScoringSession(CommandContext& context, const SessionOptions& options);
  Status Finish(const char* status, int exit_code, const std::string& message);
  // After a run that qualified: the energy column on a GPU lane (energy.json in the run's
  // folder) when no earlier run of the record measured it, a note on a CPU lane. Returns the
  // run's report entry for it; an error only when the evidence cannot be written. Sets
  // `*interrupted` when a signal stopped it.
  Result<Json> ScoreEnergy(const RecordSpec& record, int run, const Prepared& prepared,
                           const RunOutcome& outcome, bool measured_before, bool* interrupted);

  // The records whose energy column gave a figure in this session: it is not measured again.
  std::set<std::string> energy_measured_;
  CommandContext& context_;
  SessionOptions options_;
  RuleSet rules_;
  std::vector<LocatedDataset> datasets_;
  std::vector<std::string> covered_;
  std::string python_;
  Pairing pairing_ = Pairing::kOnGpu;  // $RATCHET_PAIR_WARMUPS
  std::future<Result<std::optional<PythonFacts>>> python_probe_;
  std::future<void> pools_loaded_;
  std::optional<SandboxLock> lock_;
  std::optional<ContractInputs> contract_inputs_;
  Json contract_;
  RunSeed seed_;
  std::optional<EvidenceWriter> evidence_;
  bool finished_ = false;
};

// The options `--data`, `--python`, `--rules` and `--out` of a scoring command, for `command`
// (also the prefix of its default evidence folder).
SessionOptions SessionOptionsFromArgs(const Args& args, const char* command);

// Helpers of the commands.
Result<int64_t> ParseCount(const std::string& flag, const std::string& text, int64_t low,
                           int64_t high);
// A record id from a file name: its stem, every character outside [A-Za-z0-9._-] made '_'.
std::string RecordIdOf(const std::string& path);
bool IsNativeSpec(const std::string& spec);
// The file of FILE[:function] (FILE.py:name, FILE.cpp:method).
std::string SpecFile(const std::string& spec);

}  // namespace ratchet

#endif  // RATCHET_CLI_SESSION_H_
