// A rule set: every constant of one version of the scoring rules (bands, call counts, timing
// slack, limits, energy windows, telemetry bands), read strictly from a versioned JSON file.
// mnist-a100-1.2.0.json is compiled into the binary; docs/rules.md describes every field.
#ifndef RATCHET_RULES_RULE_SET_H_
#define RATCHET_RULES_RULE_SET_H_

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "core/canonical_json.h"
#include "core/status.h"

namespace ratchet {

// An inclusive range of plausible readings.
struct Range {
  double low = 0;
  double high = 0;
  bool Contains(double x) const { return low <= x && x <= high; }
};

struct Difficulty {
  int64_t band_bp = 0;          // the most mean MNIST test error allowed, in basis points
  int64_t labelled_images = 0;  // what the band stands for; informational
};

// What a healthy board of one GPU model reads on the telemetry reference matmul.
struct ReferenceBand {
  std::string prefix;  // matched against the start of the device name
  Range j_per_tflop;   // joules above idle per 10^12 FLOPs
  Range tflops_per_s;
};

struct RuleSet {
  std::string id;       // "mnist-a100/1.2.0"
  std::string version;  // the harness version string that these rules belong to
  std::map<int64_t, Difficulty> difficulty;

  struct Draw {
    int64_t train = 0, test = 0, dims = 0, side = 0, source_side = 0, pool_size = 0;
  } draw;

  struct Calls {
    int64_t mnist_calls = 0, holdout_calls = 0;
  } calls;

  struct Accuracy {
    int64_t draw_slack_bp = 0;     // no MNIST draw may be worse than the band plus this
    int64_t holdout_error_bp = 0;  // the hold-out calls' most error allowed
  } accuracy;

  // The slowest call of a group may take at most factor x median + slack_ms, the fastest at
  // least median / factor - slack_ms.
  struct Dispersion {
    double factor = 0, slack_ms = 0;
  } dispersion;

  struct Timing {
    double call_slack_ms = 0, call_slack_fraction = 0;
    double call_allowance_ms = 0;  // how far a reported time may exceed the parent's clock
    double group_slack_ms = 0, group_slack_fraction = 0;
    double floor_slack_ms = 0, floor_slack_fraction = 0;
    int64_t calibration_calls = 0, calibration_discard = 0;
    int64_t l2_flush_bytes = 0;
  } timing;

  struct Limits {
    int64_t max_call_ms = 0, warmup_max_call_ms = 0, later_warmup_max_call_ms = 0;
    int64_t timed_call_grace_s = 0;  // added to max_call_ms for the timed call's deadline
    int64_t null_call_s = 0;         // deadline of one empty-method call
    int64_t run_max_s = 0;
    int64_t max_source_bytes = 0;
    int64_t worker_start_s = 0, import_s = 0, stage_s = 0;
    int64_t max_header = 0, max_reply_bytes = 0;
    int64_t worker_log_bytes = 0;
  } limits;

  struct Energy {
    double energy_window_s = 0;
    int64_t energy_min_calls = 0, energy_draws = 0;
    double control_window_s = 0, settle_s = 0, idle_s = 0, idle_sample_s = 0;
    double reference_s = 0;
    int64_t reference_grace_s = 0;
    int64_t reference_dim = 0;
    std::vector<ReferenceBand> reference_bands;  // the first whose prefix matches applies
  } energy;

  struct Datasets {
    std::string mnist;                 // the dataset the band is judged on
    std::vector<std::string> foreign;  // hold-out and warm-up datasets
  } datasets;

  // Advisory: hints for a reviewer, never a reason to disqualify.
  struct ReviewFlags {
    int64_t blob_bytes = 0;
    double blob_entropy = 0, hex_fraction = 0;
    int64_t numeric_literals = 0;
    double near_limit_fraction = 0;
  } review_flags;

  std::string sha256;  // hex sha256 of CanonicalJson(document)
  Json document;       // the file as parsed

  // The band of a difficulty, or a BadInput error listing the difficulties there are.
  Result<int64_t> BandForDifficulty(int64_t difficulty) const;
  // The reference band of the first prefix that `device_name` starts with, or nullptr.
  const ReferenceBand* ReferenceBandFor(const std::string& device_name) const;
};

// Parses a rule set. Invalid JSON, a duplicated, missing, unknown or mistyped field, and an
// impossible value are BadInput errors naming `what` and the field path.
Result<RuleSet> ParseRuleSet(std::string_view text, const std::string& what);

// nullopt: the rule set compiled into this binary (mnist-a100/1.2.0); otherwise the file at path.
Result<RuleSet> LoadRuleSet(const std::optional<std::string>& path);

// The exact bytes of runner/rules/mnist-a100-1.2.0.json as compiled in.
const std::string& EmbeddedRuleSetText();

}  // namespace ratchet

#endif  // RATCHET_RULES_RULE_SET_H_
