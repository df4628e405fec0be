#include "shard/sharded_run.h"

#include <sys/stat.h>

#include <algorithm>
#include <cstdint>
#include <cstring>
#include <limits>
#include <type_traits>
#include <set>
#include <filesystem>

#include "core/file.h"
#include "core/sha256.h"
#include "evidence/layout.h"
#include "evidence/signature.h"
#include "rules/judge.h"

namespace ratchet {

namespace {

// A member of `json` read as `T`, or an error naming `what` and the key.
// A whole number of run.json that fits `T`: nlohmann's get<int> would cut 2^40 to 0.
template <typename T>
bool FitsInteger(const Json& value) {
  if (value.is_number_unsigned()) {
    return value.get<uint64_t>() <= static_cast<uint64_t>(std::numeric_limits<T>::max());
  }
  if (!value.is_number_integer()) return false;
  const int64_t n = value.get<int64_t>();
  return n >= static_cast<int64_t>(std::numeric_limits<T>::min()) &&
         n <= static_cast<int64_t>(std::numeric_limits<T>::max());
}

template <typename T>
Status Get(const Json& json, const char* key, const std::string& what, T* out) {
  auto found = json.find(key);
  if (found == json.end()) return Status::BadInput(what + ": no \"" + key + "\"");
  if constexpr (std::is_integral_v<T> && !std::is_same_v<T, bool>) {
    if (!FitsInteger<T>(*found)) {
      return Status::BadInput(what + ": \"" + key + "\" is not a whole number from " +
                              std::to_string(std::numeric_limits<T>::min()) + " to " +
                              std::to_string(std::numeric_limits<T>::max()));
    }
  }
  try {
    *out = found->get<T>();
  } catch (const std::exception&) {
    return Status::BadInput(what + ": \"" + key + "\" is a " + JsonTypeName(*found) +
                            ", not what it should be");
  }
  return Status::Ok();
}

Json ShardJson(const Shard& shard) {
  return Json{{"id", shard.id},
              {"record", shard.record},
              {"sha256", shard.submission_sha256},
              {"run", shard.run}};
}

Status ReadShard(const Json& json, const std::string& what, Shard* shard) {
  if (!json.is_object()) return Status::BadInput(what + " is not an object");
  Status s = Get(json, "id", what, &shard->id);
  if (s.ok()) s = Get(json, "record", what, &shard->record);
  if (s.ok()) s = Get(json, "sha256", what, &shard->submission_sha256);
  if (s.ok()) s = Get(json, "run", what, &shard->run);
  if (s.ok()) s = CheckLowerHex64(shard->id, what + ": id");
  if (s.ok() && shard->run < 1) s = Status::BadInput(what + ": run " + std::to_string(shard->run));
  return s;
}

std::string Text(const Json& json, const char* key) {
  auto found = json.find(key);
  return found != json.end() && found->is_string() ? found->get<std::string>() : "";
}

Result<ShardAttempt> ReadAttempt(const Json& json, const std::string& what) {
  if (!json.is_object()) return Status::BadInput(what + " is not an object");
  ShardAttempt a;
  Status s = Get(json, "attempt", what, &a.attempt);
  if (s.ok()) s = Get(json, "executor", what, &a.executor);
  if (s.ok()) s = Get(json, "seconds", what, &a.seconds);
  if (!s.ok()) return s;
  a.host = Text(json, "host");
  a.job = Text(json, "job");
  a.step = Text(json, "step");
  a.device = Text(json, "device");
  a.device_uuid = Text(json, "device_uuid");
  a.submitted = Text(json, "submitted");
  a.started = Text(json, "started");
  a.collected = Text(json, "collected");
  a.ended = Text(json, "ended");
  a.why = Text(json, "why");
  a.folder = Text(json, "folder");
  const std::string end = Text(json, "end");
  if (end == "scored") {
    a.end = AttemptEnd::kScored;
  } else if (end == "fault") {
    a.end = AttemptEnd::kFault;
  } else if (end == "cancelled") {
    a.end = AttemptEnd::kCancelled;
  } else {
    return Status::BadInput(what + ": end \"" + end + "\" is none of scored, fault, cancelled");
  }
  return a;
}

}  // namespace

Json ShardPlanJson(const ShardPlan& plan) {
  return Json{{"schema", kShardPlanSchema},
              {"shard", ShardJson(plan.shard)},
              {"record", RecordSpecToJson(plan.record)},
              {"options", SessionOptionsToJson(plan.options)},
              {"run_seed_commit", plan.run_seed_commit},
              {"shared_device", plan.shared_device}};
}

Result<ShardPlan> ParseShardPlan(const std::string& text, const std::string& what) {
  Result<Json> json = ParseJson(text, what);
  if (!json.ok()) return json.status();
  if (!json->is_object() || Text(*json, "schema") != kShardPlanSchema) {
    return Status::BadInput(what + " is not a shard's plan (schema " + kShardPlanSchema + ")");
  }
  ShardPlan plan;
  Status s = ReadShard(json->value("shard", Json()), what + ": shard", &plan.shard);
  if (!s.ok()) return s;
  Result<RecordSpec> record = RecordSpecFromJson(json->value("record", Json()));
  if (!record.ok()) return Status::BadInput(what + ": record: " + record.status().message());
  plan.record = *record;
  Result<SessionOptions> options = SessionOptionsFromJson(json->value("options", Json()));
  if (!options.ok()) return Status::BadInput(what + ": options: " + options.status().message());
  plan.options = *options;
  s = Get(*json, "run_seed_commit", what, &plan.run_seed_commit);
  if (s.ok()) s = CheckLowerHex64(plan.run_seed_commit, what + ": run_seed_commit");
  if (s.ok()) s = Get(*json, "shared_device", what, &plan.shared_device);
  if (!s.ok()) return s;
  if (!plan.options.seed || !plan.options.out) {
    return Status::BadInput(what + ": a shard's plan gives its seed and its folder");
  }
  return plan;
}

Result<std::string> ShardSeed(const std::string& run_seed_hex, const std::string& shard_id) {
  Status hex = CheckLowerHex64(run_seed_hex, "the run seed");
  if (!hex.ok()) return hex;
  Result<std::string> key = HexDecode(run_seed_hex, "the run seed");
  if (!key.ok()) return key.status();
  return HexEncode(HmacSha256(*key, "ratchet shard " + shard_id));
}

Json ShardReportJson(const Shard& shard, const std::string& run_seed_commit) {
  Json json = ShardJson(shard);
  json["run_seed_commit"] = run_seed_commit;
  return json;
}

// A record's scoring made of the entries of its shards (each one run), in run order: the
// outcome every run gives, the median of their times, the energy figure its measured run gave.
ReportEntry CombineShardEntries(std::vector<ReportEntry> entries) {
  std::sort(entries.begin(), entries.end(),
            [](const ReportEntry& a, const ReportEntry& b) { return a.runs[0].run < b.runs[0].run; });
  ReportEntry combined = entries.front();
  combined.runs.clear();
  combined.qualified = true;
  std::set<std::string> broken, flags;
  std::vector<double> ranked, energy;
  int64_t measured = 0;
  for (const ReportEntry& entry : entries) {
    combined.qualified = combined.qualified && entry.qualified;
    broken.insert(entry.broken.begin(), entry.broken.end());
    flags.insert(entry.review_flags.begin(), entry.review_flags.end());
    if (entry.ranked_ms) ranked.push_back(*entry.ranked_ms);
    if (entry.energy_mj) energy.push_back(*entry.energy_mj);
    measured += entry.energy_runs_measured;
    combined.runs.push_back(entry.runs[0]);
  }
  combined.broken.assign(broken.begin(), broken.end());
  combined.review_flags.assign(flags.begin(), flags.end());
  combined.ranked_ms.reset();
  if (combined.qualified && !ranked.empty()) combined.ranked_ms = Median(ranked);
  combined.energy_mj.reset();
  if (combined.qualified && !energy.empty()) combined.energy_mj = Median(energy);
  combined.energy_runs_measured = measured;
  return combined;
}

Json RunInputsJson(const RunInputs& in) {
  auto text = [](const std::optional<std::string>& value) {
    return value ? Json(*value) : Json();
  };
  const Json slurm = {{"folder", in.slurm.folder},
                      {"partition", in.slurm.partition},
                      {"account", in.slurm.account},
                      {"time_minutes", in.slurm.time_minutes},
                      {"gpus", in.slurm.gpus}};
  return Json{{"baseline", in.baseline},
              {"baseline_sha256", in.baseline_sha256},
              {"records", in.records},
              {"runs", in.runs ? Json(*in.runs) : Json()},
              {"rules", text(in.rules)},
              {"data", text(in.data)},
              {"python", text(in.python)},
              {"out", text(in.out)},
              {"energy", in.energy},
              {"require_lane", in.require_lane},
              {"executor", in.executor},
              {"devices", in.devices},
              {"jobs", in.jobs},
              {"attempts", in.attempts},
              {"slurm", slurm}};
}

Result<RunInputs> ParseRunInputs(const Json& json, const std::string& what) {
  if (!json.is_object()) return Status::BadInput(what + " is not an object");
  RunInputs in;
  auto optional_text = [&](const char* key, std::optional<std::string>* out) -> Status {
    auto found = json.find(key);
    if (found == json.end()) return Status::BadInput(what + ": no \"" + key + "\"");
    if (found->is_null()) return Status::Ok();
    std::string value;
    Status s = Get(json, key, what, &value);
    if (s.ok()) *out = value;
    return s;
  };
  Status s = Get(json, "baseline", what, &in.baseline);
  if (s.ok()) s = Get(json, "baseline_sha256", what, &in.baseline_sha256);
  if (s.ok()) s = CheckLowerHex64(in.baseline_sha256, what + ": baseline_sha256");
  if (s.ok()) s = Get(json, "records", what, &in.records);
  const auto runs_found = json.find("runs");  // null: no --runs; absent: refused by Get
  if (s.ok() && (runs_found == json.end() || !runs_found->is_null())) {
    int64_t runs = 0;
    s = Get(json, "runs", what, &runs);
    in.runs = runs;
  }
  if (s.ok()) s = optional_text("rules", &in.rules);
  if (s.ok()) s = optional_text("data", &in.data);
  if (s.ok()) s = optional_text("python", &in.python);
  if (s.ok()) s = optional_text("out", &in.out);
  if (s.ok()) s = Get(json, "energy", what, &in.energy);
  if (s.ok()) s = Get(json, "require_lane", what, &in.require_lane);
  if (s.ok()) s = Get(json, "executor", what, &in.executor);
  if (s.ok()) s = Get(json, "devices", what, &in.devices);
  if (s.ok()) s = Get(json, "jobs", what, &in.jobs);
  if (s.ok()) s = Get(json, "attempts", what, &in.attempts);
  if (!s.ok()) return s;
  const auto slurm = json.find("slurm");
  if (slurm == json.end() || !slurm->is_object()) {
    return Status::BadInput(what + ": \"slurm\" is not an object");
  }
  const std::string where = what + ".slurm";
  s = Get(*slurm, "folder", where, &in.slurm.folder);
  if (s.ok()) s = Get(*slurm, "partition", where, &in.slurm.partition);
  if (s.ok()) s = Get(*slurm, "account", where, &in.slurm.account);
  if (s.ok()) s = Get(*slurm, "time_minutes", where, &in.slurm.time_minutes);
  if (s.ok()) s = Get(*slurm, "gpus", where, &in.slurm.gpus);
  if (!s.ok()) return s;
  return in;
}

Json ShardedRunJson(const ShardedRun& run) {
  Json shards = Json::array();
  for (const ShardedRunShard& s : run.shards) {
    Json attempts = Json::array();
    for (const ShardAttempt& a : s.attempts) attempts.push_back(ShardAttemptJson(a));
    Json entry = ShardJson(s.shard);
    entry["rerun"] = s.rerun;
    entry["state"] = s.state;
    entry["attempts"] = attempts;
    shards.push_back(entry);
  }
  return Json{{"schema", kShardedRunSchema},
              {"state", run.state},
              {"inputs", RunInputsJson(run.inputs)},
              {"seed_commit", run.seed_commit},
              {"seed", run.seed.empty() ? Json() : Json(run.seed)},
              {"locked", run.locked},
              {"lane", run.lane},
              {"signer", run.signer.empty() ? Json() : Json(run.signer)},
              {"shards", shards},
              {"report", run.report},
              {"exit_code", run.exit_code < 0 ? Json() : Json(run.exit_code)},
              {"message", run.message}};
}

Result<ShardedRun> ParseShardedRun(const std::string& text, const std::string& what) {
  Result<Json> json = ParseJson(text, what);
  if (!json.ok()) return json.status();
  if (!json->is_object() || Text(*json, "schema") != kShardedRunSchema) {
    return Status::BadInput(what + " is not a sharded run's (schema " + kShardedRunSchema + ")");
  }
  ShardedRun run;
  Status s = Get(*json, "state", what, &run.state);
  if (s.ok()) s = Get(*json, "seed_commit", what, &run.seed_commit);
  if (s.ok()) s = CheckLowerHex64(run.seed_commit, what + ": seed_commit");
  if (s.ok()) s = Get(*json, "lane", what, &run.lane);
  if (s.ok()) s = Get(*json, "message", what, &run.message);
  if (!s.ok()) return s;
  const std::vector<std::string> states = {"running", "interrupted", "failed", "complete"};
  if (std::find(states.begin(), states.end(), run.state) == states.end()) {
    return Status::BadInput(what + ": state \"" + run.state + "\" is none a run has");
  }
  Result<RunInputs> inputs = ParseRunInputs(json->value("inputs", Json()), what + ": inputs");
  if (!inputs.ok()) return inputs.status();
  run.inputs = *inputs;
  run.locked = json->value("locked", Json());
  run.report = json->value("report", Json());
  if (!run.locked.is_object()) return Status::BadInput(what + ": locked must be an object");
  const Json seed = json->value("seed", Json());
  if (seed.is_string()) {
    run.seed = seed.get<std::string>();
    s = CheckLowerHex64(run.seed, what + ": seed");
    if (!s.ok()) return s;
  }
  const Json signer = json->value("signer", Json());
  if (!signer.is_null()) {
    if (!signer.is_string() || !IsPublicKeyHex(signer.get<std::string>())) {
      return Status::BadInput(what + ": signer is not a public key (64 lowercase hex digits)");
    }
    run.signer = signer.get<std::string>();
  }
  if (!json->value("exit_code", Json()).is_null()) {
    s = Get(*json, "exit_code", what, &run.exit_code);
    if (!s.ok()) return s;
  }
  const Json shards = json->value("shards", Json());
  if (!shards.is_array()) return Status::BadInput(what + ": shards is not an array");
  for (size_t i = 0; i < shards.size(); ++i) {
    const std::string where = what + ": shards[" + std::to_string(i) + "]";
    ShardedRunShard entry;
    s = ReadShard(shards[i], where, &entry.shard);
    if (s.ok()) s = Get(shards[i], "rerun", where, &entry.rerun);
    if (s.ok()) s = Get(shards[i], "state", where, &entry.state);
    if (!s.ok()) return s;
    const Json attempts = shards[i].value("attempts", Json());
    if (!attempts.is_array()) return Status::BadInput(where + ": attempts is not an array");
    for (size_t k = 0; k < attempts.size(); ++k) {
      Result<ShardAttempt> a =
          ReadAttempt(attempts[k], where + ".attempts[" + std::to_string(k) + "]");
      if (!a.ok()) return a.status();
      entry.attempts.push_back(*a);
    }
    run.shards.push_back(entry);
  }
  return run;
}

std::string ShardFolder(const std::string& run_dir, const std::string& id) {
  return run_dir + "/shards/" + id;
}
std::string ShardPlanPath(const std::string& run_dir, const std::string& id) {
  return run_dir + "/plans/" + id + ".json";
}
std::string RunSeedPath(const std::string& run_dir) { return run_dir + "/plans/run.seed"; }
std::string ShardLogPath(const std::string& run_dir, const std::string& id, int attempt) {
  return run_dir + "/logs/" + id + "." + std::to_string(attempt) + ".log";
}

bool IsShardedRun(const std::string& dir) {
  Result<std::string> text = ReadFile(dir + "/" + kShardedRunFile, 64u << 20);
  if (!text.ok()) return false;
  try {
    const Json json = Json::parse(*text);
    return json.is_object() && json.value("schema", Json()) == kShardedRunSchema;
  } catch (const std::exception&) {
    return text->find(kShardedRunSchema) != std::string::npos;  // a damaged one: say what it is
  }
}

Result<ShardedRun> ReadShardedRun(const std::string& dir) {
  const std::string path = dir + "/" + kShardedRunFile;
  Result<std::string> text = ReadFile(path, 64u << 20);
  if (!text.ok()) return text.status();
  return ParseShardedRun(*text, path);
}

Status WriteShardedRun(const std::string& dir, const ShardedRun& run) {
  return WriteFileAtomic(dir + "/" + kShardedRunFile, ShardedRunJson(run).dump(2) + "\n");
}

namespace {

// The files MANIFEST.json covers, relative to the run's directory.
std::vector<std::string> ManifestPaths(const ShardedRun& run) {
  std::vector<std::string> paths = {kShardedRunFile};
  for (const ShardedRunShard& s : run.shards) {
    if (s.state == "done") paths.push_back("shards/" + s.shard.id + "/" + kManifestFile);
  }
  std::sort(paths.begin(), paths.end());
  return paths;
}

}  // namespace

Status CheckShardsAsVerified(const std::string& dir, const ShardedRun& run,
                             const std::map<std::string, std::string>& verified_manifests) {
  for (const ShardedRunShard& s : run.shards) {
    if (s.state != "done") continue;
    const std::string path = "shards/" + s.shard.id + "/" + kManifestFile;
    auto verified = verified_manifests.find(s.shard.id);
    if (verified == verified_manifests.end() || verified->second.empty()) {
      return Status::BadInput("shard " + s.shard.id.substr(0, 12) +
                              " was not verified as the run was collected: the run is not sealed");
    }
    Result<std::string> on_disk = Sha256File(dir + "/" + path);
    if (!on_disk.ok()) return on_disk.status();
    if (*on_disk != verified->second) {
      return Status::BadInput(path + " changed after it was verified (its sha256 is " + *on_disk +
                              ", the verified bytes' " + verified->second +
                              "): the run is not sealed");
    }
  }
  return Status::Ok();
}

Status SealShardedRun(const std::string& dir, const ShardedRun& run,
                      const std::map<std::string, std::string>& verified_manifests,
                      const std::optional<std::string>& signing_key) {
  RATCHET_RETURN_IF_ERROR(CheckShardsAsVerified(dir, run, verified_manifests));
  const std::string run_sha256 = Sha256Hex(ShardedRunJson(run).dump(2) + "\n");
  Result<std::string> on_disk = Sha256File(dir + "/" + kShardedRunFile);
  if (!on_disk.ok()) return on_disk.status();
  if (*on_disk != run_sha256) {
    return Status::BadInput(std::string(kShardedRunFile) +
                            " changed after it was verified (its sha256 is " + *on_disk +
                            ", the written bytes' " + run_sha256 + "): the run is not sealed");
  }
  Json files = Json::object();
  files[kShardedRunFile] = run_sha256;
  for (const ShardedRunShard& s : run.shards) {
    if (s.state == "done") {
      files["shards/" + s.shard.id + "/" + kManifestFile] = verified_manifests.at(s.shard.id);
    }
  }
  const std::string manifest = Json{{"schema", kShardedRunSchema}, {"files", files}}.dump(2) + "\n";
  std::error_code ignored;
  std::filesystem::remove(dir + "/" + kSignatureFile, ignored);  // an earlier collect's
  if (signing_key) {
    // Before the manifest, which marks the run complete: a run with a manifest and no signature
    // it was asked for is never left behind.
    Result<Json> signature = SignManifest(*signing_key, manifest);
    if (!signature.ok()) return signature.status();
    RATCHET_RETURN_IF_ERROR(
        WriteFileAtomic(dir + "/" + kSignatureFile, signature->dump(2) + "\n"));
  }
  return WriteFileAtomic(dir + "/" + kShardedRunManifestFile, manifest);
}

Status SignShard(const std::string& folder, const std::string& signing_key,
                 const std::string& verified_sha256) {
  Result<std::string> manifest = ReadFile(folder + "/" + kManifestFile, 16u << 20);
  if (!manifest.ok()) return manifest.status();
  if (Sha256Hex(*manifest) != verified_sha256) {
    return Status::BadInput(std::string(kManifestFile) +
                            " changed after the shard was verified: it is not signed");
  }
  Result<Json> signature = SignManifest(signing_key, *manifest);
  if (!signature.ok()) return signature.status();
  return WriteFileAtomic(folder + "/" + kSignatureFile, signature->dump(2) + "\n");
}

std::vector<std::string> CheckShardedRunManifest(const std::string& dir, const ShardedRun& run,
                                                 std::string* read_sha256) {
  std::vector<std::string> problems;
  const std::string path = dir + "/" + kShardedRunManifestFile;
  Result<std::string> text = ReadFile(path, 16u << 20);
  if (read_sha256 != nullptr) *read_sha256 = text.ok() ? Sha256Hex(*text) : "";
  if (!text.ok()) return {kShardedRunManifestFile + std::string(": ") + text.status().message()};
  Result<Json> json = ParseJson(*text, path);
  if (!json.ok() || !json->is_object() || !json->value("files", Json()).is_object()) {
    return {std::string(kShardedRunManifestFile) + ": not a sharded run's manifest"};
  }
  const Json& files = (*json)["files"];
  const std::vector<std::string> expected = ManifestPaths(run);
  for (const auto& [name, sha256] : files.items()) {
    if (std::find(expected.begin(), expected.end(), name) == expected.end()) {
      problems.push_back(std::string(kShardedRunManifestFile) + ": lists " + name +
                         ", which is not a file of the run");
    }
  }
  for (const std::string& name : expected) {
    auto found = files.find(name);
    if (found == files.end() || !found->is_string()) {
      problems.push_back(std::string(kShardedRunManifestFile) + ": does not list " + name);
      continue;
    }
    Result<std::string> sha256 = Sha256File(dir + "/" + name);
    if (!sha256.ok()) {
      problems.push_back(name + ": " + sha256.status().message());
    } else if (*sha256 != found->get<std::string>()) {
      problems.push_back(name + ": its sha256 is not the one MANIFEST.json lists");
    }
  }
  return problems;
}

}  // namespace ratchet
