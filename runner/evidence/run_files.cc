#include "evidence/run_files.h"

#include <cstdint>

#include "core/sha256.h"
#include "evidence/layout.h"

namespace ratchet {

std::string RunFile(const std::string& folder, const char* name) { return folder + "/" + name; }

std::string SubmissionPath(const std::string& folder, const std::string& base_name) {
  return folder + "/" + kSubmissionFolder + "/" + base_name;
}

std::string LabelsPath(const std::string& folder, int call) {
  return folder + "/" + kLabelsFolder + "/" + CallNumber(call) + ".u8";
}

std::string LogPath(const std::string& folder, int call) {
  return folder + "/" + kLogsFolder + "/" + CallNumber(call) + ".log";
}

std::string CompileLogPath(const std::string& folder) {
  return folder + "/" + kLogsFolder + "/" + kCompileLog;
}

std::string CachesSha256(const std::vector<CacheFileEntry>& files) {
  std::string listing;
  for (const CacheFileEntry& file : files) listing += file.sha256 + "  " + file.path + "\n";
  return Sha256Hex(listing);
}

std::string CallCachesSha256(const CallEntry& call) {
  const Json said = call.phases.is_object() ? call.phases.value("caches_sha256", Json()) : Json();
  return said.is_string() ? said.get<std::string>() : "";
}

std::string CallCachesField(size_t index) {
  return JoinPath(JoinPath(JoinPath("calls", index), "phases"), "caches_sha256");
}

std::string CompileFileField(size_t index) { return JoinPath("files", index); }

Json CompileJson(const CompileEntry& compile) {
  Json files = Json::array();
  for (const CacheFileEntry& file : compile.files) {
    files.push_back({{"path", file.path}, {"bytes", file.bytes}, {"sha256", file.sha256}});
  }
  return Json{{"warmup_dataset", compile.warmup_dataset},
              {"warmup_draw_index", compile.warmup_draw_index},
              {"failure", compile.failure ? Json(*compile.failure) : Json()},
              {"worker_exit", compile.worker_exit},
              {"log_bytes", compile.log_bytes},
              {"load_ms", compile.load_ms},
              {"warmup_ms", compile.warmup_ms},
              {"whole_ms", compile.whole_ms},
              {"files", files},
              {"skipped", compile.skipped},
              {"caches_sha256", compile.caches_sha256}};
}

std::optional<CompileEntry> ReadCompile(const Json& compile, FieldReader& reader) {
  CompileEntry entry;
  std::optional<std::string> dataset = reader.String(compile, "", "warmup_dataset");
  std::optional<int64_t> draw = reader.Integer(compile, "", "warmup_draw_index");
  std::optional<std::optional<std::string>> failure =
      reader.NullableString(compile, "", "failure");
  std::optional<std::string> exit = reader.String(compile, "", "worker_exit");
  std::optional<int64_t> log_bytes = reader.Integer(compile, "", "log_bytes");
  std::optional<double> load_ms = reader.Number(compile, "", "load_ms");
  std::optional<double> warmup_ms = reader.Number(compile, "", "warmup_ms");
  std::optional<double> whole_ms = reader.Number(compile, "", "whole_ms");
  const Json* files = reader.Array(compile, "", "files");
  const Json* skipped = reader.Array(compile, "", "skipped");
  std::optional<std::string> sha256 = reader.String(compile, "", "caches_sha256");
  if (files) {
    for (size_t i = 0; i < files->size(); ++i) {
      const Json& file = (*files)[i];
      const std::string at = JoinPath("files", i);
      if (!reader.IsObject(file, at)) continue;
      std::optional<std::string> path = reader.String(file, at, "path");
      std::optional<int64_t> bytes = reader.Integer(file, at, "bytes");
      std::optional<std::string> file_sha256 = reader.String(file, at, "sha256");
      if (path && bytes && file_sha256) entry.files.push_back({*path, *bytes, *file_sha256});
    }
  }
  if (skipped) {
    for (size_t i = 0; i < skipped->size(); ++i) {
      if (!(*skipped)[i].is_string()) {
        reader.result()->Breaks(reader.Where(JoinPath("skipped", i)),
                                "expected a string, found " + JsonTypeName((*skipped)[i]));
        continue;
      }
      entry.skipped.push_back((*skipped)[i].get<std::string>());
    }
  }
  if (reader.failed()) return std::nullopt;
  entry.warmup_dataset = *dataset;
  entry.warmup_draw_index = *draw;
  entry.failure = *failure;
  entry.worker_exit = *exit;
  entry.log_bytes = *log_bytes;
  entry.load_ms = *load_ms;
  entry.warmup_ms = *warmup_ms;
  entry.whole_ms = *whole_ms;
  entry.caches_sha256 = *sha256;
  return entry;
}

Json HelloMember(const Json& hello, const char* key) {
  return hello.is_object() ? hello.value(key, Json()) : Json();
}

HelloSandbox ReadHelloSandbox(const Json& sandbox) {
  HelloSandbox said;
  if (!sandbox.is_object()) return said;
  const Json uid = sandbox.value("uid", Json());
  if (uid.is_number_integer() && !(uid.is_number_unsigned() && uid.get<uint64_t>() > INT64_MAX)) {
    said.uid = uid.get<int64_t>();
  }
  said.no_new_privs = sandbox.value("no_new_privs", Json()) == Json(1);
  said.seccomp_filter = sandbox.value("seccomp", Json()) == Json(2);
  return said;
}

Json CallsJson(const std::vector<CallEntry>& calls) {
  Json out = Json::array();
  for (const CallEntry& call : calls) {
    out.push_back({{"call", call.call},
                   {"dataset", call.dataset},
                   {"draw_index", call.draw_index},
                   {"warmup_dataset", call.warmup_dataset},
                   {"warmup_draw_index", call.warmup_draw_index},
                   {"inputs_sha256", call.inputs_sha256},
                   {"ms", call.ms},
                   {"parent_ms", call.parent_ms},
                   {"overhead_ms", call.overhead_ms},
                   {"correct", call.correct},
                   {"total", call.total},
                   {"worker_exit", call.worker_exit},
                   {"log_bytes", call.log_bytes},
                   {"worker", call.worker},
                   {"phases", call.phases}});
  }
  return out;
}

std::optional<std::vector<CallEntry>> ReadCalls(const Json& list, FieldReader& reader) {
  if (!list.is_array()) {
    reader.result()->Breaks(reader.Where(""),
                            "expected an array of calls, found " + JsonTypeName(list));
    return std::nullopt;
  }
  std::vector<CallEntry> calls;
  bool ok = true;
  for (size_t i = 0; i < list.size(); ++i) {
    const std::string at = JoinPath("calls", i);
    const Json& item = list[i];
    if (!reader.IsObject(item, at)) {
      ok = false;
      continue;
    }
    std::optional<int64_t> number = reader.Integer(item, at, "call");
    std::optional<std::string> dataset = reader.String(item, at, "dataset");
    std::optional<int64_t> draw = reader.Integer(item, at, "draw_index");
    std::optional<std::string> warmup = reader.String(item, at, "warmup_dataset");
    std::optional<int64_t> warmup_draw = reader.Integer(item, at, "warmup_draw_index");
    std::optional<std::string> inputs = reader.String(item, at, "inputs_sha256");
    std::optional<double> ms = reader.Number(item, at, "ms");
    std::optional<double> parent_ms = reader.Number(item, at, "parent_ms");
    std::optional<double> overhead_ms = reader.Number(item, at, "overhead_ms");
    std::optional<int64_t> correct = reader.Integer(item, at, "correct");
    std::optional<int64_t> total = reader.Integer(item, at, "total");
    std::optional<std::string> exit = reader.String(item, at, "worker_exit");
    std::optional<int64_t> log_bytes = reader.Integer(item, at, "log_bytes");
    if (!number || !dataset || !draw || !warmup || !warmup_draw || !inputs || !ms || !parent_ms ||
        !overhead_ms || !correct || !total || !exit || !log_bytes) {
      ok = false;
      continue;
    }
    if (*number != static_cast<int64_t>(i + 1)) {
      reader.result()->Breaks(reader.Where(JoinPath(at, "call")),
                              std::to_string(*number) + " at position " + std::to_string(i + 1) +
                                  "; calls are numbered from 1 in the order they ran");
      ok = false;
    }
    if (*draw < 0 || *warmup_draw < 0 || *log_bytes < 0) {
      reader.result()->Breaks(reader.Where(at), "a negative draw index or log size");
      ok = false;
      continue;
    }
    CallEntry call;
    call.call = *number;
    call.dataset = *dataset;
    call.draw_index = static_cast<uint64_t>(*draw);
    call.warmup_dataset = *warmup;
    call.warmup_draw_index = static_cast<uint64_t>(*warmup_draw);
    call.inputs_sha256 = *inputs;
    call.ms = *ms;
    call.parent_ms = *parent_ms;
    call.overhead_ms = *overhead_ms;
    call.correct = *correct;
    call.total = *total;
    call.worker_exit = *exit;
    call.log_bytes = *log_bytes;
    call.worker = item.value("worker", Json::object());
    call.phases = item.value("phases", Json::object());
    calls.push_back(std::move(call));
  }
  if (!ok) return std::nullopt;
  return calls;
}

Json ProblemsJson(const std::vector<ProblemEntry>& problems) {
  Json out = Json::array();
  for (const ProblemEntry& problem : problems) {
    out.push_back({{"rule", problem.rule}, {"message", problem.message}});
  }
  return out;
}

Json JudgeJson(const JudgeEntry& judge) {
  Json out = {{"problems", ProblemsJson(judge.problems)},
              {"qualified", judge.qualified},
              {"ranked_ms", judge.ranked_ms ? Json(*judge.ranked_ms) : Json()},
              {"summary", judge.summary ? Json(*judge.summary) : Json()},
              {"floored", judge.floored}};
  if (judge.failed_call) out["failed_call"] = *judge.failed_call;
  if (judge.harness_failure) out["harness_failure"] = *judge.harness_failure;
  return out;
}

std::optional<JudgeEntry> ReadJudge(const Json& judge, FieldReader& reader) {
  const Json* problems = reader.Array(judge, "", "problems");
  std::optional<bool> qualified = reader.Bool(judge, "", "qualified");
  std::optional<std::optional<double>> ranked = reader.NullableNumber(judge, "", "ranked_ms");
  std::optional<std::optional<std::string>> summary = reader.NullableString(judge, "", "summary");
  std::optional<bool> floored = reader.Bool(judge, "", "floored");
  JudgeEntry entry;
  if (problems) {
    for (size_t i = 0; i < problems->size(); ++i) {
      const Json& problem = (*problems)[i];
      const std::string at = JoinPath("problems", i);
      if (!reader.IsObject(problem, at)) continue;
      std::optional<std::string> rule = reader.String(problem, at, "rule");
      std::optional<std::string> message = reader.String(problem, at, "message");
      if (rule && message) entry.problems.push_back({*rule, *message});
    }
  }
  if (reader.failed()) return std::nullopt;
  entry.qualified = *qualified;
  entry.ranked_ms = *ranked;
  entry.summary = *summary;
  entry.floored = *floored;
  // Present only when the run stopped: a field of the wrong type is a finding, and the rest of
  // the verdict still reads.
  if (judge.contains("failed_call")) {
    if (std::optional<int64_t> failed_call = reader.Integer(judge, "", "failed_call")) {
      entry.failed_call = *failed_call;
    }
  }
  if (judge.contains("harness_failure")) {
    std::optional<std::string> why = reader.String(judge, "", "harness_failure");
    entry.harness_failure = why.value_or(JsonShown(judge["harness_failure"]));
  }
  return entry;
}

}  // namespace ratchet
