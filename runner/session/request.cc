#include "session/request.h"

#include <cstring>
#include <set>

#include "core/file.h"
#include "evidence/layout.h"

namespace ratchet {
namespace {

struct CodeName {
  Status::Code code;
  const char* name;
};
constexpr CodeName kCodeNames[] = {{Status::Code::kOk, "ok"},
                                   {Status::Code::kUsage, "usage"},
                                   {Status::Code::kBadInput, "bad-input"},
                                   {Status::Code::kUnavailable, "unavailable"},
                                   {Status::Code::kIOError, "io-error"},
                                   {Status::Code::kInternal, "internal"}};

Status Malformed(const std::string& what) {
  return Status::Internal("the scorer's messages: " + what);
}

// The member `key` of `json` as a T, or an error naming it.
template <typename T>
Result<T> Get(const Json& json, const char* key) {
  if (!json.is_object() || !json.contains(key)) return Malformed(std::string("no ") + key);
  try {
    return json.at(key).get<T>();
  } catch (const Json::exception&) {
    return Malformed(std::string("a bad ") + key);
  }
}

Json Optional(const std::optional<std::string>& value) {
  return value ? Json(*value) : Json(nullptr);
}

Result<std::optional<std::string>> GetOptional(const Json& json, const char* key) {
  if (!json.is_object() || !json.contains(key) || json.at(key).is_null()) {
    return std::optional<std::string>();
  }
  Result<std::string> value = Get<std::string>(json, key);
  if (!value.ok()) return value.status();
  return std::optional<std::string>(*value);
}

// The first finding of a strict read, for an error message.
}  // namespace

std::optional<double> RecordResult::ranked_ms() const {
  if (!qualified || ranked.empty()) return std::nullopt;
  return Median(ranked);
}

std::vector<std::string> RecordResult::broken() const {
  std::set<std::string> rules;
  for (const Problem& problem : problems) rules.insert(problem.rule);
  return std::vector<std::string>(rules.begin(), rules.end());
}

ReportEntry RecordResult::ReportOf(int64_t band_bp) const {
  ReportEntry entry;
  entry.submission = file;
  entry.function = function;
  entry.sha256 = source_sha256;
  entry.band_bp = band_bp;
  entry.qualified = qualified;
  entry.broken = broken();
  entry.ranked_ms = ranked_ms();
  // The column is measured once per record, on its first qualified run (as the seed measures it
  // once per scoring); its figure is the record's.
  if (qualified && !energy_mj.empty()) entry.energy_mj = Median(energy_mj);
  entry.energy_runs_measured = static_cast<int64_t>(energy_mj.size());
  entry.review_flags = review_flags;
  entry.runs = runs;
  return entry;
}

Json StatusToJson(const Status& status) {
  std::string name = "internal";
  for (const CodeName& entry : kCodeNames) {
    if (entry.code == status.code()) name = entry.name;
  }
  return {{"code", name}, {"message", status.message()}};
}

Status StatusFromJson(const Json& json) {
  Result<std::string> name = Get<std::string>(json, "code");
  if (!name.ok()) return name.status();
  Result<std::string> message = Get<std::string>(json, "message");
  if (!message.ok()) return message.status();
  if (*name == "ok") return Status::Internal("the scorer's messages: an error that is ok");
  for (const CodeName& entry : kCodeNames) {
    if (*name == entry.name) return Status::FromCode(entry.code, *message);
  }
  return Malformed("an unknown status code " + *name);
}

std::string EvidenceFolder(const SessionOptions& options) {
  return options.out ? DirName(*options.out) : kDefaultEvidenceFolder;
}

Json SessionOptionsToJson(const SessionOptions& options) {
  return {
      {"schema", kScorerRequestSchema},
      {"command", options.command},
      {"data", Optional(options.data_dir)},
      {"python", Optional(options.python)},
      {"rules", Optional(options.rules_path)},
      {"out", Optional(options.out)},
      {"seed", Optional(options.seed)},
      {"signing_key", Optional(options.signing_key)},
      {"out_prefix", options.out_prefix},
      {"needs_python", options.needs_python},
      {"energy", options.energy},
      {"tool", {{"version", options.tool_version}, {"source_sha256", options.tool_source_sha256}}}};
}

Result<SessionOptions> SessionOptionsFromJson(const Json& json) {
  Result<std::string> schema = Get<std::string>(json, "schema");
  if (!schema.ok()) return schema.status();
  if (*schema != kScorerRequestSchema) {
    return Status::BadInput("the request's schema is " + *schema + ", this scorer reads " +
                            kScorerRequestSchema + ": run ratchet and ratchet-scorer of one build");
  }
  SessionOptions options;
  Result<std::string> command = Get<std::string>(json, "command");
  Result<std::string> prefix = Get<std::string>(json, "out_prefix");
  Result<bool> needs_python = Get<bool>(json, "needs_python");
  Result<bool> energy = Get<bool>(json, "energy");
  for (const Status& status :
       {command.status(), prefix.status(), needs_python.status(), energy.status()}) {
    if (!status.ok()) return status;
  }
  options.command = *command;
  options.out_prefix = *prefix;
  options.needs_python = *needs_python;
  options.energy = *energy;
  for (auto [key, field] :
       {std::pair{"data", &options.data_dir}, std::pair{"python", &options.python},
        std::pair{"rules", &options.rules_path}, std::pair{"out", &options.out},
        std::pair{"seed", &options.seed}, std::pair{"signing_key", &options.signing_key}}) {
    Result<std::optional<std::string>> value = GetOptional(json, key);
    if (!value.ok()) return value.status();
    *field = *value;
  }
  if (json.contains("tool") && json["tool"].is_object()) {
    Result<std::string> version = Get<std::string>(json["tool"], "version");
    Result<std::string> sha256 = Get<std::string>(json["tool"], "source_sha256");
    if (!version.ok()) return version.status();
    if (!sha256.ok()) return sha256.status();
    options.tool_version = *version;
    options.tool_source_sha256 = *sha256;
  }
  return options;
}

std::string SpecFile(const std::string& spec) {
  for (const char* suffix : {".py:", ".cpp:"}) {
    const size_t at = spec.rfind(suffix);
    if (at != std::string::npos) return spec.substr(0, at + std::strlen(suffix) - 1);
  }
  return spec;
}

Json RecordSpecToJson(const RecordSpec& spec) {
  return {{"id", spec.id}, {"spec", spec.spec}, {"band_bp", spec.band_bp}};
}

Result<RecordSpec> RecordSpecFromJson(const Json& json) {
  RecordSpec spec;
  Result<std::string> id = Get<std::string>(json, "id");
  Result<std::string> file = Get<std::string>(json, "spec");
  Result<int64_t> band = Get<int64_t>(json, "band_bp");
  for (const Status& status : {id.status(), file.status(), band.status()}) {
    if (!status.ok()) return status;
  }
  // The tool checked these names before it asked (CheckSubmissionNames); the scorer does not take
  // its word: a name that would reach a terminal, an evidence file or a path raw is refused here.
  const std::string file_part = SpecFile(*file);
  RATCHET_RETURN_IF_ERROR(CheckEvidencePath(*id));  // records/<id>/ in the evidence
  RATCHET_RETURN_IF_ERROR(CheckEvidencePath(BaseName(file_part)));
  if (file_part.size() + 1 < file->size()) {  // FILE:function
    RATCHET_RETURN_IF_ERROR(CheckFunctionName(file->substr(file_part.size() + 1)));
  }
  spec.id = *id;
  spec.spec = *file;
  spec.band_bp = *band;
  return spec;
}

Json RecordResultToJson(const RecordResult& result) {
  Json problems = Json::array();
  for (const Problem& problem : result.problems) {
    problems.push_back({{"rule", problem.rule}, {"message", problem.message}});
  }
  Json runs = Json::array();
  for (const ReportRun& run : result.runs) runs.push_back(ReportRunJson(run));
  return {
      {"id", result.id},
      {"qualified", result.qualified},
      {"interrupted", result.interrupted},
      {"harness_error", result.harness_error ? StatusToJson(*result.harness_error) : Json(nullptr)},
      {"problems", problems},
      {"ranked", result.ranked},
      {"energy_mj", result.energy_mj},
      {"source_sha256", result.source_sha256},
      {"file", result.file},
      {"function", result.function},
      {"review_flags", result.review_flags},
      {"runs", runs}};
}

Result<RecordResult> RecordResultFromJson(const Json& json) {
  RecordResult result;
  try {
    result.id = json.at("id").get<std::string>();
    result.qualified = json.at("qualified").get<bool>();
    result.interrupted = json.at("interrupted").get<bool>();
    if (!json.at("harness_error").is_null()) {
      result.harness_error = StatusFromJson(json.at("harness_error"));
    }
    for (const Json& problem : json.at("problems")) {
      result.problems.push_back(
          {problem.at("rule").get<std::string>(), problem.at("message").get<std::string>()});
    }
    result.ranked = json.at("ranked").get<std::vector<double>>();
    result.energy_mj = json.at("energy_mj").get<std::vector<double>>();
    result.source_sha256 = json.at("source_sha256").get<std::string>();
    result.file = json.at("file").get<std::string>();
    result.function = json.at("function").get<std::string>();
    result.review_flags = json.at("review_flags").get<std::vector<std::string>>();
    const Json& runs = json.at("runs");
    if (!runs.is_array()) return Malformed("a record's result: runs is not an array");
    FindingLines findings;
    FieldReader reader("the scorer's result", &findings);
    for (size_t i = 0; i < runs.size(); ++i) {
      std::optional<ReportRun> run = ReadReportRun(runs[i], JoinPath("runs", i), reader);
      if (!run) return Malformed("a record's result: " + findings.Joined());
      result.runs.push_back(std::move(*run));
    }
  } catch (const Json::exception& error) {
    return Malformed(std::string("a record's result: ") + error.what());
  }
  return result;
}

Result<std::string> EncodeRequest(const std::string& kind, const Json& body) {
  try {
    return Json{{kind, body}}.dump() + "\n";
  } catch (const Json::exception&) {
    return Status::BadInput(
        "a path or value that is not UTF-8 (ratchet passes only UTF-8 to its scorer): " +
        Json{{kind, body}}.dump(-1, ' ', true, Json::error_handler_t::replace).substr(0, 200));
  }
}

std::string EncodeAnswer(const std::string& kind, const Json& body) {
  return Json{{kind, body}}.dump(-1, ' ', false, Json::error_handler_t::replace) + "\n";
}

Result<Message> ParseMessage(const std::string& line) {
  Json json = Json::parse(line, nullptr, /*allow_exceptions=*/false);
  if (!json.is_object() || json.size() != 1) {
    return Malformed("a line that is not an object of one member: " + line.substr(0, 80));
  }
  return Message{json.begin().key(), json.begin().value()};
}

}  // namespace ratchet
