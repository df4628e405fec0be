#include "rules/rule_set.h"

#include <charconv>
#include <cmath>
#include <limits>
#include <set>
#include <utility>

#include "core/file.h"

namespace ratchet {

// The rule-set files' names and bytes, defined in the source CMake generates from them.
namespace internal {
extern const size_t kEmbeddedRuleSetCount;
extern const char* const kEmbeddedRuleSetFiles[];
extern const unsigned char* const kEmbeddedRuleSetBytes[];
extern const size_t kEmbeddedRuleSetSizes[];
}  // namespace internal

namespace {

constexpr double kInfinity = std::numeric_limits<double>::infinity();
// A rule set is a few kilobytes; a larger file is not one.
constexpr size_t kMaxRuleSetBytes = size_t{1} << 20;

std::string NumberText(double x) {
  char buffer[32];
  auto result = std::to_chars(buffer, buffer + sizeof buffer, x);
  return std::string(buffer, result.ptr);
}

std::string Found(const Json& value) {
  switch (value.type()) {
    case Json::value_t::null:
      return "null";
    case Json::value_t::boolean:
      return "a boolean";
    case Json::value_t::number_integer:
    case Json::value_t::number_unsigned:
      return "an integer";
    case Json::value_t::number_float:
      return NumberText(value.get<double>());
    case Json::value_t::string:
      return "a string";
    case Json::value_t::array:
      return "an array";
    case Json::value_t::object:
      return "an object";
    default:
      return "a value with no JSON form";
  }
}

// Keeps the first error met while reading a document; every read after it is a no-op.
class Reader {
 public:
  explicit Reader(std::string what) : what_(std::move(what)) {}

  void Fail(const std::string& path, const std::string& message) {
    if (status_.ok()) status_ = Status::BadInput(what_ + ": field \"" + path + "\": " + message);
  }
  void FailUnknown(const std::string& path) {
    if (status_.ok()) status_ = Status::BadInput(what_ + ": unknown field \"" + path + "\"");
  }
  void FailMissing(const std::string& path) {
    if (status_.ok()) status_ = Status::BadInput(what_ + ": field \"" + path + "\" is missing");
  }
  bool ok() const { return status_.ok(); }
  const Status& status() const { return status_; }

 private:
  std::string what_;
  Status status_;
};

// One JSON object of the document: typed reads of its fields, and at the end a check that it
// holds no field that was not read.
class Object {
 public:
  Object(Reader* reader, const Json* json, std::string path)
      : reader_(reader), json_(json), path_(std::move(path)) {}

  const std::string& path() const { return path_; }
  std::string PathOf(const std::string& key) const { return JoinPath(path_, key); }

  // The field, or nullptr after recording why there is none of the wanted type.
  const Json* Field(const std::string& key, bool (Json::*is_type)() const, const char* expected) {
    if (!reader_->ok() || json_ == nullptr) return nullptr;
    read_.insert(key);
    auto it = json_->find(key);
    if (it == json_->end()) {
      reader_->FailMissing(PathOf(key));
      return nullptr;
    }
    if (!((*it).*is_type)()) {
      reader_->Fail(PathOf(key), std::string("expected ") + expected + ", found " + Found(*it));
      return nullptr;
    }
    return &*it;
  }

  int64_t Int(const std::string& key, int64_t min, int64_t max) {
    const Json* field = Field(key, &Json::is_number_integer, "an integer");
    if (field == nullptr) return 0;
    if (field->is_number_unsigned() &&
        field->get<uint64_t>() > static_cast<uint64_t>(std::numeric_limits<int64_t>::max())) {
      reader_->Fail(PathOf(key), field->dump() + " is too large");
      return 0;
    }
    int64_t value = field->get<int64_t>();
    if (value < min || value > max) {
      reader_->Fail(PathOf(key), std::to_string(value) + RangeText(min, max));
      return 0;
    }
    return value;
  }

  // A number within [min, max].
  double Number(const std::string& key, double min, double max) {
    const Json* field = Field(key, &Json::is_number, "a number");
    if (field == nullptr) return 0;
    double value = field->get<double>();
    if (!(value >= min && value <= max)) {
      reader_->Fail(PathOf(key),
                    NumberText(value) + (max == kInfinity ? " must be at least " + NumberText(min)
                                                          : " is outside " + NumberText(min) +
                                                                ".." + NumberText(max)));
      return 0;
    }
    return value;
  }

  // A number above zero.
  double Positive(const std::string& key) {
    const Json* field = Field(key, &Json::is_number, "a number");
    if (field == nullptr) return 0;
    double value = field->get<double>();
    if (!(value > 0)) {
      reader_->Fail(PathOf(key), NumberText(value) + " must be above 0");
      return 0;
    }
    return value;
  }

  std::string String(const std::string& key) {
    const Json* field = Field(key, &Json::is_string, "a string");
    if (field == nullptr) return "";
    std::string value = field->get<std::string>();
    if (value.empty()) reader_->Fail(PathOf(key), "must not be empty");
    return value;
  }

  Object Child(const std::string& key) {
    return Object(reader_, Field(key, &Json::is_object, "an object"), PathOf(key));
  }

  const Json* Array(const std::string& key) { return Field(key, &Json::is_array, "an array"); }

  bool Has(const std::string& key) const { return json_ != nullptr && json_->contains(key); }

  // Every field of the object; a map whose keys are data, not names, reads them this way.
  std::vector<std::string> Keys() {
    std::vector<std::string> keys;
    if (!reader_->ok() || json_ == nullptr) return keys;
    for (auto it = json_->begin(); it != json_->end(); ++it) keys.push_back(it.key());
    return keys;
  }

  // An unknown field is an error: a misspelt name must not silently fall back to nothing.
  void Done() {
    if (!reader_->ok() || json_ == nullptr) return;
    for (auto it = json_->begin(); it != json_->end(); ++it) {
      if (read_.count(it.key()) == 0) {
        reader_->FailUnknown(PathOf(it.key()));
        return;
      }
    }
  }

 private:
  static std::string RangeText(int64_t min, int64_t max) {
    if (max == std::numeric_limits<int64_t>::max()) {
      return " must be at least " + std::to_string(min);
    }
    return " is outside " + std::to_string(min) + ".." + std::to_string(max);
  }

  Reader* reader_;
  const Json* json_;
  std::string path_;
  std::set<std::string> read_;
};

constexpr int64_t kNoMax = std::numeric_limits<int64_t>::max();

// [low, high] from a two-number array.
Range ReadRange(Reader* reader, const Json* array, const std::string& path) {
  Range range;
  if (array == nullptr || !reader->ok()) return range;
  if (!array->is_array()) {
    reader->Fail(path, "expected an array of two numbers, found " + Found(*array));
    return range;
  }
  if (array->size() != 2 || !(*array)[0].is_number() || !(*array)[1].is_number()) {
    reader->Fail(path, "expected an array of two numbers [low, high]");
    return range;
  }
  range.low = (*array)[0].get<double>();
  range.high = (*array)[1].get<double>();
  if (!(range.low >= 0)) {
    reader->Fail(path, "low " + NumberText(range.low) + " must be at least 0");
  } else if (range.low > range.high) {
    reader->Fail(path, "low " + NumberText(range.low) + " is above high " + NumberText(range.high));
  }
  return range;
}

bool IsDecimalKey(const std::string& key) {
  if (key.empty() || key.size() > 9 || key[0] == '0') return false;
  for (char c : key) {
    if (c < '0' || c > '9') return false;
  }
  return true;
}

bool IsPowerOfFour(int64_t x) {
  if (x <= 0 || (x & (x - 1)) != 0) return false;
  int bit = 0;
  while ((int64_t{1} << bit) != x) ++bit;
  return bit % 2 == 0;
}

void ReadDifficulties(Reader* reader, Object object, RuleSet* rules) {
  std::vector<std::string> keys = object.Keys();
  if (reader->ok() && keys.empty()) {
    reader->Fail(object.path(), "must name at least one difficulty");
  }
  for (const std::string& key : keys) {
    if (!IsDecimalKey(key)) {
      reader->Fail(object.PathOf(key),
                   "a difficulty is a whole number from 1, not \"" + key + "\"");
      return;
    }
    Object entry = object.Child(key);
    Difficulty difficulty;
    difficulty.band_bp = entry.Int("band_bp", 1, 9999);
    difficulty.labelled_images = entry.Int("labelled_images", 1, kNoMax);
    entry.Done();
    rules->difficulty[std::stoll(key)] = difficulty;
  }
}

void ReadDraw(Reader* reader, Object object, RuleSet::Draw* draw) {
  draw->train = object.Int("train", 1, kNoMax);
  draw->test = object.Int("test", 1, kNoMax);
  draw->dims = object.Int("dims", 1, kNoMax);
  draw->side = object.Int("side", 1, kNoMax);
  draw->source_side = object.Int("source_side", 1, kNoMax);
  draw->pool_size = object.Int("pool_size", 2, kNoMax);
  object.Done();
  if (!reader->ok()) return;
  // Training and test images of a draw come from opposite halves of the pool.
  const int64_t half = draw->pool_size / 2;
  if (draw->train > half) {
    reader->Fail(
        object.PathOf("train"),
        std::to_string(draw->train) + " is more than half the pool (" + std::to_string(half) + ")");
  } else if (draw->test > half) {
    reader->Fail(
        object.PathOf("test"),
        std::to_string(draw->test) + " is more than half the pool (" + std::to_string(half) + ")");
  } else if (draw->side > draw->source_side) {
    reader->Fail(object.PathOf("side"), std::to_string(draw->side) +
                                            " is larger than source_side " +
                                            std::to_string(draw->source_side));
  } else if (draw->dims > draw->side * draw->side) {
    reader->Fail(object.PathOf("dims"), std::to_string(draw->dims) + " is more than side x side (" +
                                            std::to_string(draw->side * draw->side) + ")");
  }
}

void ReadTiming(Reader* reader, Object object, RuleSet::Timing* timing) {
  timing->call_slack_ms = object.Number("call_slack_ms", 0, kInfinity);
  timing->call_slack_fraction = object.Number("call_slack_fraction", 0, kInfinity);
  timing->call_allowance_ms = object.Number("call_allowance_ms", 0, kInfinity);
  timing->group_slack_ms = object.Number("group_slack_ms", 0, kInfinity);
  timing->group_slack_fraction = object.Number("group_slack_fraction", 0, kInfinity);
  timing->floor_slack_ms = object.Number("floor_slack_ms", 0, kInfinity);
  timing->floor_slack_fraction = object.Number("floor_slack_fraction", 0, 1);
  timing->calibration_calls = object.Int("calibration_calls", 1, kNoMax);
  timing->calibration_discard = object.Int("calibration_discard", 0, kNoMax);
  timing->l2_flush_bytes = object.Int("l2_flush_bytes", 4, kNoMax);
  object.Done();
  if (!reader->ok()) return;
  if (timing->calibration_discard >= timing->calibration_calls) {
    reader->Fail(object.PathOf("calibration_discard"),
                 std::to_string(timing->calibration_discard) +
                     " leaves no calibration call (calibration_calls is " +
                     std::to_string(timing->calibration_calls) + ")");
  } else if (timing->l2_flush_bytes % 4 != 0) {
    reader->Fail(object.PathOf("l2_flush_bytes"),
                 std::to_string(timing->l2_flush_bytes) + " is not a whole number of int32 words");
  }
}

// Optional: rule sets before mnist-a100/1.5.0 have none and keep RuleSet::Sandbox's values.
void ReadSandbox(Object object, RuleSet::Sandbox* sandbox) {
  sandbox->memory_bytes = object.Int("memory_bytes", int64_t{64} << 20, kNoMax);
  sandbox->processes = object.Int("processes", 16, kNoMax);
  sandbox->folder_bytes = object.Int("folder_bytes", int64_t{1} << 20, kNoMax);
  sandbox->file_bytes = object.Int("file_bytes", int64_t{1} << 20, kNoMax);
  sandbox->compile_s = object.Int("compile_s", 1, kNoMax);
  sandbox->compile_memory_bytes = object.Int("compile_memory_bytes", int64_t{64} << 20, kNoMax);
  sandbox->compile_output_bytes = object.Int("compile_output_bytes", int64_t{1} << 20, kNoMax);
  object.Done();
}

void ReadLimits(Object object, RuleSet::Limits* limits) {
  limits->max_call_ms = object.Int("max_call_ms", 1, kNoMax);
  limits->warmup_max_call_ms = object.Int("warmup_max_call_ms", 1, kNoMax);
  limits->later_warmup_max_call_ms = object.Int("later_warmup_max_call_ms", 1, kNoMax);
  limits->timed_call_grace_s = object.Int("timed_call_grace_s", 0, kNoMax);
  limits->null_call_s = object.Int("null_call_s", 1, kNoMax);
  limits->run_max_s = object.Int("run_max_s", 1, kNoMax);
  limits->max_source_bytes = object.Int("max_source_bytes", 1, kNoMax);
  limits->worker_start_s = object.Int("worker_start_s", 1, kNoMax);
  limits->import_s = object.Int("import_s", 1, kNoMax);
  limits->stage_s = object.Int("stage_s", 1, kNoMax);
  limits->max_header = object.Int("max_header", 1, kNoMax);
  limits->max_reply_bytes = object.Int("max_reply_bytes", 1, kNoMax);
  limits->worker_log_bytes = object.Int("worker_log_bytes", 0, kNoMax);
  object.Done();
}

void ReadEnergy(Reader* reader, Object object, RuleSet::Energy* energy) {
  energy->energy_window_s = object.Positive("energy_window_s");
  energy->energy_min_calls = object.Int("energy_min_calls", 1, kNoMax);
  energy->energy_draws = object.Int("energy_draws", 1, kNoMax);
  energy->control_window_s = object.Positive("control_window_s");
  energy->settle_s = object.Number("settle_s", 0, kInfinity);
  energy->idle_s = object.Positive("idle_s");
  energy->idle_sample_s = object.Positive("idle_sample_s");
  energy->reference_s = object.Positive("reference_s");
  energy->reference_grace_s = object.Int("reference_grace_s", 0, kNoMax);
  energy->reference_dim = object.Int("reference_dim", 1, 1 << 20);
  if (reader->ok() && !IsPowerOfFour(energy->reference_dim)) {
    // Operands of 2^-k with dim = 4^k make every product entry exactly 1.
    reader->Fail(object.PathOf("reference_dim"),
                 std::to_string(energy->reference_dim) + " is not a power of 4");
  }
  const Json* bands = object.Array("reference_bands");
  if (bands != nullptr) {
    for (size_t i = 0; i < bands->size() && reader->ok(); ++i) {
      const std::string path = JoinPath(object.PathOf("reference_bands"), i);
      if (!(*bands)[i].is_object()) {
        reader->Fail(path, "expected an object, found " + Found((*bands)[i]));
        break;
      }
      Object entry(reader, &(*bands)[i], path);
      ReferenceBand band;
      // A prefix or a whole name: one of the two.
      const bool named = entry.Has("name"), prefixed = entry.Has("prefix");
      if (named && prefixed) {
        reader->Fail(path, "has both \"prefix\" and \"name\"; a band names its boards by one");
        break;
      }
      if (named) band.name = entry.String("name");
      if (prefixed) band.prefix = entry.String("prefix");
      band.j_per_tflop = ReadRange(reader, entry.Array("j_per_tflop"), entry.PathOf("j_per_tflop"));
      band.tflops_per_s =
          ReadRange(reader, entry.Array("tflops_per_s"), entry.PathOf("tflops_per_s"));
      entry.Done();  // first, so that a misspelt "name" is named as the unknown field it is
      if (!named && !prefixed) {
        reader->Fail(path, "has neither \"prefix\" nor \"name\"; a band names its boards by one");
      }
      energy->reference_bands.push_back(band);
    }
  }
  object.Done();
}

void ReadDatasets(Reader* reader, Object object, RuleSet::Datasets* datasets) {
  datasets->mnist = object.String("mnist");
  const Json* foreign = object.Array("foreign");
  if (foreign != nullptr) {
    const std::string path = object.PathOf("foreign");
    if (foreign->empty()) reader->Fail(path, "must name at least one dataset");
    for (size_t i = 0; i < foreign->size() && reader->ok(); ++i) {
      const Json& name = (*foreign)[i];
      if (!name.is_string() || name.get<std::string>().empty()) {
        reader->Fail(JoinPath(path, i), name.is_string()
                                            ? "must not be empty"
                                            : "expected a dataset name, found " + Found(name));
        break;
      }
      const std::string text = name.get<std::string>();
      bool repeated = text == datasets->mnist;
      for (const std::string& other : datasets->foreign) repeated = repeated || other == text;
      if (repeated) reader->Fail(JoinPath(path, i), "\"" + text + "\" is named twice");
      datasets->foreign.push_back(text);
    }
  }
  object.Done();
}

void ReadReviewFlags(Object object, RuleSet::ReviewFlags* flags) {
  flags->blob_bytes = object.Int("blob_bytes", 1, kNoMax);
  flags->blob_entropy = object.Number("blob_entropy", 0, 8);
  flags->hex_fraction = object.Number("hex_fraction", 0, 1);
  flags->numeric_literals = object.Int("numeric_literals", 1, kNoMax);
  flags->near_limit_fraction = object.Number("near_limit_fraction", 0, 1);
  object.Done();
}

}  // namespace

Result<int64_t> RuleSet::BandForDifficulty(int64_t level) const {
  auto it = difficulty.find(level);
  if (it != difficulty.end()) return it->second.band_bp;
  std::string known;
  for (const auto& entry : difficulty) {
    known += (known.empty() ? "" : ", ") + std::to_string(entry.first);
  }
  return Status::BadInput("difficulty must be one of " + known + " in rule set " + id + ", not " +
                          std::to_string(level));
}

bool ReferenceBand::Matches(const std::string& device_name) const {
  if (!name.empty()) return device_name == name;
  return device_name.compare(0, prefix.size(), prefix) == 0;
}

const ReferenceBand* RuleSet::ReferenceBandFor(const std::string& device_name) const {
  for (const ReferenceBand& band : energy.reference_bands) {
    if (band.Matches(device_name)) return &band;
  }
  return nullptr;
}

Result<RuleSet> ParseRuleSet(std::string_view text, const std::string& what) {
  Result<Json> parsed = ParseJson(text, what);
  if (!parsed.ok()) return parsed.status();
  RuleSet rules;
  rules.document = std::move(parsed).value();
  if (!rules.document.is_object()) {
    return Status::BadInput(what + ": expected an object at the top, found " +
                            Found(rules.document));
  }
  Reader reader(what);
  Object top(&reader, &rules.document, "");
  rules.id = top.String("id");
  rules.version = top.String("version");
  ReadDifficulties(&reader, top.Child("difficulty"), &rules);
  ReadDraw(&reader, top.Child("draw"), &rules.draw);
  {
    Object calls = top.Child("calls");
    rules.calls.mnist_calls = calls.Int("mnist_calls", 1, kNoMax);
    rules.calls.holdout_calls = calls.Int("holdout_calls", 0, kNoMax);
    calls.Done();
  }
  {
    Object accuracy = top.Child("accuracy");
    rules.accuracy.draw_slack_bp = accuracy.Int("draw_slack_bp", 0, 9999);
    rules.accuracy.holdout_error_bp = accuracy.Int("holdout_error_bp", 0, 9999);
    accuracy.Done();
  }
  {
    Object dispersion = top.Child("dispersion");
    rules.dispersion.factor = dispersion.Number("factor", 1, kInfinity);
    rules.dispersion.slack_ms = dispersion.Number("slack_ms", 0, kInfinity);
    dispersion.Done();
  }
  ReadTiming(&reader, top.Child("timing"), &rules.timing);
  ReadLimits(top.Child("limits"), &rules.limits);
  if (top.Has("sandbox")) ReadSandbox(top.Child("sandbox"), &rules.sandbox);
  ReadEnergy(&reader, top.Child("energy"), &rules.energy);
  ReadDatasets(&reader, top.Child("datasets"), &rules.datasets);
  ReadReviewFlags(top.Child("review_flags"), &rules.review_flags);
  top.Done();
  if (!reader.ok()) return reader.status();

  Result<std::string> sha256 = CanonicalSha256(rules.document);
  if (!sha256.ok()) return sha256.status().Annotate(what);
  rules.sha256 = *sha256;
  return rules;
}

const std::vector<EmbeddedRuleSet>& EmbeddedRuleSets() {
  static const std::vector<EmbeddedRuleSet>* const kFiles = [] {
    auto* files = new std::vector<EmbeddedRuleSet>();
    for (size_t i = 0; i < internal::kEmbeddedRuleSetCount; ++i) {
      files->push_back(
          {internal::kEmbeddedRuleSetFiles[i],
           std::string(reinterpret_cast<const char*>(internal::kEmbeddedRuleSetBytes[i]),
                       internal::kEmbeddedRuleSetSizes[i])});
    }
    return files;
  }();
  return *kFiles;
}

const Result<std::vector<RuleSet>>& ParsedEmbeddedRuleSets() {
  static const Result<std::vector<RuleSet>>* const kParsed = [] {
    std::vector<RuleSet> parsed;
    std::set<std::string> ids, versions;
    for (const EmbeddedRuleSet& file : EmbeddedRuleSets()) {
      Result<RuleSet> rules = ParseRuleSet(file.text, "the embedded rule set " + file.file);
      if (!rules.ok())
        return new Result<std::vector<RuleSet>>(Status::Internal(rules.status().message()));
      if (!ids.insert(rules->id).second || !versions.insert(rules->version).second) {
        return new Result<std::vector<RuleSet>>(Status::Internal(
            "the embedded rule set " + file.file + " repeats the id or the version of another"));
      }
      parsed.push_back(std::move(rules).value());
    }
    return new Result<std::vector<RuleSet>>(std::move(parsed));
  }();
  return *kParsed;
}

namespace {

Result<const RuleSet*> FindEmbedded(const std::string& value, std::string RuleSet::*field) {
  const Result<std::vector<RuleSet>>& parsed = ParsedEmbeddedRuleSets();
  if (!parsed.ok()) return parsed.status();
  for (const RuleSet& rules : *parsed) {
    if (rules.*field == value) return &rules;
  }
  return static_cast<const RuleSet*>(nullptr);
}

}  // namespace

Result<const RuleSet*> FindEmbeddedRuleSetById(const std::string& id) {
  return FindEmbedded(id, &RuleSet::id);
}

Result<const RuleSet*> FindEmbeddedRuleSetBySha256(const std::string& sha256) {
  return FindEmbedded(sha256, &RuleSet::sha256);
}

Result<const RuleSet*> FindEmbeddedRuleSetByVersion(const std::string& version) {
  return FindEmbedded(version, &RuleSet::version);
}

std::string EmbeddedRuleSetIds() {
  const Result<std::vector<RuleSet>>& parsed = ParsedEmbeddedRuleSets();
  if (!parsed.ok()) return "none readable (" + parsed.status().message() + ")";
  std::string ids;
  for (const RuleSet& rules : *parsed) {
    ids += (ids.empty() ? "" : ", ") + rules.id;
  }
  return ids;
}

const std::string& EmbeddedRuleSetText(const std::string& id) {
  static const std::string kNone;
  const Result<std::vector<RuleSet>>& parsed = ParsedEmbeddedRuleSets();
  if (!parsed.ok()) return kNone;
  for (size_t i = 0; i < parsed->size(); ++i) {
    if ((*parsed)[i].id == id) return EmbeddedRuleSets()[i].text;
  }
  return kNone;
}

Result<RuleSet> LoadRuleSet(const std::optional<std::string>& id_or_path) {
  Result<const RuleSet*> embedded = FindEmbeddedRuleSetById(id_or_path.value_or(kDefaultRuleSetId));
  if (!embedded.ok()) return embedded.status();
  if (*embedded != nullptr) return **embedded;
  if (!id_or_path) {
    return Status::Internal(std::string("no embedded rule set has the default id ") +
                            kDefaultRuleSetId);
  }
  const std::string& path = *id_or_path;
  // The file is the user's: what is not a file is their mistake, and a file of any size (or a
  // device that never ends) is read only up to the limit.
  Status file = CheckInputFile(path, "rule-set file");
  if (file.code() == Status::Code::kBadInput) {
    return Status::BadInput(file.message() +
                            "; nor is it the id of an embedded rule set: " + EmbeddedRuleSetIds());
  }
  RATCHET_RETURN_IF_ERROR(file);
  Result<std::string> text = ReadFile(path, kMaxRuleSetBytes + 1);
  if (!text.ok()) return text.status();
  if (text->size() > kMaxRuleSetBytes) {
    return Status::BadInput("rule-set file " + path + " is larger than 1 MiB");
  }
  return ParseRuleSet(*text, path);
}

}  // namespace ratchet
