// The tool's side of a scoring session: starts ratchet-scorer (found beside this executable),
// asks it to score records and to finish the evidence, and prints what it says for a person
// (session/request.h is the format). `ratchet run` and `ratchet score` decide what to score and
// what a result means; the scorer decides every outcome and writes every file of the evidence.
#ifndef RATCHET_CLI_SCORER_CLIENT_H_
#define RATCHET_CLI_SCORER_CLIENT_H_

#include <sys/types.h>

#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "cli/commands.h"
#include "cli/interrupt.h"
#include "core/canonical_json.h"
#include "core/status.h"
#include "sandbox/lock.h"
#include "session/request.h"

namespace ratchet {

// The scorer beside this executable: "<folder of /proc/self/exe>/ratchet-scorer". An error that
// says how to get one when it is absent.
Result<std::string> FindScorer();

// Whether SIGINT or SIGTERM reached this process while the latest scorer ran (it was passed on):
// a scorer that stopped then, or whose session could not begin, was interrupted.
bool ScorerInterrupted();

// Runs `ratchet-scorer NAME ARGS... EXTRA...` with this process's stdin, stdout and stderr, passing
// SIGINT and SIGTERM on, and returns its exit code; an error (printed on `context.err`) when it
// cannot be started. `ratchet contract` and `ratchet telemetry` are answered so.
int RunScorerCommand(const std::string& name, const std::vector<std::string>& args,
                     const std::vector<std::string>& extra, CommandContext& context);

// The lock of the device a scorer started by this process scores on: one per value of
// CUDA_VISIBLE_DEVICES (a GPU of `ratchet run --devices`), "all" when it is not set. Scorers side
// by side each hold a sandbox slot of their own (docs/sandbox.md, "Slots"); this lock keeps two of
// them off one device, where each would disturb the other's times.
std::string DeviceLockPath();

class ScorerClient {
 public:
  // Starts the scorer and begins its session. An error of the session's beginning (bad input, a
  // missing dataset) is returned as the scorer gave it, before any evidence folder exists.
  // `progress.out` gets the scorer's progress lines, `progress.err` its errors. Without
  // `device_lock` (a CPU lane's shards side by side, whose times are development figures) the
  // device's lock is not taken; the scorer's sandbox slot still keeps the workers apart.
  static Result<std::unique_ptr<ScorerClient>> Begin(const SessionOptions& options,
                                                     CommandContext& progress,
                                                     bool device_lock = true);
  // A session not finished by Complete, Fail or Interrupt is ended by closing the scorer's
  // requests: it finishes its evidence as failed, and this waits for it.
  ~ScorerClient();
  ScorerClient(const ScorerClient&) = delete;
  ScorerClient& operator=(const ScorerClient&) = delete;

  const std::string& evidence_path() const { return evidence_path_; }
  const std::string& device_kind() const { return device_kind_; }
  const Json& rule_set() const { return rule_set_; }
  // The contract once the scorer wrote it (null before).
  const Json& contract() const { return contract_; }
  // SIGINT or SIGTERM reached this process since Begin (it is passed on to the scorer).
  bool interrupted() const;

  // Scores `runs` runs of `record`, numbered from `first_run`. An error when the scorer could not
  // write the evidence or stopped answering; a harness failure is in the result.
  Result<RecordResult> Score(const RecordSpec& record, int runs, int first_run = 1);
  // Asks the scorer to write the contract now; contract() holds it after.
  Status WriteContract();
  // report.json (the records as the scorer scored them, and `extra`'s fields), the reveal, and
  // the directory finished as complete with `exit_code`. An error when the scorer could not (it
  // has said why).
  Status Complete(const Json& extra, int exit_code, const std::string& message);
  // Finishes as failed (printing why) or interrupted; the exit code to return.
  int Fail(const Status& status);
  int Interrupt();

 private:
  ScorerClient(CommandContext& progress, const std::string& command)
      : progress_(progress), command_(command) {}
  Status Send(const std::string& kind, const Json& body);
  // The next answer that is not text for the terminal (which is printed on the way). An error
  // when the scorer ended without one.
  Result<Message> Receive();
  // Waits for the scorer to exit; its exit code (128 + a signal's number).
  int Wait();
  int FinishWith(const std::string& kind, const Json& body);

  CommandContext& progress_;
  std::string command_;
  pid_t pid_ = -1;
  int requests_ = -1;  // the scorer's stdin
  int answers_ = -1;   // the scorer's stdout
  std::string buffer_;
  std::string evidence_path_, device_kind_;
  Json rule_set_, contract_;
  bool finished_ = false;
  int exit_code_ = -1;
  int raw_exit_ = -1;  // as Reap gave it: 128 + a signal's number for a scorer a signal ended
  // From the scorer's start until the client is gone; the dispositions it replaced come back then.
  std::optional<SignalForwarding> forwarding_;
  // The lock of the device the scorer scores on (DeviceLockPath), held as root until the client
  // is gone, after the scorer exited.
  std::optional<SandboxLock> device_lock_;
};

}  // namespace ratchet

#endif  // RATCHET_CLI_SCORER_CLIENT_H_
