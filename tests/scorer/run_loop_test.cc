// The order of a scoring run, with fake workers (scorer/worker_starter.h's seam): workers started
// ahead and frozen through every window of the running call, a finished call's worker stopped and
// killed before the next call's method loads, warm-ups in pairs and what happens when one fails,
// a worker that failed to start started again once, interruption, and nothing left at the end.
#include "scorer/run_loop.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <atomic>
#include <map>
#include <mutex>
#include <set>

#include "sandbox/policy.h"

namespace ratchet {
namespace {

const RuleSet& Rules() {
  static const RuleSet rules = *LoadRuleSet(std::nullopt);
  return rules;
}

RunPlan Plan() {
  RunSeed seed;
  seed.bytes.fill(3);
  return *MakeRunPlan(seed, Rules(), {"fashion"});
}

// What every fake worker did, in one order, and the rules of a run checked as it goes.
struct World {
  struct Worker {
    int number = 0;  // from 1, in the order started
    uid_t uid = 0;
    bool frozen = false, killed = false, closed = false, timed = false;
    bool hello_read = false, loaded = false, in_method = false;
    std::string caches;                    // the sha256 of the caches it was given a copy of
    std::vector<std::string> warm_draws;   // "dataset#index" of each warm-up it ran
    std::vector<std::string> windows;      // the kind of each window it ran
  };

  std::mutex mu;
  std::vector<std::string> events;
  std::vector<std::string> violations;
  std::vector<std::unique_ptr<Worker>> workers;
  std::vector<int> timed_order;  // the workers whose timed call ran, in order
  bool isolated = true;
  std::string device = "cpu";
  uint64_t free_bytes = 90;  // of 100 (the memory gauge's)
  // Faults, by worker number: the hello, the warm-up, the timed call fail.
  std::set<int> hello_fails, warm_fails, timed_fails;
  // The caches the starter gives each new worker (SeedCaches), by sha256; "" for none.
  std::string seeded;

  void Log(const std::string& event) { events.push_back(event); }
  void Violate(const std::string& what) { violations.push_back(what); }

  // The first event that starts with `prefix`, or events.size().
  size_t Find(const std::string& prefix) const {
    auto it = std::find_if(events.begin(), events.end(),
                           [&](const std::string& event) { return event.rfind(prefix, 0) == 0; });
    return static_cast<size_t>(it - events.begin());
  }
  size_t Count(const std::string& prefix) const {
    return static_cast<size_t>(
        std::count_if(events.begin(), events.end(),
                      [&](const std::string& e) { return e.rfind(prefix, 0) == 0; }));
  }
};

class FakeWorker : public CallWorker {
 public:
  FakeWorker(World* world, World::Worker* state) : world_(world), state_(state) {
    folder_ = "/fake/worker-" + std::to_string(state->number);
  }

  const std::string& folder() const override { return folder_; }
  uid_t uid() const override { return state_->uid; }
  bool running() const override { return !state_->closed; }
  uint64_t buffer_bytes() const override { return 1; }

  std::optional<CallFailure> Request(const Json& command, double timeout_s,
                                     const std::string& doing, Frame* reply, bool spin) override {
    if (std::optional<CallFailure> failure = Send(command, timeout_s, doing)) return failure;
    return Receive(timeout_s, doing, reply, spin);
  }
  std::optional<CallFailure> Send(const Json& command, double, const std::string&) override {
    pending_ = command.value("cmd", "");
    return std::nullopt;
  }
  std::optional<CallFailure> Receive(double, const std::string&, Frame* reply, bool) override {
    std::lock_guard<std::mutex> lock(world_->mu);
    const std::string command = pending_;
    Log(command);
    if (command == "hello") {
      if (world_->hello_fails.count(state_->number)) {
        return CallFailure{"crash", "worker " + Name() + " did not start", false};
      }
      reply->header = Json{{"ok", true},
                           {"device", world_->device},
                           {"uuid", world_->device == "cuda" ? "GPU-fake" : ""},
                           {"sandbox", {{"uid", static_cast<int64_t>(state_->uid)}}}};
      state_->hello_read = true;
    } else if (command == "load") {
      CheckAtLoad();
      state_->loaded = true;
      reply->header = Json{{"ok", true}};
    }
    return std::nullopt;
  }
  bool ReplyWaiting(double) const override { return true; }
  std::optional<uint64_t> page_cache_left_bytes() const override { return std::nullopt; }
  const std::string& caches_sha256() const override { return state_->caches; }
  std::optional<CallFailure> EnterMethod() override {
    std::lock_guard<std::mutex> lock(world_->mu);
    Log("method-group " + Name());
    state_->in_method = true;
    return std::nullopt;
  }

  std::optional<CallFailure> RunWindow(const WindowRequest& request, int64_t test_rows,
                                       WindowResult* result) override {
    const std::string kind = request.doing.find("calibrating") != std::string::npos ? "calibrate"
                             : request.doing.find("priming") != std::string::npos   ? "prime"
                             : request.doing.find("warm-up") != std::string::npos   ? "warm"
                                                                                    : "timed";
    {
      std::lock_guard<std::mutex> lock(world_->mu);
      Log(kind);
      state_->windows.push_back(kind);
      if (kind == "warm" && request.draw) {
        state_->warm_draws.push_back(request.draw->dataset + "#" +
                                     std::to_string(request.draw->index));
      }
      if (kind != "warm") CheckWindow(kind);
      if (kind == "timed") {
        state_->timed = true;
        world_->timed_order.push_back(state_->number);
      }
    }
    if (request.while_waiting) request.while_waiting();
    std::lock_guard<std::mutex> lock(world_->mu);
    if ((kind == "warm" && world_->warm_fails.count(state_->number)) ||
        (kind == "timed" && world_->timed_fails.count(state_->number))) {
      return CallFailure{"output", "worker " + Name() + " failed its " + kind + " call", false};
    }
    result->ms = 1.0;
    result->parent_ms = 1.25;
    result->labels.assign(static_cast<size_t>(test_rows), '\0');
    return std::nullopt;
  }

  Status Freeze(bool stop, bool whole_uid) override {
    std::lock_guard<std::mutex> lock(world_->mu);
    if (!world_->isolated) world_->Violate("worker " + Name() + " frozen under a partial sandbox");
    if (state_->frozen != stop)
      Log(std::string(stop ? "freeze" : "thaw") + (whole_uid ? " uid" : ""));
    state_->frozen = stop;
    return Status::Ok();
  }
  Status AwaitFrozen(double, bool) override { return Status::Ok(); }
  Status Kill() override {
    std::lock_guard<std::mutex> lock(world_->mu);
    if (!state_->killed) Log("kill");
    state_->killed = true;
    return Status::Ok();
  }
  void Close() override {
    std::lock_guard<std::mutex> lock(world_->mu);
    if (!state_->closed) Log("close");
    state_->killed = state_->closed = true;
  }
  ~FakeWorker() override { Close(); }

  std::string log() const override { return "log of worker " + std::to_string(state_->number); }
  uint64_t log_total_bytes() const override { return 10; }
  std::string exit_description() const override { return state_->closed ? "signal 9" : "running"; }
  std::optional<CallFailure> LimitHit() const override { return std::nullopt; }
  Json GroupUsageJson() const override { return Json::object(); }

 private:
  std::string Name() const { return std::to_string(state_->number); }
  void Log(const std::string& what) { world_->Log(what + " " + Name()); }

  // A window of this worker: nothing of any other worker runs (each is frozen, or killed), but
  // for one that has answered its hello and holds no method: it waits for its next command.
  void CheckWindow(const std::string& kind) {
    for (const auto& other : world_->workers) {
      if (other.get() == state_ || other->killed || other->frozen) continue;
      if (other->hello_read && !other->loaded) continue;
      world_->Violate("worker " + std::to_string(other->number) + " ran during the " + kind +
                      " window of worker " + Name());
    }
  }
  // A method is loaded only once the workers of every finished call are killed.
  void CheckAtLoad() {
    if (!state_->in_method) {
      world_->Violate("worker " + Name() + " loaded its method outside its method's group");
    }
    for (const auto& other : world_->workers) {
      if (other.get() != state_ && other->timed && !other->killed) {
        world_->Violate("worker " + Name() + " loaded its method while the worker of a finished " +
                        "call (" + std::to_string(other->number) + ") was not killed");
      }
    }
  }

  World* world_;
  World::Worker* state_;
  std::string folder_;
  std::string pending_;
};

class FakeStarter : public WorkerStarter {
 public:
  explicit FakeStarter(World* world) : world_(world) {}

  bool isolated() const override { return world_->isolated; }
  Status ClearWorkerUids() override {
    std::lock_guard<std::mutex> lock(world_->mu);
    world_->Log("clear uids");
    return Status::Ok();
  }
  Result<std::unique_ptr<CallWorker>> Start(uid_t uid) override {
    std::lock_guard<std::mutex> lock(world_->mu);
    auto state = std::make_unique<World::Worker>();
    state->number = static_cast<int>(world_->workers.size()) + 1;
    state->uid = world_->isolated ? uid : kSandboxUid;
    state->caches = world_->seeded;
    for (const auto& other : world_->workers) {
      if (world_->isolated && !other->killed && other->uid == uid) {
        world_->Violate("worker " + std::to_string(state->number) + " took uid " +
                        std::to_string(uid) + " of worker " + std::to_string(other->number) +
                        ", which was not killed");
      }
    }
    world_->Log("start " + std::to_string(state->number));
    World::Worker* raw = state.get();
    world_->workers.push_back(std::move(state));
    return std::unique_ptr<CallWorker>(new FakeWorker(world_, raw));
  }
  // One file, saying which worker compiled it; read only from a worker that is killed.
  Result<CacheSet> ReadCaches(CallWorker& worker) override {
    std::lock_guard<std::mutex> lock(world_->mu);
    const std::string number = worker.folder().substr(worker.folder().rfind('-') + 1);
    world_->Log("read caches " + number);
    for (const auto& state : world_->workers) {
      if (std::to_string(state->number) == number && !state->killed) {
        world_->Violate("the caches of worker " + number + " were read while it could run");
      }
    }
    CacheSet caches;
    const std::string bytes = "compiled by worker " + number;
    caches.files.push_back(FolderFile{"cache/triton/k/kernel.cubin", bytes});
    caches.listing.push_back(
        CacheFileEntry{"triton/k/kernel.cubin", static_cast<int64_t>(bytes.size()), "ab"});
    caches.sha256 = CachesSha256(caches.listing);
    caches.bytes = bytes.size();
    return caches;
  }
  void SeedCaches(CacheSet caches) override {
    std::lock_guard<std::mutex> lock(world_->mu);
    world_->Log("seed caches");
    world_->seeded = caches.sha256;
  }
  std::vector<pid_t> ProcessesOf(uid_t) override { return {}; }
  bool AwaitGone(const std::vector<pid_t>&, double) override { return true; }
  void KillWorkerUids() override {
    std::lock_guard<std::mutex> lock(world_->mu);
    world_->Log("kill uids");
  }
  Result<std::unique_ptr<MemoryGauge>> OpenMemoryGauge(bool, const std::string&) override {
    class Gauge : public MemoryGauge {
     public:
      explicit Gauge(uint64_t free_bytes) : free_bytes_(free_bytes) {}
      Result<MemoryReading> Read() override { return MemoryReading{100, free_bytes_}; }
      std::string Name() const override { return "fake"; }

     private:
      uint64_t free_bytes_;
    };
    return std::unique_ptr<MemoryGauge>(new Gauge(world_->free_bytes));
  }

 private:
  World* world_;
};

class Observer : public RunObserver {
 public:
  explicit Observer(World* world) : world_(world) {}
  Status BeforeFirstWindow(const Json* hello) override {
    world_->Log(hello ? "contract" : "contract without hello");
    return Status::Ok();
  }
  void FirstWorker(const Json&) override {}
  void CallComplete(size_t number, size_t, const CallRecord&) override {
    completed.push_back(number);
    if (interrupt_after && number == interrupt_after) interrupted->store(true);
  }
  std::vector<size_t> completed;
  size_t interrupt_after = 0;
  std::atomic<bool>* interrupted = nullptr;

 private:
  World* world_;
};

Draw FakeDraw(const std::string& dataset, uint64_t index) {
  Draw draw;
  draw.dataset = dataset;
  draw.index = index;
  draw.test_y.assign(static_cast<size_t>(Rules().draw.test), 0);
  return draw;
}

struct Scored {
  Result<RunOutcome> outcome = Status::Internal("not run");
  std::vector<size_t> completed;
};

Scored Score(World* world, bool native, Pairing pairing, size_t interrupt_after = 0,
             CompileStepWhen compile_step = CompileStepWhen::kNever) {
  RunInputs inputs;
  inputs.compile_step = compile_step;
  inputs.submission.native = native;
  inputs.submission.function = native ? "method" : "method";
  inputs.rules = &Rules();
  inputs.pairing = pairing;
  inputs.board_is_gpu = world->device == "cuda";
  std::atomic<bool> interrupted{false};
  inputs.interrupted = &interrupted;
  Observer observer(world);
  observer.interrupt_after = interrupt_after;
  observer.interrupted = &interrupted;
  inputs.observer = &observer;
  const RunPlan plan = Plan();
  FakeStarter starter(world);
  Scored scored;
  {
    RunLoop loop(inputs, plan, starter, [](const std::string& dataset, uint64_t index) {
      return Result<Draw>(FakeDraw(dataset, index));
    });
    scored.outcome = loop.Run();
  }
  scored.completed = observer.completed;
  return scored;
}

std::string Events(const World& world) {
  std::string all;
  for (const std::string& event : world.events) all += event + "\n";
  return all;
}

// The run went through every planned call, with no failure, and broke no rule of a run.
::testing::AssertionResult AWholeRun(const Scored& scored, const World& world) {
  if (!scored.outcome.ok()) {
    return ::testing::AssertionFailure() << scored.outcome.status().message();
  }
  const RunOutcome& outcome = *scored.outcome;
  if (outcome.failure || outcome.harness_failure || outcome.interrupted) {
    return ::testing::AssertionFailure() << "the run stopped early\n" << Events(world);
  }
  if (outcome.calls.size() != Plan().calls.size()) {
    return ::testing::AssertionFailure()
           << outcome.calls.size() << " calls of " << Plan().calls.size() << "\n"
           << Events(world);
  }
  if (!world.violations.empty()) {
    return ::testing::AssertionFailure() << world.violations.front() << "\n" << Events(world);
  }
  return ::testing::AssertionSuccess();
}

// Every worker was closed, and the run ended by killing every process of the worker uids.
void ExpectNothingLeft(const World& world) {
  for (const auto& worker : world.workers) EXPECT_TRUE(worker->closed) << worker->number;
  ASSERT_FALSE(world.events.empty());
  EXPECT_EQ(world.events.back(), "kill uids") << Events(world);
}

// One worker's own steps, in the protocol's order.
void ExpectStepsInOrder(const World& world, int number) {
  const std::string n = " " + std::to_string(number);
  const std::vector<std::string> steps = {"start", "hello", "calibrate", "load",
                                          "warm",  "prime", "timed"};
  size_t at = 0;
  for (const std::string& step : steps) {
    auto it = std::find(world.events.begin() + static_cast<long>(at), world.events.end(), step + n);
    ASSERT_NE(it, world.events.end()) << step << n << " missing after event " << at << "\n"
                                      << Events(world);
    at = static_cast<size_t>(it - world.events.begin());
  }
}

TEST(RunLoopTest, WorkersAheadAreFrozenThroughEveryWindowAndEachCallsWorkerIsKilledBeforeTheNext) {
  World world;
  Scored scored = Score(&world, /*native=*/true, Pairing::kOnGpu);
  ASSERT_TRUE(AWholeRun(scored, world));
  const RunOutcome& outcome = *scored.outcome;
  // A native worker on a CPU: the first call's and two more are started before its first window.
  const size_t first_window = world.Find("calibrate 1");
  EXPECT_LT(world.Find("start 3"), first_window) << Events(world);
  EXPECT_GT(world.Find("start 4"), first_window) << Events(world);
  // The contract comes after the first hello, before the first window.
  EXPECT_LT(world.Find("hello 1"), world.Find("contract"));
  EXPECT_LT(world.Find("contract"), first_window);
  // One worker per call, in call order, each through every step; no pair on a CPU.
  std::vector<int> expected_order;
  for (int n = 1; n <= static_cast<int>(outcome.calls.size()); ++n) {
    expected_order.push_back(n);
    ExpectStepsInOrder(world, n);
  }
  EXPECT_EQ(world.timed_order, expected_order);
  // A finished call's worker is stopped (its whole uid) and killed after the next calibration.
  EXPECT_LT(world.Find("freeze uid 1"), world.Find("calibrate 2"));
  EXPECT_LT(world.Find("calibrate 2"), world.Find("kill 1"));
  EXPECT_LT(world.Find("kill 1"), world.Find("load 2"));
  for (const CallRecord& call : outcome.calls) {
    EXPECT_EQ(call.correct, call.total);
    EXPECT_FALSE(call.phases.contains("paired_with"));
  }
  EXPECT_EQ(scored.completed.size(), outcome.calls.size());
  ExpectNothingLeft(world);
}

TEST(RunLoopTest, WithTheMemoryShortTheLastCallsWorkerIsGoneBeforeTheMethodLoads) {
  World world;
  world.free_bytes = 50;
  Scored scored = Score(&world, /*native=*/true, Pairing::kOnGpu);
  ASSERT_TRUE(AWholeRun(scored, world));
  EXPECT_LT(world.Find("close 1"), world.Find("load 2")) << Events(world);
  const Json previous = scored.outcome->calls[1].phases.value("previous", Json::object());
  EXPECT_NE(previous.value("waited", "").find("of the memory free"), std::string::npos)
      << previous.dump();
  ExpectNothingLeft(world);
}

TEST(RunLoopTest, UnderAPartialSandboxEachWorkerIsGoneBeforeTheNextCallsFirstWindow) {
  World world;
  world.isolated = false;
  Scored scored = Score(&world, /*native=*/false, Pairing::kOnGpu);
  ASSERT_TRUE(AWholeRun(scored, world));
  EXPECT_EQ(world.Count("clear uids"), 1u);
  // No worker is started ahead: each is started when its call comes, once the last call's is
  // killed, and that one is gone before the first window.
  for (int n = 1; n < static_cast<int>(Plan().calls.size()); ++n) {
    const std::string next = std::to_string(n + 1);
    EXPECT_LT(world.Find("timed " + std::to_string(n)), world.Find("start " + next)) << n;
    EXPECT_LT(world.Find("kill " + std::to_string(n)), world.Find("start " + next)) << n;
    EXPECT_LT(world.Find("close " + std::to_string(n)), world.Find("calibrate " + next)) << n;
  }
  ExpectNothingLeft(world);
}

TEST(RunLoopTest, OnAGpuTheNextCallWarmsUpBesideThisOneAndStaysStoppedUntilItsOwnCall) {
  World world;
  world.device = "cuda";
  Scored scored = Score(&world, /*native=*/true, Pairing::kOnGpu);
  ASSERT_TRUE(AWholeRun(scored, world));
  const RunOutcome& outcome = *scored.outcome;
  // Call 2 leads the first pair (the first call never does): worker 3 is calibrated and warms
  // up during call 2, before call 2's timed call, and is stopped, its whole uid, until call 3.
  EXPECT_LT(world.Find("warm 3"), world.Find("timed 2")) << Events(world);
  EXPECT_LT(world.Find("freeze uid 3"), world.Find("prime 2")) << Events(world);
  EXPECT_LT(world.Find("timed 2"), world.Find("thaw uid 3")) << Events(world);
  EXPECT_EQ(outcome.calls[2].phases.value("paired_with", 0), 2);
  EXPECT_EQ(outcome.calls[1].phases.value("paired_with", 0), 3);
  // The pair's first call's worker stays stopped through the second's timed call.
  EXPECT_LT(world.Find("timed 3"), world.Find("kill 2")) << Events(world);
  std::vector<int> expected_order;
  for (int n = 1; n <= static_cast<int>(outcome.calls.size()); ++n) expected_order.push_back(n);
  EXPECT_EQ(world.timed_order, expected_order);
  ExpectNothingLeft(world);
}

TEST(RunLoopTest, APairThatFailsIsChargedToNeitherCallAndNoPairIsMadeAgain) {
  World world;
  world.device = "cuda";
  world.warm_fails = {3};  // the worker joined to call 2's warm-up
  Scored scored = Score(&world, /*native=*/true, Pairing::kOnGpu);
  ASSERT_TRUE(AWholeRun(scored, world));
  const RunOutcome& outcome = *scored.outcome;
  // Call 3 starts a worker of its own again, with the uid of the one that failed, and says why.
  EXPECT_NE(outcome.calls[2].phases.value("restarted_because", "").find("could not warm up beside"),
            std::string::npos)
      << outcome.calls[2].phases.dump();
  EXPECT_EQ(world.Count("warm 3"), 1u);
  for (const CallRecord& call : outcome.calls) {
    EXPECT_FALSE(call.phases.contains("paired_with")) << call.phases.dump();
  }
  ExpectNothingLeft(world);
}

TEST(RunLoopTest, ALeadersWarmUpThatFailsBesideItsPairStartsBothCallsAgainAlone) {
  World world;
  world.device = "cuda";
  world.warm_fails = {2};  // call 2's own worker, which leads the first pair
  Scored scored = Score(&world, /*native=*/true, Pairing::kOnGpu);
  ASSERT_TRUE(AWholeRun(scored, world));
  const RunOutcome& outcome = *scored.outcome;
  // Both calls of the pair run again, each from a worker of its own, and say why.
  EXPECT_NE(
      outcome.calls[1].phases.value("restarted_because", "").find("its warm-up failed beside"),
      std::string::npos)
      << outcome.calls[1].phases.dump();
  EXPECT_NE(outcome.calls[2].phases.value("restarted_because", "").find("warm-up beside it failed"),
            std::string::npos)
      << outcome.calls[2].phases.dump();
  EXPECT_NE(world.timed_order[1], 2);
  EXPECT_NE(world.timed_order[2], 3);
  for (const CallRecord& call : outcome.calls) {
    EXPECT_FALSE(call.phases.contains("paired_with")) << call.phases.dump();
  }
  ExpectNothingLeft(world);
}

TEST(RunLoopTest, AWorkerStartedAheadThatFailsIsStartedAgainOnceAndItsCallGoesOn) {
  World world;
  world.hello_fails = {2};
  Scored scored = Score(&world, /*native=*/true, Pairing::kOnGpu);
  ASSERT_TRUE(AWholeRun(scored, world));
  const RunOutcome& outcome = *scored.outcome;
  EXPECT_NE(outcome.calls[1].phases.value("restarted_because", "").find("did not start"),
            std::string::npos);
  // The worker started again runs call 2, after call 1's worker is gone.
  const int again = world.timed_order[1];
  EXPECT_GT(again, 3);
  EXPECT_LT(world.Find("close 1"), world.Find("start " + std::to_string(again))) << Events(world);
  EXPECT_EQ(world.workers[static_cast<size_t>(again - 1)]->uid, world.workers[1]->uid);
  ExpectNothingLeft(world);
}

TEST(RunLoopTest, AFirstWorkerThatNeverSaysHelloEndsTheRunAsTheHarnessesWithTheContractWritten) {
  World world;
  world.hello_fails = {1};
  Scored scored = Score(&world, /*native=*/true, Pairing::kOnGpu);
  ASSERT_TRUE(scored.outcome.ok()) << scored.outcome.status().message();
  ASSERT_TRUE(scored.outcome->harness_failure.has_value());
  EXPECT_EQ(scored.outcome->calls.size(), 1u);
  EXPECT_EQ(world.Count("contract without hello"), 1u) << Events(world);
  EXPECT_EQ(world.Count("calibrate"), 0u);
  ExpectNothingLeft(world);
}

TEST(RunLoopTest, AFailedTimedCallEndsTheRunWithTheCallsBeforeItKept) {
  World world;
  world.timed_fails = {3};
  Scored scored = Score(&world, /*native=*/false, Pairing::kOnGpu);
  ASSERT_TRUE(scored.outcome.ok()) << scored.outcome.status().message();
  const RunOutcome& outcome = *scored.outcome;
  ASSERT_TRUE(outcome.failure.has_value());
  EXPECT_EQ(outcome.failure->rule, "output");
  ASSERT_EQ(outcome.calls.size(), 3u);
  EXPECT_EQ(outcome.calls[2].log, "log of worker 3");
  EXPECT_EQ(world.Count("timed"), 3u);
  ExpectNothingLeft(world);
}

TEST(RunLoopTest, AnInterruptStopsTheRunBeforeTheNextCallAndLeavesNothing) {
  World world;
  Scored scored = Score(&world, /*native=*/false, Pairing::kOnGpu, /*interrupt_after=*/2);
  ASSERT_TRUE(scored.outcome.ok()) << scored.outcome.status().message();
  const RunOutcome& outcome = *scored.outcome;
  EXPECT_TRUE(outcome.interrupted);
  EXPECT_FALSE(outcome.failure || outcome.harness_failure);
  // Call 2 completes during call 3 (its worker is gone once call 3's calibration is done); call
  // 3 runs to its end, and no call after it starts.
  EXPECT_EQ(outcome.calls.size(), 3u);
  EXPECT_EQ(world.Count("timed"), 3u);
  ExpectNothingLeft(world);
}

// The compile step: one worker before the first call, warmed up on the warm-up dataset's draw 999
// (never a timed draw, never a window of a call), killed before its caches are read; every worker
// of the run's calls is started after it and given those caches, and each call names them.
TEST(RunLoopTest, TheCompileStepWarmsUpOneWorkerFirstAndEveryCallsWorkerGetsItsCaches) {
  World world;
  world.device = "cuda";
  Scored scored = Score(&world, /*native=*/false, Pairing::kOnGpu, 0, CompileStepWhen::kOnGpu);
  ASSERT_TRUE(AWholeRun(scored, world));
  const RunOutcome& outcome = *scored.outcome;
  ASSERT_TRUE(outcome.compile.has_value());
  const CompileEntry& compile = *outcome.compile;
  EXPECT_FALSE(compile.failure.has_value()) << *compile.failure;
  EXPECT_EQ(compile.warmup_dataset, Plan().calls.front().warmup_dataset);
  EXPECT_NE(compile.warmup_dataset, Rules().datasets.mnist);
  ASSERT_EQ(compile.files.size(), 1u);
  EXPECT_EQ(compile.caches_sha256, CachesSha256(compile.files));
  const World::Worker& first = *world.workers.front();
  EXPECT_EQ(first.windows, std::vector<std::string>{"warm"}) << Events(world);
  EXPECT_EQ(first.warm_draws, std::vector<std::string>{compile.warmup_dataset + "#999"});
  EXPECT_EQ(first.uid, WorkerUids().back());
  EXPECT_TRUE(first.closed);
  EXPECT_LT(world.Find("kill 1"), world.Find("read caches 1")) << Events(world);
  EXPECT_LT(world.Find("seed caches"), world.Find("start 2")) << Events(world);
  for (size_t i = 1; i < world.workers.size(); ++i) {
    EXPECT_EQ(world.workers[i]->caches, compile.caches_sha256) << "worker " << i + 1;
  }
  for (const CallRecord& call : outcome.calls) {
    EXPECT_EQ(call.phases.value("caches_sha256", ""), compile.caches_sha256);
  }
  // Worker 1 ran no call of the run.
  EXPECT_EQ(std::count(world.timed_order.begin(), world.timed_order.end(), 1), 0);
  ExpectNothingLeft(world);
}

// A compile step whose warm-up fails gives no caches: the run goes on, each call compiling for
// itself as it would without the step, and the failure is kept.
TEST(RunLoopTest, ACompileStepThatFailsGivesNoCachesAndTheRunGoesOn) {
  World world;
  world.device = "cuda";
  world.warm_fails = {1};
  Scored scored = Score(&world, /*native=*/false, Pairing::kOnGpu, 0, CompileStepWhen::kOnGpu);
  ASSERT_TRUE(AWholeRun(scored, world));
  const RunOutcome& outcome = *scored.outcome;
  ASSERT_TRUE(outcome.compile.has_value());
  ASSERT_TRUE(outcome.compile->failure.has_value());
  EXPECT_NE(outcome.compile->failure->find("failed its warm call"), std::string::npos);
  EXPECT_TRUE(outcome.compile->files.empty());
  EXPECT_EQ(world.Count("read caches"), 0u);
  EXPECT_EQ(world.Count("seed caches"), 0u);
  for (const CallRecord& call : outcome.calls) EXPECT_FALSE(call.phases.contains("caches_sha256"));
  ExpectNothingLeft(world);
}

// By default only a Python submission on a GPU board has the step; "never" turns it off there.
TEST(RunLoopTest, NoCompileStepOnTheCpuForANativeSubmissionOrWhenTurnedOff) {
  struct Case {
    std::string device;
    bool native;
    CompileStepWhen when;
    bool expected;
  };
  for (const Case& c : {Case{"cpu", false, CompileStepWhen::kOnGpu, false},
                        Case{"cuda", true, CompileStepWhen::kOnGpu, false},
                        Case{"cuda", false, CompileStepWhen::kNever, false},
                        Case{"cpu", true, CompileStepWhen::kAlways, true}}) {
    World world;
    world.device = c.device;
    Scored scored = Score(&world, c.native, Pairing::kOnGpu, 0, c.when);
    ASSERT_TRUE(AWholeRun(scored, world));
    EXPECT_EQ(scored.outcome->compile.has_value(), c.expected) << c.device << " " << c.native;
    EXPECT_EQ(world.Count("read caches"), c.expected ? 1u : 0u);
  }
}

}  // namespace
}  // namespace ratchet
