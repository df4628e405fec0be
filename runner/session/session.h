// A scoring session of ratchet-scorer, what `ratchet score` and `ratchet run` ask it for: it
// verifies the datasets, holds the sandbox lock, gathers the contract, begins the evidence
// directory with the committed run seed, scores records into it (every run of every record, each
// timed call in a fresh sandboxed worker, a line per call on the way), and finishes the directory
// as complete, failed or interrupted. The tool decides what to score and what a result means
// (session/request.h).
#ifndef RATCHET_SESSION_SESSION_H_
#define RATCHET_SESSION_SESSION_H_

#include <future>
#include <map>
#include <memory>
#include <optional>
#include <ostream>
#include <set>
#include <string>
#include <vector>

#include "contract/gather.h"
#include "core/canonical_json.h"
#include "core/status.h"
#include "data/locate.h"
#include "evidence/writer.h"
#include "rules/rule_set.h"
#include "sandbox/lock.h"
#include "scorer/prepare.h"
#include "scorer/run.h"
#include "session/request.h"

namespace ratchet {

// Where a session's lines for a person go: `out` the progress, `err` the errors and warnings.
struct SessionOutput {
  std::ostream& out;
  std::ostream& err;
};

class ScoringSession {
 public:
  // Everything before the first worker that can fail on bad input or a missing dataset fails
  // here, before any evidence folder exists. Begin installs the handlers of SIGINT and SIGTERM
  // first (session/interrupt.h): a signal that comes before the folder begins (while the sandbox
  // lock is awaited, say) fails Begin, and Interrupted() says why; one that comes after stops the
  // first run, and the folder is finished as interrupted.
  static Result<std::unique_ptr<ScoringSession>> Begin(const SessionOptions& options,
                                                       SessionOutput output);
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
  Status Complete(const std::map<std::string, ReportRecord>& records, const Json& extra,
                  int exit_code, const std::string& message);
  // Completes the contract (waiting for the interpreter probe if it still runs; on a CUDA device
  // the board's L2 size and SM count from `hello`, the first worker's, else asked of CUDA) and
  // writes it into the evidence, once; contract() holds it after. An error of the probe is
  // returned, the contract is still written, with the interpreter's facts null.
  Status WriteContract(const Json* hello = nullptr);
  // Finishes as failed (the harness could not do its work) or interrupted; prints why.
  int Fail(const Status& status);
  int Interrupt();

 private:
  ScoringSession(SessionOutput output, const SessionOptions& options);
  Status Finish(const char* status, int exit_code, const std::string& message);
  // After a run that qualified: the energy column on a GPU lane (energy.json in the run's
  // folder) when no earlier run of the record measured it, a note on a CPU lane. Returns the
  // run's report entry for it; an error only when the evidence cannot be written. Sets
  // `*interrupted` when a signal stopped it.
  Result<Json> ScoreEnergy(const RecordSpec& record, int run, const Prepared& prepared,
                           const RunOutcome& outcome, bool measured_before, bool* interrupted);

  // The records whose energy column gave a figure in this session: it is not measured again.
  std::set<std::string> energy_measured_;
  SessionOutput context_;
  SessionOptions options_;
  RuleSet rules_;
  std::vector<LocatedDataset> datasets_;
  std::vector<std::string> covered_;
  std::string python_;
  Pairing pairing_ = Pairing::kNever;  // $RATCHET_PAIR_WARMUPS
  CompileStepWhen compile_step_ = CompileStepWhen::kOnGpu;  // $RATCHET_COMPILE_STEP
  std::future<Result<std::optional<PythonFacts>>> python_probe_;
  std::future<void> pools_loaded_;
  std::optional<SandboxLock> lock_;
  std::optional<ContractInputs> contract_inputs_;
  Json contract_;
  RunSeed seed_;
  std::optional<EvidenceWriter> evidence_;
  bool finished_ = false;
};

}  // namespace ratchet

#endif  // RATCHET_SESSION_SESSION_H_
