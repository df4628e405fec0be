// The parts of RunLoop that its two files share (run_loop.cc: a call from its worker to its
// timed window; run_warmup.cc: the warm-up, alone or in a pair). Not for other users.
#ifndef RATCHET_SCORER_RUN_LOOP_INTERNAL_H_
#define RATCHET_SCORER_RUN_LOOP_INTERNAL_H_

#include <string>
#include <thread>

#include "core/sha256.h"
#include "scorer/run_loop.h"

namespace ratchet {
namespace run_loop_internal {

inline double MsSince(int64_t started_ns) { return (MonotonicNs() - started_ns) / 1e6; }

inline std::string DrawPhrase(const std::string& dataset) { return "a " + dataset + " draw"; }

// sha256 over train_x, train_y and test_x, in the input buffer's order and byte layout.
inline std::string InputsSha256(const Draw& draw) {
  Sha256 hash;
  hash.Update(draw.train_x.data(), draw.train_x.size() * sizeof(float));
  hash.Update(draw.train_y.data(), draw.train_y.size() * sizeof(int64_t));
  hash.Update(draw.test_x.data(), draw.test_x.size() * sizeof(float));
  return hash.HexDigest();
}

// Every field of a hello is checked for its type before it is used.
inline std::string TextOf(const Json& header, const char* key) {
  auto it = header.find(key);
  return it != header.end() && it->is_string() ? it->get<std::string>() : "";
}

// The worker's own instants of its start (the loader done, torch imported, hello read and
// answered) on the same clock, for where a start's time goes.
inline void AddWorkerSteps(const Json& header, Json* steps, int64_t started_ns) {
  auto clock = header.find("clock_ns");
  if (clock == header.end() || !clock->is_object()) return;
  for (const auto& [name, ns] : clock->items()) {
    if (ns.is_number_integer()) (*steps)["worker_" + name] = (ns.get<int64_t>() - started_ns) / 1e6;
  }
}

// Whether a hello comes from a worker that runs as the uid it was given.
inline bool RunsAsItsUid(const Json& header, const CallWorker& worker, bool isolated) {
  const Json sandbox = header.value("sandbox", Json());
  const Json uid = sandbox.is_object() ? sandbox.value("uid", Json()) : Json();
  return !isolated ||
         (uid.is_number_integer() && uid.get<int64_t>() == static_cast<int64_t>(worker.uid()));
}

inline CallRecord PlannedRecord(const PlannedCall& planned, const RuleSet& rules) {
  CallRecord record;
  record.dataset = planned.dataset;
  record.draw_index = planned.draw_index;
  record.warmup_dataset = planned.warmup_dataset;
  record.warmup_draw_index = planned.warmup_draw_index;
  record.total = rules.draw.test;
  return record;
}

}  // namespace run_loop_internal

struct RunLoop::CallState {
  size_t index = 0;
  const PlannedCall* planned = nullptr;
  bool follower = false;  // its worker was prepared by the last call (a pair)
  // The steps of this call on the parent's clock (ms since the call began: for a call whose
  // worker was prepared during the last one, since that began to prepare it), kept with the
  // phases: where a run's wall time goes.
  int64_t call_started_ns = 0;
  Json steps = Json::object();
  // What happened to the last call's worker during this call (for the evidence).
  Json previous = Json::object();
  std::unique_ptr<CallWorker> worker;
  int64_t spawned_ns = 0;  // when this call's worker was started
  CallRecord record;
  std::vector<Json> calibration_phases;
  Result<Draw> warm = Status::Internal("the warm-up draw was not made");
  Result<Draw> timed = Status::Internal("the timed draw was not made");
  Frame reply;
  std::optional<CallFailure> hello_failure;
  std::string restarted_because;
  size_t paired_with = 0;           // the call (from 1) whose warm-up this call's shared
  bool first_window_ready = false;  // BeforeFirstWindow was called
  Status ahead_started;             // starting the workers ahead during the warm-up

  void Step(const char* name) { steps[name] = run_loop_internal::MsSince(call_started_ns); }
};

struct RunLoop::JoinedWarmUp {
  std::optional<Result<Draw>> warm;
  WindowRequest request;
  WindowResult result;
  std::optional<CallFailure> failed;
  std::thread thread;
  ~JoinedWarmUp() {
    if (thread.joinable()) thread.join();
  }
};

}  // namespace ratchet

#endif  // RATCHET_SCORER_RUN_LOOP_INTERNAL_H_
