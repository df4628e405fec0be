// A run split into shards: one run of one record each, scored by one ratchet-scorer process into
// a shard evidence directory of its own. The scheduler here decides which shard goes next, what
// an attempt's end means, and when the work is done; where a shard runs is its executor's
// (ShardExecutor: on this host, or as a Slurm job), so that the order of a run is unit-tested
// with a fake executor (tests/shard/shards_test.cc), as ninja's Builder is with a fake runner.
#ifndef RATCHET_SHARD_SHARDS_H_
#define RATCHET_SHARD_SHARDS_H_

#include <chrono>
#include <functional>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "core/canonical_json.h"
#include "core/status.h"

namespace ratchet {

struct Shard {
  std::string id;  // ShardId of the fields below
  std::string record;
  std::string submission_sha256;
  int run = 1;  // the record's run index, from 1
};

// The shard's content address: the sha256 of the canonical JSON of {locked, record, sha256, run,
// seed_commit}, so that the same work under the same contract and run seed has the same id.
// `locked` is the run contract's locked part; `seed_commit` the run seed's commitment (hex).
Result<std::string> ShardId(const Json& locked, const std::string& record,
                            const std::string& submission_sha256, int run,
                            const std::string& seed_commit);

// How one attempt at a shard ended.
enum class AttemptEnd {
  kScored,     // the scorer finished the shard's evidence (whatever the outcome: an outcome is
               // never retried)
  kFault,      // the infrastructure failed: the scorer died, the job was cancelled or failed, the
               // node went away, or the shard's folder is incomplete or fails verification
  kCancelled,  // stopped by the scheduler (the run was interrupted)
};
const char* AttemptEndName(AttemptEnd end);

// One attempt at a shard, as its executor reports it: the provenance the run keeps for every
// attempt.
struct ShardAttempt {
  int attempt = 1;          // from 1
  std::string executor;     // "local", "slurm"
  std::string host;         // where it ran
  std::string job;          // the executor's job and step ids ("" on this host)
  std::string step;
  std::string device;       // the device it was given ("0", "cpu")
  std::string device_uuid;  // the board, when the device has one
  std::string submitted;    // UTC, ISO 8601 (UtcNow): when the executor was given it
  std::string started;      // when it started (Slurm: the task's StartTime, to the second)
  std::string ended;
  std::string collected;    // when the scheduler saw its end (and verified its folder)
  double seconds = 0;       // wall time of the attempt
  AttemptEnd end = AttemptEnd::kScored;
  std::string why;          // a fault's cause, or why it was cancelled
  std::string folder;       // the shard's evidence directory
};
Json ShardAttemptJson(const ShardAttempt& attempt);

// Where shards run. Start hands a shard to the executor, which runs at most Capacity() at once;
// Wait reports the end of one that was started (each exactly once, a cancelled one too).
class ShardExecutor {
 public:
  virtual ~ShardExecutor() = default;
  virtual size_t Capacity() const = 0;
  // Starts attempt `attempt` of `shard`. An error is the infrastructure's: a fault of this
  // attempt.
  virtual Status Start(const Shard& shard, int attempt) = 0;
  // The shard id and report of an attempt that ended, or nullopt when none did within
  // `timeout`.
  virtual std::optional<std::pair<std::string, ShardAttempt>> Wait(
      std::chrono::milliseconds timeout) = 0;
  // Stops every attempt still running (each is then reported by Wait, as kCancelled): asks it
  // to stop (SIGTERM, scancel), so that it may finish its folder as interrupted.
  virtual void CancelAll() = 0;
  // Ends every attempt still running at once (SIGKILL), after CancelAll: for a second interrupt,
  // or attempts that did not stop within the scheduler's grace.
  virtual void KillAll() = 0;
};

// What the scheduler says as it goes: counts after every change, and a line for each fault.
struct ShardCounts {
  int done = 0, running = 0, failed = 0, queued = 0;
  std::optional<double> seconds_left;  // once an attempt has been scored
};
class ShardProgress {
 public:
  virtual ~ShardProgress() = default;
  virtual void Counts(const ShardCounts& counts) = 0;
  virtual void Line(const std::string& line) = 0;
  virtual void Finish() {}
};

class ShardScheduler {
 public:
  enum class State { kQueued, kRunning, kDone, kFailed };
  struct Entry {
    Shard shard;
    State state = State::kQueued;
    std::vector<ShardAttempt> attempts;
  };
  enum class End {
    kDone,         // every shard scored and verified
    kFailed,       // some shard ran out of attempts
    kInterrupted,  // interrupted: every running attempt was cancelled
  };

  // `verify` checks a scored attempt's folder (its manifest, and the contract's locked part
  // equal to the run's); an error makes the attempt a fault. `max_attempts` >= 1.
  ShardScheduler(ShardExecutor* executor, int max_attempts,
                 std::function<Status(const Shard&, const ShardAttempt&)> verify);

  // A shard to score. Internal if its id is added twice.
  Status Add(const Shard& shard);
  // A shard scored earlier (`ratchet run --resume`): kept as done, never scored again.
  Status AddDone(const Shard& shard, std::vector<ShardAttempt> attempts);

  // Runs queued shards until none is queued or running, or until `interrupts()` (how many
  // interrupting signals have come) is above 0: then every running attempt is cancelled and
  // waited for; those still running at a second interrupt, or `cancel_grace` after the first,
  // are killed (KillAll). Shards may be added between calls.
  End Run(const std::function<int()>& interrupts, ShardProgress* progress);
  void set_cancel_grace(std::chrono::milliseconds grace) { cancel_grace_ = grace; }

  const std::map<std::string, Entry>& entries() const { return entries_; }
  ShardCounts Counts() const;

 private:
  void Ended(const std::string& id, ShardAttempt attempt, ShardProgress* progress);

  ShardExecutor* executor_;
  int max_attempts_;
  std::function<Status(const Shard&, const ShardAttempt&)> verify_;
  std::map<std::string, Entry> entries_;
  std::vector<std::string> order_;  // the order shards were added: the order they start
  double scored_seconds_ = 0;
  int scored_attempts_ = 0;
  std::chrono::milliseconds cancel_grace_{30000};
};

// Progress on a terminal: one line, rewritten in place; Finish ends it.
class TerminalProgress : public ShardProgress {
 public:
  explicit TerminalProgress(std::ostream& out) : out_(out) {}
  void Counts(const ShardCounts& counts) override;
  void Line(const std::string& line) override;
  void Finish() override;

 private:
  std::ostream& out_;
  std::string shown_;
};

// Progress where the output is not a terminal: a plain line whenever the counts change.
class PlainProgress : public ShardProgress {
 public:
  explicit PlainProgress(std::ostream& out) : out_(out) {}
  void Counts(const ShardCounts& counts) override;
  void Line(const std::string& line) override;

 private:
  std::ostream& out_;
  std::string last_;
};

// Now in UTC, as ISO 8601 to the millisecond ("2026-12-02T21:30:00.125Z").
std::string UtcNow();

// "3 done, 2 running, 0 failed, 5 queued, about 4 min left"
std::string ShardCountsText(const ShardCounts& counts);

}  // namespace ratchet

#endif  // RATCHET_SHARD_SHARDS_H_
