#include "scorer/window.h"

#include <time.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstring>

#include "rules/judge.h"
#include "rules/rule_ids.h"

namespace ratchet {

Json HelloCommand(const RuleSet& rules, const CallWorker& worker) {
  return Json{{"cmd", "hello"},
              {"train", rules.draw.train},
              {"test", rules.draw.test},
              {"dims", rules.draw.dims},
              {"buffer_bytes", worker.buffer_bytes()}};
}

EmptyInputs::EmptyInputs(const RuleSet::Draw& draw)
    : train_x(static_cast<size_t>(draw.train * draw.dims), 0.0f),
      test_x(static_cast<size_t>(draw.test * draw.dims), 0.0f),
      train_y(static_cast<size_t>(draw.train), 0) {}

int64_t MonotonicNs() {
  timespec now{};
  clock_gettime(CLOCK_MONOTONIC, &now);
  return int64_t{now.tv_sec} * 1000000000 + now.tv_nsec;
}

namespace {
constexpr const char* kPhaseNames[] = {"write",  "to_worker", "inputs",
                                       "method", "labels",    "to_parent"};
// Beside the window's steps: before it, the `gc` round trip, the copy into the staging area and
// (with copy threads) waking the write's helper threads; inside to_parent, the reply's read from
// its header to its last byte.
constexpr const char* kOtherNames[] = {"collect", "stage", "arm", "reply_read"};
}  // namespace

Json WindowPhases(int64_t opened_ns, int64_t written_ns, int64_t returned_ns,
                  const Json& clock_ns) {
  if (!clock_ns.is_object()) return Json();
  int64_t instants[7] = {opened_ns, written_ns, 0, 0, 0, 0, returned_ns};
  const char* names[] = {"received", "started", "ended", "replying"};
  for (int i = 0; i < 4; ++i) {
    auto it = clock_ns.find(names[i]);
    if (it == clock_ns.end() || !it->is_number_integer()) return Json();
    instants[i + 2] = it->get<int64_t>();
  }
  for (int i = 1; i < 7; ++i) {
    if (instants[i] < instants[i - 1]) return Json();
  }
  Json phases = Json::object();
  for (int i = 0; i < 6; ++i) phases[kPhaseNames[i]] = (instants[i + 1] - instants[i]) / 1e6;
  return phases;
}

Json MedianPhases(const std::vector<Json>& windows) {
  if (windows.empty()) return Json();
  Json medians = Json::object();
  for (const char* name : kPhaseNames) {
    std::vector<double> values;
    for (const Json& window : windows) {
      if (!window.is_object() || !window.contains(name)) return Json();
      values.push_back(window[name].get<double>());
    }
    medians[name] = Median(values);
  }
  for (const char* name : kOtherNames) {
    std::vector<double> values;
    for (const Json& window : windows) {
      if (window.contains(name) && window[name].is_number())
        values.push_back(window[name].get<double>());
    }
    if (values.size() == windows.size()) medians[name] = Median(values);
  }
  return medians;
}

std::optional<CallFailure> RunWindow(WorkerProcess& worker, const WindowRequest& request,
                                     int64_t test_rows, WindowResult* result) {
  Frame reply;
  const int64_t collect_ns = MonotonicNs();
  if (request.collect) {
    if (std::optional<CallFailure> failure = worker.Request(
            request.spin ? Json{{"cmd", "gc"}, {"spin_ms", kWorkerSpinMs}} : Json{{"cmd", "gc"}},
            request.stage_s, "collecting garbage", &reply)) {
      return failure;
    }
  }
  const int64_t collected_ns = MonotonicNs();
  const std::vector<float>& train_x = request.draw ? request.draw->train_x : request.empty->train_x;
  const std::vector<int64_t>& train_y =
      request.draw ? request.draw->train_y : request.empty->train_y;
  const std::vector<float>& test_x = request.draw ? request.draw->test_x : request.empty->test_x;
  EmptyInputs* staging = request.staging;
  if (staging &&
      (staging->train_x.size() != train_x.size() || staging->train_y.size() != train_y.size() ||
       staging->test_x.size() != test_x.size())) {
    return CallFailure{kRuleCrash, "the staging area does not have the draw's shapes", true};
  }
  if (staging) {
    std::copy(train_x.begin(), train_x.end(), staging->train_x.begin());
    std::copy(train_y.begin(), train_y.end(), staging->train_y.begin());
    std::copy(test_x.begin(), test_x.end(), staging->test_x.begin());
  }
  Result<std::vector<CopyPiece>> pieces =
      staging ? worker.buffer().Pieces(staging->train_x.data(), staging->train_x.size(),
                                       staging->train_y.data(), staging->train_y.size(),
                                       staging->test_x.data(), staging->test_x.size())
              : worker.buffer().Pieces(train_x.data(), train_x.size(), train_y.data(),
                                       train_y.size(), test_x.data(), test_x.size());
  if (!pieces.ok()) return CallFailure{kRuleCrash, pieces.status().message(), /*harness=*/true};
  const int64_t staged_ns = MonotonicNs();
  if (request.copy_threads) request.copy_threads->Arm();
  const int64_t opened_ns = MonotonicNs();
  if (request.copy_threads) {
    request.copy_threads->Copy(pieces->data(), pieces->size());
  } else {
    for (const CopyPiece& piece : *pieces) std::memcpy(piece.to, piece.from, piece.bytes);
  }
  const int64_t written_ns = MonotonicNs();
  const Json command = {{"cmd", "go"}, {"null", request.null_method}};
  std::optional<CallFailure> failure;
  if (request.while_waiting) {
    failure = worker.Send(command, request.timeout_s, request.doing);
    if (!failure) {
      request.while_waiting();
      const double spent_s = (MonotonicNs() - written_ns) / 1e9;
      failure = worker.Receive(std::max(0.0, request.timeout_s - spent_s), request.doing, &reply,
                               request.spin);
    }
  } else {
    failure = worker.Request(command, request.timeout_s, request.doing, &reply, request.spin);
  }
  // The clock stops when the reply's last byte is in (ReadFrame's complete_ns), before the parent
  // parses it: that is the parent's own work, not the round trip's.
  const int64_t returned_ns = !failure && reply.complete_ns > 0 ? reply.complete_ns : MonotonicNs();
  // A helper the caller overtook may still be writing its share (the same bytes): it is done
  // before anything else writes the buffer or the staging area.
  if (request.copy_threads) request.copy_threads->Settle();
  result->parent_ms = (returned_ns - opened_ns) / 1e6;
  if (failure) return failure;
  auto ms = reply.header.find("ms");
  if (ms == reply.header.end() || !ms->is_number() || !std::isfinite(ms->get<double>()) ||
      ms->get<double>() < 0 || reply.payload.size() != static_cast<size_t>(test_rows)) {
    return CallFailure{kRuleCrash,
                       "the method's process sent a malformed result while " + request.doing};
  }
  result->ms = ms->get<double>();
  result->labels = std::move(reply.payload);
  result->phases =
      WindowPhases(opened_ns, written_ns, returned_ns, reply.header.value("clock_ns", Json()));
  if (result->phases.is_object()) {
    result->phases["collect"] = (collected_ns - collect_ns) / 1e6;
    result->phases["stage"] = (staged_ns - collected_ns) / 1e6;
    // Of to_parent: from the reply's header read to its last byte (a diagnostic).
    if (reply.ready_ns > 0)
      result->phases["reply_read"] = (reply.complete_ns - reply.ready_ns) / 1e6;
    if (request.copy_threads) result->phases["arm"] = (opened_ns - staged_ns) / 1e6;
  }
  return std::nullopt;
}

std::optional<CallFailure> WorkerProcess::RunWindow(const WindowRequest& request, int64_t test_rows,
                                                    WindowResult* result) {
  return ::ratchet::RunWindow(*this, request, test_rows, result);
}

}  // namespace ratchet
