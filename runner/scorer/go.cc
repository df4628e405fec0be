#include "scorer/go.h"

#include <chrono>
#include <cmath>

namespace ratchet {

EmptyInputs::EmptyInputs(const RuleSet::Draw& draw)
    : train_x(static_cast<size_t>(draw.train * draw.dims), 0.0f),
      test_x(static_cast<size_t>(draw.test * draw.dims), 0.0f),
      train_y(static_cast<size_t>(draw.train), 0) {}

std::optional<CallFailure> Go(WorkerProcess& worker, const GoRequest& request,
                              int64_t test_rows, GoResult* result) {
  Frame reply;
  if (request.collect) {
    if (std::optional<CallFailure> failure =
            worker.Request(Json{{"cmd", "gc"}}, request.stage_s, "collecting garbage", &reply)) {
      return failure;
    }
  }
  const auto started = std::chrono::steady_clock::now();
  Status written =
      request.draw
          ? worker.buffer().Write(request.draw->train_x, request.draw->train_y,
                                  request.draw->test_x)
          : worker.buffer().Write(request.empty->train_x, request.empty->train_y,
                                  request.empty->test_x);
  if (!written.ok()) return CallFailure{"crash", written.message(), /*harness=*/true};
  std::optional<CallFailure> failure = worker.Request(
      Json{{"cmd", "go"}, {"null", request.null_method}}, request.timeout_s, request.doing, &reply);
  result->parent_ms =
      std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - started).count();
  if (failure) return failure;
  auto ms = reply.header.find("ms");
  if (ms == reply.header.end() || !ms->is_number() || !std::isfinite(ms->get<double>()) ||
      ms->get<double>() < 0 || reply.payload.size() != static_cast<size_t>(test_rows)) {
    return CallFailure{"crash", "the method's process sent a malformed result while " + request.doing};
  }
  result->ms = ms->get<double>();
  result->labels = std::move(reply.payload);
  return std::nullopt;
}

}  // namespace ratchet
