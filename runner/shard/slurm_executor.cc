#include "shard/slurm_executor.h"

#include <signal.h>
#include <sys/wait.h>

#include <algorithm>
#include <ctime>
#include <optional>
#include <set>
#include <sstream>
#include <thread>

#include "core/file.h"
#include "core/subprocess.h"

namespace ratchet {
namespace {

constexpr double kSlurmCommandTimeoutS = 60;
// A submitted task squeue no longer lists (Slurm forgot it, or it was cancelled while pending)
// is a fault after this many looks in a row.
constexpr int kUnseenLooks = 3;

// `text` as one word of a shell command.
std::string ShellWord(const std::string& text) {
  std::string quoted = "'";
  for (char c : text) quoted += c == '\'' ? std::string("'\\''") : std::string(1, c);
  return quoted + "'";
}

std::string StateWord(const std::string& state) {
  size_t end = 0;
  while (end < state.size() && (std::isupper(static_cast<unsigned char>(state[end])) ||
                                state[end] == '_')) {
    ++end;
  }
  return state.substr(0, end);
}

// "12_3" -> {"12_3"}; "12_[3-5,7]" -> {"12_3", "12_4", "12_5", "12_7"}: the tasks of one line of
// squeue (pending tasks may still be one record).
// A time as squeue prints it ("2026-12-03T00:41:21", the cluster's local time), or nullopt for
// "N/A" and anything else.
std::optional<std::time_t> SlurmTime(const std::string& text) {
  std::tm local{};
  const char* end = strptime(text.c_str(), "%Y-%m-%dT%H:%M:%S", &local);
  if (end == nullptr || *end != '\0') return std::nullopt;
  local.tm_isdst = -1;
  const std::time_t time = std::mktime(&local);
  if (time == static_cast<std::time_t>(-1)) return std::nullopt;
  return time;
}

std::string UtcText(std::time_t time) {
  std::tm utc{};
  gmtime_r(&time, &utc);
  char text[32];
  std::strftime(text, sizeof text, "%Y-%m-%dT%H:%M:%SZ", &utc);
  return text;
}

std::vector<std::string> TaskIds(const std::string& field) {
  const size_t bracket = field.find("_[");
  if (bracket == std::string::npos) return {field};
  const std::string array = field.substr(0, bracket);
  std::string ranges = field.substr(bracket + 2);
  if (!ranges.empty() && ranges.back() == ']') ranges.pop_back();
  const size_t limit = ranges.find('%');  // "1-9%2": at most 2 at once
  if (limit != std::string::npos) ranges = ranges.substr(0, limit);
  std::vector<std::string> ids;
  std::stringstream parts(ranges);
  std::string part;
  while (std::getline(parts, part, ',')) {
    const size_t dash = part.find('-');
    try {
      const long first = std::stol(part.substr(0, dash));
      const long last = dash == std::string::npos ? first : std::stol(part.substr(dash + 1));
      for (long i = first; i <= last && i - first < 100000; ++i)
        ids.push_back(array + "_" + std::to_string(i));
    } catch (const std::exception&) {
    }
  }
  return ids;
}

}  // namespace

std::optional<AttemptEnd> SlurmTaskEnd(const std::string& state, int exit_code, bool cancelled,
                                       std::string* why) {
  static const std::set<std::string> kNotEnded = {
      "PENDING",   "RUNNING",  "CONFIGURING", "COMPLETING", "SUSPENDED",
      "REQUEUED",  "REQUEUE_FED", "REQUEUE_HOLD", "RESIZING", "SIGNALING", "STAGE_OUT"};
  const std::string word = StateWord(state);
  if (kNotEnded.count(word)) return std::nullopt;
  if (word == "COMPLETED") return AttemptEnd::kScored;
  if (word == "FAILED") {
    if (WIFEXITED(exit_code) && WEXITSTATUS(exit_code) == 1) return AttemptEnd::kScored;
    return ShardProcessEnd(exit_code, cancelled, why);
  }
  if (word == "CANCELLED" && cancelled) {
    *why = "the run was interrupted";
    return AttemptEnd::kCancelled;
  }
  *why = "Slurm ended the job " + (word.empty() ? "(state '" + state + "')" : word);
  return AttemptEnd::kFault;
}

SlurmExecutor::SlurmExecutor(SlurmOptions options, ShardCommandMaker maker)
    : options_(std::move(options)), maker_(std::move(maker)) {}

SlurmExecutor::~SlurmExecutor() {
  std::set<std::string> arrays;
  for (const Task& task : tasks_) {
    if (!task.job.empty()) arrays.insert(task.job.substr(0, task.job.find('_')));
  }
  for (const std::string& array : arrays) (void)RunProcess({"scancel", array}, kSlurmCommandTimeoutS);
}

Status SlurmExecutor::Start(const Shard& shard, int attempt) {
  Result<ShardCommand> command = maker_(shard, attempt, "");
  if (!command.ok()) return command.status();
  if (command->argv.empty()) return Status::Internal("an empty command for shard " + shard.id);
  Task task;
  task.shard = shard;
  task.command = *command;
  task.attempt.attempt = attempt;
  task.attempt.executor = "slurm";
  task.attempt.folder = command->folder;
  task.attempt.submitted = UtcNow();
  tasks_.push_back(std::move(task));
  return Status::Ok();
}

void SlurmExecutor::Submit() {
  std::vector<Task*> batch;
  for (Task& task : tasks_) {
    if (task.job.empty() && !task.cancelled) batch.push_back(&task);
  }
  if (batch.empty()) return;
  const std::string script = options_.folder + "/array-" + std::to_string(++arrays_) + ".sh";
  std::string text = "#!/bin/bash\n# ratchet: one shard a task\ncase \"$SLURM_ARRAY_TASK_ID\" in\n";
  for (size_t i = 0; i < batch.size(); ++i) {
    const ShardCommand& c = batch[i]->command;
    std::string line;
    for (const auto& [name, value] : c.env) line += "export " + name + "=" + ShellWord(value) + "; ";
    line += "exec";
    for (const std::string& arg : c.argv) line += " " + ShellWord(arg);
    line += " < " + ShellWord(c.stdin_path.empty() ? "/dev/null" : c.stdin_path);
    line += " > " + ShellWord(c.stdout_path.empty() ? "/dev/null" : c.stdout_path);
    line += " 2> " + ShellWord(c.stderr_path.empty() ? "/dev/null" : c.stderr_path);
    text += "  " + std::to_string(i) + ") " + line + " ;;\n";
  }
  text += "esac\necho \"ratchet: no shard for task $SLURM_ARRAY_TASK_ID\" >&2\nexit 97\n";
  Status written = WriteFileAtomic(script, text);
  std::vector<std::string> argv = {"sbatch", "--parsable", "--no-requeue",
                                   "--job-name=ratchet-shards",
                                   "--array=0-" + std::to_string(batch.size() - 1),
                                   "--output=" + options_.folder + "/slurm-%A_%a.out"};
  if (!options_.partition.empty()) argv.push_back("--partition=" + options_.partition);
  if (!options_.account.empty()) argv.push_back("--account=" + options_.account);
  if (options_.time_minutes > 0) argv.push_back("--time=" + std::to_string(options_.time_minutes));
  if (options_.gpus > 0) argv.push_back("--gpus-per-task=" + std::to_string(options_.gpus));
  argv.push_back(script);
  std::string failure;
  std::string array;
  if (!written.ok()) {
    failure = "the job script could not be written: " + written.message();
  } else {
    Result<ProcessResult> submitted = RunProcess(argv, kSlurmCommandTimeoutS);
    if (!submitted.ok()) {
      failure = "sbatch: " + submitted.status().message();
    } else if (submitted->exit_code != 0) {
      failure = "sbatch exited " + std::to_string(submitted->exit_code) + ": " + submitted->err;
    } else {
      array = submitted->out.substr(0, submitted->out.find_first_of(";\n"));
      if (array.empty() || array.find_first_not_of("0123456789") != std::string::npos) {
        failure = "sbatch printed no job id: " + submitted->out;
      }
    }
  }
  for (size_t i = 0; i < batch.size(); ++i) {
    if (failure.empty()) {
      batch[i]->job = array + "_" + std::to_string(i);
      batch[i]->attempt.job = batch[i]->job;
      batch[i]->attempt.step = "batch";
    } else {
      batch[i]->job = "-";  // never submitted
      ShardAttempt attempt = batch[i]->attempt;
      attempt.end = AttemptEnd::kFault;
      attempt.why = failure;
      attempt.ended = UtcNow();
      ended_.push_back({batch[i]->shard.id, attempt});
    }
  }
  if (!failure.empty()) {
    tasks_.erase(std::remove_if(tasks_.begin(), tasks_.end(),
                                [](const Task& t) { return t.job == "-"; }),
                 tasks_.end());
  }
}

void SlurmExecutor::Look() {
  std::set<std::string> arrays;
  for (const Task& task : tasks_) {
    if (!task.job.empty()) arrays.insert(task.job.substr(0, task.job.find('_')));
  }
  if (arrays.empty()) return;
  std::string jobs;
  for (const std::string& array : arrays) jobs += (jobs.empty() ? "" : ",") + array;
  Result<ProcessResult> listed =
      RunProcess({"squeue", "--array", "--noheader", "--states=all", "--jobs=" + jobs,
                  "--Format=JobArrayID:40,State:24,exit_code:12,NodeList:64,StartTime:24,"
                  "EndTime:24"},
                 kSlurmCommandTimeoutS);
  // squeue may fail while slurmctld restarts: nothing is concluded from a look that failed.
  if (!listed.ok() || listed->exit_code != 0) return;
  struct Row {
    std::string state, node, start, end;
    int exit_code = 0;
  };
  std::map<std::string, Row> rows;
  std::stringstream lines(listed->out);
  std::string line;
  while (std::getline(lines, line)) {
    std::stringstream words(line);
    std::string id, state, exit_text;
    Row row;
    if (!(words >> id >> state >> exit_text)) continue;
    words >> row.node >> row.start >> row.end;
    row.state = state;
    try {
      row.exit_code = std::stoi(exit_text);
    } catch (const std::exception&) {
      row.exit_code = 0;
    }
    for (const std::string& task : TaskIds(id)) rows[task] = row;
  }
  for (auto it = tasks_.begin(); it != tasks_.end();) {
    Task& task = *it;
    if (task.job.empty()) {
      ++it;
      continue;
    }
    auto row = rows.find(task.job);
    std::optional<AttemptEnd> end;
    std::string why;
    if (row == rows.end()) {
      if (++task.unseen >= kUnseenLooks || task.cancelled) {
        end = task.cancelled ? AttemptEnd::kCancelled : AttemptEnd::kFault;
        why = task.cancelled ? "the run was interrupted (cancelled before it started)"
                             : "Slurm no longer lists the job";
      }
    } else {
      task.unseen = 0;
      end = SlurmTaskEnd(row->second.state, row->second.exit_code, task.cancelled, &why);
      if (row->second.node != "(null)" && !row->second.node.empty()) {
        task.attempt.host = row->second.node;
      }
      if (std::optional<std::time_t> start = SlurmTime(row->second.start)) {
        task.attempt.started = UtcText(*start);
        if (std::optional<std::time_t> ended = end ? SlurmTime(row->second.end) : std::nullopt) {
          task.attempt.ended = UtcText(*ended);
          task.attempt.seconds = std::difftime(*ended, *start);
        }
      }
    }
    if (!end) {
      ++it;
      continue;
    }
    ShardAttempt attempt = task.attempt;
    attempt.end = *end;
    attempt.why = why;
    if (attempt.ended.empty()) attempt.ended = UtcNow();
    ended_.push_back({task.shard.id, attempt});
    it = tasks_.erase(it);
  }
}

void SlurmExecutor::KillAll() {
  // scancel alone ends a task with SIGTERM, then SIGKILL after the cluster's KillWait; this sends
  // SIGKILL now, to the batch script too (--full).
  std::set<std::string> arrays;
  for (Task& task : tasks_) {
    task.cancelled = true;
    if (!task.job.empty()) arrays.insert(task.job.substr(0, task.job.find('_')));
  }
  for (const std::string& array : arrays) {
    (void)RunProcess({"scancel", "--signal=KILL", "--full", array}, kSlurmCommandTimeoutS);
  }
}

std::optional<std::pair<std::string, ShardAttempt>> SlurmExecutor::Wait(
    std::chrono::milliseconds timeout) {
  const auto until = std::chrono::steady_clock::now() + timeout;
  Submit();
  for (;;) {
    if (!ended_.empty()) {
      std::pair<std::string, ShardAttempt> first = ended_.front();
      ended_.erase(ended_.begin());
      return first;
    }
    const auto now = std::chrono::steady_clock::now();
    if (now - last_look_ >= options_.poll) {
      last_look_ = now;
      Look();
      continue;
    }
    if (now >= until || tasks_.empty()) return std::nullopt;
    std::this_thread::sleep_for(std::min<std::chrono::steady_clock::duration>(
        until - now, last_look_ + options_.poll - now));
  }
}

void SlurmExecutor::CancelAll() {
  std::set<std::string> arrays;
  for (Task& task : tasks_) {
    task.cancelled = true;
    if (!task.job.empty()) arrays.insert(task.job.substr(0, task.job.find('_')));
  }
  for (const std::string& array : arrays) (void)RunProcess({"scancel", array}, kSlurmCommandTimeoutS);
  // What was never submitted ends here.
  for (auto it = tasks_.begin(); it != tasks_.end();) {
    if (!it->job.empty()) {
      ++it;
      continue;
    }
    ShardAttempt attempt = it->attempt;
    attempt.end = AttemptEnd::kCancelled;
    attempt.why = "the run was interrupted (never submitted)";
    attempt.ended = UtcNow();
    ended_.push_back({it->shard.id, attempt});
    it = tasks_.erase(it);
  }
}

}  // namespace ratchet
