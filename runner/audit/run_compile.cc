// The compile step of a run against its calls (CheckCompileStep, run_checks.h).
#include <set>

#include "audit/numbers.h"
#include "audit/run_checks.h"
#include "core/file.h"
#include "scorer/plan.h"

namespace ratchet {
namespace {

constexpr size_t kMaxCompileJsonBytes = 64u << 20;

bool IsSha256(const std::string& text) {
  return text.size() == 64 && text.find_first_not_of("0123456789abcdef") == std::string::npos;
}

// compile.json, read strictly; nullopt with a finding when it cannot be read.
std::optional<CompileEntry> ReadCompileFile(const RunFacts& run, const std::string& file,
                                            AuditResult* result) {
  auto item = run.context.items.find(file);
  if (item->second.kind != FolderItem::Kind::kFile) {
    result->Breaks(file, "not a regular file");
    return std::nullopt;
  }
  Result<std::string> text = ReadFile(run.context.dir + "/" + file, kMaxCompileJsonBytes + 1);
  if (!text.ok() || text->size() > kMaxCompileJsonBytes) {
    result->Breaks(file, text.ok() ? "larger than " + std::to_string(kMaxCompileJsonBytes) +
                                         " bytes"
                                   : text.status().message());
    return std::nullopt;
  }
  Result<Json> json = ParseJson(*text, file);
  if (!json.ok()) {
    result->Breaks(file, json.status().message());
    return std::nullopt;
  }
  FieldReader reader(file, result);
  return ReadCompile(*json, reader);
}

}  // namespace

void CheckCompileStep(const RunFacts& run, AuditResult* result) {
  const std::string file = RunFile(run.folder, kCompileFile);
  const bool ran = run.context.items.count(file) > 0;
  if (!ran) {
    // No step, no caches: a call that names some names what the evidence does not hold.
    if (!run.calls) return;
    for (size_t i = 0; i < run.calls->size(); ++i) {
      const std::string said = CallCachesSha256((*run.calls)[i]);
      if (!said.empty()) {
        result->Breaks(run.calls_file + ": " + CallCachesField(i),
                       "names caches " + said + ", but the run has no " + kCompileFile);
      }
    }
    return;
  }
  if (run.context.items.count(CompileLogPath(run.folder)) == 0) {
    result->Breaks(CompileLogPath(run.folder), "missing: the compile step keeps its worker's output");
  }
  std::optional<CompileEntry> compile = ReadCompileFile(run, file, result);
  if (!compile) return;
  // Its warm-up saw no timed draw: the warm-up dataset of the run's calls, at the step's own
  // index.
  if (compile->warmup_draw_index != static_cast<int64_t>(kCompileDrawIndex)) {
    result->Breaks(file + ": warmup_draw_index",
                   std::to_string(compile->warmup_draw_index) + ", but the compile step draws " +
                       std::to_string(kCompileDrawIndex));
  }
  if (run.calls && !run.calls->empty() &&
      compile->warmup_dataset != run.calls->front().warmup_dataset) {
    result->Breaks(file + ": warmup_dataset",
                   "\"" + compile->warmup_dataset + "\", but the run's warm-ups draw from \"" +
                       run.calls->front().warmup_dataset + "\"");
  }
  // The listing is well formed, and its sha256 is re-derived from it.
  std::set<std::string> paths;
  for (size_t i = 0; i < compile->files.size(); ++i) {
    const CacheFileEntry& entry = compile->files[i];
    const std::string at = file + ": " + CompileFileField(i);
    if (entry.path.empty() || !paths.insert(entry.path).second ||
        (i > 0 && !(compile->files[i - 1].path < entry.path))) {
      result->Breaks(at + ".path", "\"" + entry.path + "\": the listing's paths are distinct, " +
                                       "not empty, and sorted");
    }
    if (!IsSha256(entry.sha256)) result->Breaks(at + ".sha256", "not a lowercase sha256");
    if (entry.bytes < 0) result->Breaks(at + ".bytes", "negative");
  }
  const std::string derived = compile->files.empty() ? "" : CachesSha256(compile->files);
  if (compile->caches_sha256 != derived) {
    result->Breaks(file + ": caches_sha256",
                   "\"" + compile->caches_sha256 + "\", but its files' listing has sha256 \"" +
                       derived + "\"");
  }
  if (compile->failure && !compile->files.empty()) {
    result->Breaks(file + ": " + CompileFileField(0), "a compile step that failed gives no caches");
  }
  // Every call's worker was given those caches (or none, when the step left none).
  if (!run.calls) return;
  for (size_t i = 0; i < run.calls->size(); ++i) {
    const std::string said = CallCachesSha256((*run.calls)[i]);
    if (said != derived) {
      result->Breaks(run.calls_file + ": " + CallCachesField(i),
                     (said.empty() ? std::string("names no caches") : "names caches " + said) +
                         ", but the compile step's are " +
                         (derived.empty() ? std::string("none") : derived));
    }
  }
}

}  // namespace ratchet
