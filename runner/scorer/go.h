// One `go` of the worker protocol as the parent runs it: a garbage collection in the worker
// outside the window (unless the caller's protocol skips it), then the window: the inputs written
// into the input buffer, the command, the reply. Shared by the timed calls, their calibration
// and the energy column's windows.
#ifndef RATCHET_SCORER_GO_H_
#define RATCHET_SCORER_GO_H_

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "data/draw.h"
#include "rules/rule_set.h"
#include "scorer/worker_process.h"

namespace ratchet {

// The empty method's inputs: zeros of the draw's shapes.
struct EmptyInputs {
  explicit EmptyInputs(const RuleSet::Draw& draw);
  std::vector<float> train_x, test_x;
  std::vector<int64_t> train_y;
};

struct GoRequest {
  const Draw* draw = nullptr;  // nullptr: `empty` is written instead
  const EmptyInputs* empty = nullptr;
  bool null_method = false;    // the empty method instead of the submission's
  bool collect = true;         // a `gc` before the window
  double timeout_s = 0;        // for the `go`
  double stage_s = 0;          // for the `gc`
  std::string doing;           // completes "timed out while ..."
};

struct GoResult {
  double ms = 0;         // the worker's time of the method (CUDA events, or its clock)
  double parent_ms = 0;  // the parent's clock around the window
  std::string labels;    // one byte per test row
};

// A failure of the worker or a malformed reply is the CallFailure; the caller decides whether
// it is the harness's.
std::optional<CallFailure> Go(WorkerProcess& worker, const GoRequest& request,
                              int64_t test_rows, GoResult* result);

}  // namespace ratchet

#endif  // RATCHET_SCORER_GO_H_
