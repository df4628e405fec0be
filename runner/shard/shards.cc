#include "shard/shards.h"

#include <cmath>
#include <cstdio>
#include <ctime>
#include <ostream>

namespace ratchet {

Result<std::string> ShardId(const Json& locked, const std::string& record,
                            const std::string& submission_sha256, int run,
                            const std::string& seed_commit) {
  if (!locked.is_object()) return Status::Internal("a shard id needs the contract's locked part");
  return CanonicalSha256(Json{{"locked", locked},
                              {"record", record},
                              {"sha256", submission_sha256},
                              {"run", run},
                              {"seed_commit", seed_commit}});
}

std::string UtcNow() {
  const auto now = std::chrono::system_clock::now();
  const std::time_t seconds = std::chrono::system_clock::to_time_t(now);
  const long long ms = std::chrono::duration_cast<std::chrono::milliseconds>(
                           now.time_since_epoch()).count() % 1000;
  std::tm utc{};
  gmtime_r(&seconds, &utc);
  char text[40];
  const size_t n = std::strftime(text, sizeof text, "%Y-%m-%dT%H:%M:%S", &utc);
  std::snprintf(text + n, sizeof text - n, ".%03lldZ", ms);
  return text;
}

const char* AttemptEndName(AttemptEnd end) {
  switch (end) {
    case AttemptEnd::kScored:
      return "scored";
    case AttemptEnd::kFault:
      return "fault";
    case AttemptEnd::kCancelled:
      return "cancelled";
  }
  return "?";
}

Json ShardAttemptJson(const ShardAttempt& a) {
  auto text = [](const std::string& s) { return s.empty() ? Json() : Json(s); };
  return Json{{"attempt", a.attempt},     {"executor", a.executor},
              {"host", text(a.host)},     {"job", text(a.job)},
              {"step", text(a.step)},     {"device", text(a.device)},
              {"device_uuid", text(a.device_uuid)},
              {"submitted", text(a.submitted)},
              {"started", text(a.started)},
              {"ended", text(a.ended)},   {"seconds", a.seconds},
              {"end", AttemptEndName(a.end)},
              {"collected", text(a.collected)},
              {"why", text(a.why)},       {"folder", text(a.folder)}};
}

ShardScheduler::ShardScheduler(ShardExecutor* executor, int max_attempts,
                               std::function<Status(const Shard&, const ShardAttempt&)> verify)
    : executor_(executor), max_attempts_(max_attempts < 1 ? 1 : max_attempts),
      verify_(std::move(verify)) {}

Status ShardScheduler::Add(const Shard& shard) {
  if (!entries_.emplace(shard.id, Entry{shard, State::kQueued, {}}).second) {
    return Status::Internal("shard " + shard.id + " is added twice");
  }
  order_.push_back(shard.id);
  return Status::Ok();
}

Status ShardScheduler::AddDone(const Shard& shard, std::vector<ShardAttempt> attempts) {
  if (!entries_.emplace(shard.id, Entry{shard, State::kDone, std::move(attempts)}).second) {
    return Status::Internal("shard " + shard.id + " is added twice");
  }
  order_.push_back(shard.id);
  return Status::Ok();
}

ShardCounts ShardScheduler::Counts() const {
  ShardCounts counts;
  for (const auto& [id, entry] : entries_) {
    switch (entry.state) {
      case State::kQueued:
        ++counts.queued;
        break;
      case State::kRunning:
        ++counts.running;
        break;
      case State::kDone:
        ++counts.done;
        break;
      case State::kFailed:
        ++counts.failed;
        break;
    }
  }
  if (scored_attempts_ > 0) {
    // Each shard left takes the mean time of those scored, `Capacity()` at once.
    const double mean = scored_seconds_ / scored_attempts_;
    const size_t capacity = executor_->Capacity() < 1 ? 1 : executor_->Capacity();
    const double waves =
        std::ceil(static_cast<double>(counts.queued + counts.running) / static_cast<double>(capacity));
    counts.seconds_left = mean * waves;
  }
  return counts;
}

namespace {

std::string Named(const Shard& shard) {
  return "shard " + shard.id.substr(0, 12) + " (" + shard.record + ", run " +
         std::to_string(shard.run) + ")";
}

}  // namespace

void ShardScheduler::Ended(const std::string& id, ShardAttempt attempt, ShardProgress* progress) {
  auto found = entries_.find(id);
  if (found == entries_.end() || found->second.state != State::kRunning) {
    if (progress) progress->Line("note: the executor reported shard " + id + ", which is not running");
    return;
  }
  Entry& entry = found->second;
  if (attempt.end == AttemptEnd::kScored) {
    Status verified = verify_ ? verify_(entry.shard, attempt) : Status::Ok();
    if (!verified.ok()) {
      attempt.end = AttemptEnd::kFault;
      attempt.why = "its folder fails verification: " + verified.message();
    }
  }
  if (attempt.collected.empty()) attempt.collected = UtcNow();
  entry.attempts.push_back(attempt);
  switch (attempt.end) {
    case AttemptEnd::kScored:
      entry.state = State::kDone;
      scored_seconds_ += attempt.seconds;
      ++scored_attempts_;
      break;
    case AttemptEnd::kCancelled:
      entry.state = State::kQueued;
      break;
    case AttemptEnd::kFault: {
      const bool again = static_cast<int>(entry.attempts.size()) < max_attempts_;
      entry.state = again ? State::kQueued : State::kFailed;
      if (progress) {
        progress->Line(Named(entry.shard) + ": attempt " + std::to_string(attempt.attempt) +
                       " failed: " + attempt.why +
                       (again ? "; trying again"
                              : "; no attempt left (" + std::to_string(max_attempts_) + " made)"));
      }
      break;
    }
  }
}

ShardScheduler::End ShardScheduler::Run(const std::function<int()>& interrupts,
                                        ShardProgress* progress) {
  size_t running = 0;
  for (const auto& [id, entry] : entries_) running += entry.state == State::kRunning;
  bool cancelling = false, killed = false;
  std::chrono::steady_clock::time_point cancelled_at;
  auto report = [&] {
    if (progress) progress->Counts(Counts());
  };
  report();
  for (;;) {
    const int seen = interrupts ? interrupts() : 0;
    if (!cancelling && seen > 0) {
      cancelling = true;
      cancelled_at = std::chrono::steady_clock::now();
      if (running > 0) executor_->CancelAll();
    }
    if (cancelling && !killed && running > 0 &&
        (seen > 1 || std::chrono::steady_clock::now() - cancelled_at >= cancel_grace_)) {
      killed = true;
      if (progress) {
        progress->Line(seen > 1 ? "interrupted again: killing the running shards"
                                : "the running shards did not stop within " +
                                      std::to_string(cancel_grace_.count() / 1000) +
                                      " s: killing them");
      }
      executor_->KillAll();
    }
    bool changed = false;
    if (!cancelling) {
      // Start queued shards, in the order they were added, while there is room. A shard whose
      // start fails is a fault of that attempt, and may be queued again: start from the top.
      bool started_one = true;
      while (started_one && running < executor_->Capacity()) {
        started_one = false;
        for (const std::string& id : order_) {
          Entry& entry = entries_.at(id);
          if (entry.state != State::kQueued) continue;
          const int attempt = static_cast<int>(entry.attempts.size()) + 1;
          Status started = executor_->Start(entry.shard, attempt);
          changed = true;
          started_one = true;
          entry.state = State::kRunning;
          if (started.ok()) {
            ++running;
          } else {
            ShardAttempt failed;
            failed.attempt = attempt;
            failed.end = AttemptEnd::kFault;
            failed.why = "it could not be started: " + started.message();
            Ended(id, failed, progress);
          }
          break;
        }
      }
    }
    if (changed) report();
    if (running == 0) break;
    std::optional<std::pair<std::string, ShardAttempt>> ended =
        executor_->Wait(std::chrono::milliseconds(100));
    if (!ended) continue;
    auto found = entries_.find(ended->first);
    if (found != entries_.end() && found->second.state == State::kRunning) --running;
    Ended(ended->first, std::move(ended->second), progress);
    report();
  }
  if (progress) progress->Finish();
  if (cancelling) return End::kInterrupted;
  for (const auto& [id, entry] : entries_) {
    if (entry.state == State::kFailed) return End::kFailed;
  }
  return End::kDone;
}

std::string ShardCountsText(const ShardCounts& counts) {
  std::string text = std::to_string(counts.done) + " done, " + std::to_string(counts.running) +
                     " running, " + std::to_string(counts.failed) + " failed, " +
                     std::to_string(counts.queued) + " queued";
  if (counts.seconds_left && (counts.running > 0 || counts.queued > 0)) {
    const double s = *counts.seconds_left;
    text += s < 90 ? ", about " + std::to_string(static_cast<int>(std::lround(s))) + " s left"
                   : ", about " + std::to_string(static_cast<int>(std::lround(s / 60))) +
                         " min left";
  }
  return text;
}

void TerminalProgress::Counts(const ShardCounts& counts) {
  shown_ = "shards: " + ShardCountsText(counts);
  out_ << "\r" << shown_ << "\033[K" << std::flush;
}

void TerminalProgress::Line(const std::string& line) {
  out_ << "\r\033[K" << line << "\n";
  if (!shown_.empty()) out_ << shown_;
  out_ << std::flush;
}

void TerminalProgress::Finish() {
  if (!shown_.empty()) out_ << "\n" << std::flush;
  shown_.clear();
}

void PlainProgress::Counts(const ShardCounts& counts) {
  // The estimate moves with every change; a line is printed when the counts do.
  ShardCounts plain = counts;
  plain.seconds_left.reset();
  const std::string key = ShardCountsText(plain);
  if (key == last_) return;
  last_ = key;
  out_ << "shards: " << ShardCountsText(counts) << "\n" << std::flush;
}

void PlainProgress::Line(const std::string& line) { out_ << line << "\n" << std::flush; }

}  // namespace ratchet
