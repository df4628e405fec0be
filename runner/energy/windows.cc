#include "energy/windows.h"

#include <algorithm>
#include <chrono>
#include <thread>

#include "core/clock.h"
#include "core/utf8.h"
#include "sandbox/policy.h"
#include "sandbox/reap.h"
#include "sandbox/spawn.h"

namespace ratchet {
namespace {

using Clock = std::chrono::steady_clock;

constexpr double kSleepSliceS = 0.1;

Status Interrupted() { return Status::Unavailable("interrupted by a signal"); }

}  // namespace

bool SleepUnlessInterrupted(double seconds, const std::atomic<bool>* interrupted) {
  const Clock::time_point start = Clock::now();
  for (;;) {
    if (interrupted != nullptr && interrupted->load()) return false;
    const double left = seconds - SecondsSince(start);
    if (left <= 0) return true;
    std::this_thread::sleep_for(std::chrono::duration<double>(std::min(left, kSleepSliceS)));
  }
}

Result<std::unique_ptr<WorkerProcess>> StartEnergyWorker(const WorkerLaunch& launch) {
  if (DescribeSandbox().full) RATCHET_RETURN_IF_ERROR(KillWorkerUids());
  return WorkerProcess::Start(launch);
}

Result<Json> GreetEnergyWorker(WorkerProcess& worker, const RuleSet& rules) {
  Frame reply;
  if (std::optional<CallFailure> failure =
          worker.Request(HelloCommand(rules, worker), rules.limits.worker_start_s,
                         "starting the worker", &reply)) {
    const std::string log = ValidUtf8(worker.log());
    return Status::Unavailable(failure->message + (log.empty() ? "" : "\nworker output:\n" + log));
  }
  if (DescribeSandbox().full) {
    const Json sandbox = reply.header.value("sandbox", Json());
    const Json uid = sandbox.is_object() ? sandbox.value("uid", Json()) : Json();
    if (!uid.is_number_integer() || uid.get<int64_t>() != static_cast<int64_t>(FirstWorkerUid())) {
      return Status::Unavailable(
          "could not sandbox the method: the worker does not run as the "
          "sandbox user (its hello says \"sandbox\": " +
          sandbox.dump() + ")");
    }
  }
  return reply.header;
}

WindowMeter::WindowMeter(Board& board, WorkerProcess& worker, const RuleSet& rules,
                         const std::atomic<bool>* interrupted)
    : board_(board), worker_(worker), rules_(rules), interrupted_(interrupted) {}

bool WindowMeter::interrupted() const { return interrupted_ != nullptr && interrupted_->load(); }

Status WindowMeter::Measure(const std::string& name,
                            const std::function<Status(EnergyWindow*)>& run) {
  if (interrupted()) return Interrupted();
  EnergyWindow window;
  window.name = name;
  // The clock first, then the counter, at both edges, as the seed's protocol reads them.
  const Clock::time_point t0 = Clock::now();
  Result<uint64_t> e0 = board_.EnergyMj();
  if (!e0.ok()) return e0.status();
  RATCHET_RETURN_IF_ERROR(run(&window));
  const Clock::time_point t1 = Clock::now();
  Result<uint64_t> e1 = board_.EnergyMj();
  if (!e1.ok()) return e1.status();
  window.seconds = std::chrono::duration<double>(t1 - t0).count();
  // Signed: a counter that went backwards is a problem of the column, not a wrap-around.
  window.joules = static_cast<double>(static_cast<int64_t>(*e1) - static_cast<int64_t>(*e0)) / 1e3;
  windows_.push_back(std::move(window));
  return Status::Ok();
}

Status WindowMeter::Idle(const std::string& name) {
  if (interrupted()) return Interrupted();
  Status frozen = worker_.Freeze(true);
  Status measured = frozen;
  if (frozen.ok()) {
    measured =
        SleepUnlessInterrupted(rules_.energy.settle_s, interrupted_) ? Status::Ok() : Interrupted();
  }
  if (measured.ok()) {
    measured = Measure(name, [&](EnergyWindow* window) {
      const RuleSet::Energy& e = rules_.energy;
      const Clock::time_point start = Clock::now();
      int64_t busy = 0;
      while (SecondsSince(start) < e.idle_s) {
        if (!SleepUnlessInterrupted(
                std::max(0.0, std::min(e.idle_sample_s, e.idle_s - SecondsSince(start))),
                interrupted_)) {
          return Interrupted();
        }
        Result<int64_t> utilization = board_.Utilization();
        if (!utilization.ok()) return utilization.status();
        busy = std::max(busy, *utilization);
      }
      window->utilization_max = busy;
      window->contexts = board_.Contexts();
      return Status::Ok();
    });
  }
  // Thawed whatever happened, so that closing the worker never meets a stopped process group.
  Status thawed = worker_.Freeze(false);
  if (!frozen.ok()) return frozen.Annotate("freezing the method for the " + name + " window");
  if (!measured.ok()) return measured;
  return thawed.Annotate("thawing the method after the " + name + " window");
}

Status WindowMeter::Reference() {
  const RuleSet::Energy& e = rules_.energy;
  return Measure("reference", [&](EnergyWindow* window) -> Status {
    Frame reply;
    const Json command = {
        {"cmd", "reference"}, {"seconds", e.reference_s}, {"dim", e.reference_dim}};
    if (std::optional<CallFailure> failure =
            worker_.Request(command, e.reference_s + static_cast<double>(e.reference_grace_s),
                            "running the telemetry reference", &reply)) {
      return Status::Unavailable(failure->message);
    }
    const Json count = reply.header.value("count", Json());
    const Json exact = reply.header.value("exact", Json());
    if (!count.is_number_integer() || count.get<int64_t>() < 1 || !exact.is_boolean()) {
      return Status::Unavailable(
          "the telemetry reference sent a malformed reply (an integer \"count\" of at least 1 "
          "and a boolean \"exact\" were expected)");
    }
    window->matmuls = count.get<int64_t>();
    window->dim = e.reference_dim;
    window->exact = exact.get<bool>();
    return Status::Ok();
  });
}

Status WindowMeter::Control(const EmptyInputs& empty) {
  const RuleSet::Energy& e = rules_.energy;
  return Measure("control", [&](EnergyWindow* window) -> Status {
    const Clock::time_point start = Clock::now();
    int64_t calls = 0;
    while (calls < e.energy_min_calls || SecondsSince(start) < e.control_window_s) {
      if (interrupted()) return Interrupted();
      WindowRequest request;
      request.empty = &empty;
      request.null_method = true;
      request.collect = false;
      request.timeout_s = static_cast<double>(rules_.limits.null_call_s);
      request.doing = "running the empty method in the control window";
      WindowResult result;
      if (std::optional<CallFailure> failure =
              RunWindow(worker_, request, rules_.draw.test, &result)) {
        return Status::Unavailable(failure->message);
      }
      ++calls;
    }
    window->calls = calls;
    return Status::Ok();
  });
}

}  // namespace ratchet
