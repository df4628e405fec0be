// The files of one run's folder in an evidence directory (records/<id>/run-<k>/, RunFolder):
// their names, and one typed writer and one typed reader for each of its JSON documents, so that
// the scorer that writes them and the tool that reads them (the audit) spell no name or field of
// their own. docs/evidence.md says what each file and field means.
#ifndef RATCHET_EVIDENCE_RUN_FILES_H_
#define RATCHET_EVIDENCE_RUN_FILES_H_

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "core/canonical_json.h"
#include "evidence/fields.h"

namespace ratchet {

inline constexpr char kCallsFile[] = "calls.json";
inline constexpr char kJudgeFile[] = "judge.json";
inline constexpr char kEnergyFile[] = "energy.json";
// The run's compile step (docs/scoring.md, "The compile step"), when it ran, and its worker's log.
inline constexpr char kCompileFile[] = "compile.json";
inline constexpr char kCompileLog[] = "compile.log";  // in logs/
// The submission's bytes as scored, under its own base name.
inline constexpr char kSubmissionFolder[] = "submission";
// Each call's labels (one byte a test row) and the kept tail of its worker's output.
inline constexpr char kLabelsFolder[] = "labels";
inline constexpr char kLogsFolder[] = "logs";

// "<folder>/<name>": a file of the run folder `folder`.
std::string RunFile(const std::string& folder, const char* name);
// "<folder>/submission/<base_name>".
std::string SubmissionPath(const std::string& folder, const std::string& base_name);
// "<folder>/labels/<nn>.u8" and "<folder>/logs/<nn>.log" of call `call` (from 1).
std::string LabelsPath(const std::string& folder, int call);
std::string LogPath(const std::string& folder, int call);

// "<folder>/logs/compile.log".
std::string CompileLogPath(const std::string& folder);

// One element of calls.json: a call that completed, or the one that failed (the last).
struct CallEntry {
  int64_t call = 0;  // from 1, in the order the calls ran
  std::string dataset;
  uint64_t draw_index = 0;
  std::string warmup_dataset;
  uint64_t warmup_draw_index = 0;
  std::string inputs_sha256;  // of the timed call's inputs, as laid out in the input buffer
  double ms = 0, parent_ms = 0, overhead_ms = 0;
  int64_t correct = 0, total = 0;
  std::string worker_exit;
  int64_t log_bytes = 0;         // everything the worker printed (its log keeps the tail)
  Json worker = Json::object();  // the worker's hello
  Json phases = Json::object();  // where the window's time went: a diagnostic
};

// The worker's hello as a call keeps it (CallEntry::worker), for the readers that hold it to the
// contract. The worker writes it (docs/protocol.md); its keys are named here for every reader.
inline constexpr char kHelloDevice[] = "device";           // "cpu" or "cuda"
inline constexpr char kHelloDeviceName[] = "device_name";  // the board's name on a GPU
inline constexpr char kHelloUuid[] = "uuid";               // the board's UUID on a GPU
inline constexpr char kHelloSandbox[] = "sandbox";         // what the worker saw of its confinement
// A member of a hello as it is, null where it is absent or the hello is not an object.
Json HelloMember(const Json& hello, const char* key);
// The hello's "sandbox" part: the uid the worker ran as, and whether no_new_privs was 1 and
// seccomp 2 (filter mode) in its /proc/self/status. Lenient: what is absent or of another type
// reads as not said.
struct HelloSandbox {
  std::optional<int64_t> uid;
  bool no_new_privs = false;
  bool seccomp_filter = false;
};
HelloSandbox ReadHelloSandbox(const Json& sandbox);

Json CallsJson(const std::vector<CallEntry>& calls);
// calls.json read strictly through `reader` (every finding names its field); nullopt when a
// call cannot be read, is numbered out of order, or has a negative index or size. `worker` and
// `phases` are diagnostics and taken as they are.
std::optional<std::vector<CallEntry>> ReadCalls(const Json& list, FieldReader& reader);

// A file of the caches the compile step left: its path below the worker's cache folder, size
// and sha256.
struct CacheFileEntry {
  std::string path;
  int64_t bytes = 0;
  std::string sha256;
};
// The sha256 of a listing of caches, sorted by path: of the lines "<sha256>  <path>\n", as
// `sha256sum` prints them from inside the cache folder. Each call's worker that was given the
// caches names this in its calls.json phases (`caches_sha256`).
std::string CachesSha256(const std::vector<CacheFileEntry>& files);

// What a call's phases say of the caches its worker was given: their sha256 (CachesSha256), or
// "" for none; and that field's path in calls.json ("calls[3].phases.caches_sha256").
std::string CallCachesSha256(const CallEntry& call);
std::string CallCachesField(size_t index);
// The path of compile.json's files[index] ("files[2]").
std::string CompileFileField(size_t index);

// compile.json: what the compile step did. `failure` says why it left no caches (the run then
// went on without them); `files` is what each later worker was given.
struct CompileEntry {
  std::string warmup_dataset;
  int64_t warmup_draw_index = 0;
  std::optional<std::string> failure;
  std::string worker_exit;
  int64_t log_bytes = 0;
  double load_ms = 0, warmup_ms = 0, whole_ms = 0;
  std::vector<CacheFileEntry> files;  // sorted by path
  std::vector<std::string> skipped;   // what was not taken (a link, a device, a name), and why
  std::string caches_sha256;          // CachesSha256(files); "" when there are none
};
Json CompileJson(const CompileEntry& compile);
// compile.json read strictly through `reader`; nullopt when a field cannot be read.
std::optional<CompileEntry> ReadCompile(const Json& compile, FieldReader& reader);

struct ProblemEntry {
  std::string rule;
  std::string message;
};
Json ProblemsJson(const std::vector<ProblemEntry>& problems);

// judge.json: the run's verdict.
struct JudgeEntry {
  std::vector<ProblemEntry> problems;
  bool qualified = false;
  std::optional<double> ranked_ms;     // a qualified run's, and only its
  std::optional<std::string> summary;  // null when the run was not judged
  bool floored = false;                // the ranked time is the scorer's clock's
  // The call that failed (the last of calls.json), when a failure stopped the run.
  std::optional<int64_t> failed_call;
  // Why the harness could not run the method: the run has no verdict.
  std::optional<std::string> harness_failure;
};

Json JudgeJson(const JudgeEntry& judge);
// judge.json read strictly through `reader`; nullopt when a field cannot be read.
std::optional<JudgeEntry> ReadJudge(const Json& judge, FieldReader& reader);

}  // namespace ratchet

#endif  // RATCHET_EVIDENCE_RUN_FILES_H_
