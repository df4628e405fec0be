// A rule set: every constant of one version of the scoring rules (bands, call counts, timing
// slack, limits, energy windows, telemetry bands), read strictly from a versioned JSON file.
// runner/rules/*.json are compiled into the binary; docs/rules.md describes every field.
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

// What a healthy board of one GPU model reads on the telemetry reference matmul. A band names
// its boards by one of two fields: `prefix`, the start of the device name (the reference
// scorer's "NVIDIA A100", for every A100), or `name`, the whole device name ("NVIDIA H200", not
// "NVIDIA H200 NVL": a board measured is not a board of another power limit).
struct ReferenceBand {
  std::string prefix;  // matched against the start of the device name; empty when `name` is set
  std::string name;    // matched against the whole device name; empty when `prefix` is set
  Range j_per_tflop;   // joules above idle per 10^12 FLOPs
  Range tflops_per_s;

  bool Matches(const std::string& device_name) const;
  // The prefix or the name, for messages: "NVIDIA A100", "NVIDIA H200".
  const std::string& boards() const { return name.empty() ? prefix : name; }
};

struct RuleSet {
  std::string id;  // "mnist-a100/1.4.0"
  // The version string of the scorer these rules belong to; a reference scorer record names it.
  std::string version;
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

  // What every sandboxed process may use (docs/sandbox.md, "Limits"); a method that goes past
  // one is disqualified with the rule that names it (memory, processes, disk, compile-time,
  // compile-memory, compile-output). Rule sets older than mnist-a100/1.5.0 have no "sandbox"
  // block and get these values, those of mnist-a100/1.5.0.
  struct Sandbox {
    // One worker with everything it starts: its processes' memory and the tmpfs pages of its
    // folders.
    int64_t memory_bytes = int64_t{16} << 30;
    int64_t processes = 1024;                  // processes and threads of one worker at once
    int64_t folder_bytes = int64_t{2} << 30;   // its own folder, a tmpfs
    int64_t file_bytes = int64_t{1} << 30;     // the largest file it may write
    int64_t compile_s = 300;                   // a native file's compile, and the source checker's
    int64_t compile_memory_bytes = int64_t{4} << 30;  // both, everything they start
    int64_t compile_output_bytes = int64_t{64} << 20;  // the largest file a compile may write
  } sandbox;

  struct Energy {
    double energy_window_s = 0;
    int64_t energy_min_calls = 0, energy_draws = 0;
    double control_window_s = 0, settle_s = 0, idle_s = 0, idle_sample_s = 0;
    double reference_s = 0;
    int64_t reference_grace_s = 0;
    int64_t reference_dim = 0;
    std::vector<ReferenceBand> reference_bands;  // the first that Matches() the device applies
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
  // The first reference band that matches `device_name` (ReferenceBand::Matches), or nullptr.
  const ReferenceBand* ReferenceBandFor(const std::string& device_name) const;
};

// Parses a rule set. Invalid JSON, a duplicated, missing, unknown or mistyped field, and an
// impossible value are BadInput errors naming `what` and the field path.
Result<RuleSet> ParseRuleSet(std::string_view text, const std::string& what);

// A rule-set file compiled into this binary.
struct EmbeddedRuleSet {
  std::string file;  // its name in runner/rules/: "mnist-a100-1.4.0.json"
  std::string text;  // its exact bytes
};

// The rule set of run, score, contract and telemetry when no --rules is given: the newest.
// mnist-a100/1.2.0 is the reference scorer's, byte for byte in every constant; mnist-a100/1.3.0
// was ratchet's first, the same rules with a telemetry band for every board whose name starts
// "NVIDIA H200"; mnist-a100/1.4.0 is that band for the board named "NVIDIA H200" alone;
// mnist-a100/1.5.0 is mnist-a100/1.4.0 with the sandbox's limits written out (RuleSet::Sandbox).
inline constexpr char kDefaultRuleSetId[] = "mnist-a100/1.5.0";

// Every rule-set file compiled in, oldest first (as runner/rules/CMakeLists.txt lists them).
const std::vector<EmbeddedRuleSet>& EmbeddedRuleSets();

// The embedded rule sets parsed (once), in the order of EmbeddedRuleSets(). One that does not
// parse, or two with one id, is an Internal error: a defect of the build that tests/rules catch.
const Result<std::vector<RuleSet>>& ParsedEmbeddedRuleSets();

// The embedded rule set with this id, sha256 (of its canonical JSON) or version string; nullptr
// when none has it. Errors: those of ParsedEmbeddedRuleSets.
Result<const RuleSet*> FindEmbeddedRuleSetById(const std::string& id);
Result<const RuleSet*> FindEmbeddedRuleSetBySha256(const std::string& sha256);
Result<const RuleSet*> FindEmbeddedRuleSetByVersion(const std::string& version);

// "mnist-a100/1.2.0, mnist-a100/1.3.0, mnist-a100/1.4.0, mnist-a100/1.5.0": the ids of the embedded rule sets, for
// messages.
std::string EmbeddedRuleSetIds();

// The rule set a --rules argument names. nullopt: the default (kDefaultRuleSetId); the id of an
// embedded rule set: that one; anything else: the rule-set file at that path. An argument that
// is neither is BadInput, naming the embedded ids.
Result<RuleSet> LoadRuleSet(const std::optional<std::string>& id_or_path);

// The exact bytes of the embedded rule set `id` as compiled in, or "" when none has that id.
const std::string& EmbeddedRuleSetText(const std::string& id);

}  // namespace ratchet

#endif  // RATCHET_RULES_RULE_SET_H_
