// What the tool (`ratchet`) and the scorer (`ratchet-scorer`) say to each other: the options of a
// scoring session, the records to score, what a record's runs came to, and the messages that
// carry them, one JSON object a line (docs/design.md, "The scorer's requests"). The tool writes
// requests on the scorer's stdin; the scorer answers on its stdout. This file owns the format:
// both sides encode and decode through it.
#ifndef RATCHET_SESSION_REQUEST_H_
#define RATCHET_SESSION_REQUEST_H_

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "core/canonical_json.h"
#include "core/status.h"
#include "evidence/report_file.h"
#include "rules/judge.h"

namespace ratchet {

inline constexpr char kScorerRequestSchema[] = "ratchet.scorer-request/1";

struct SessionOptions {
  std::string command = "score";  // for messages: "ratchet <command>: ..."
  std::optional<std::string> data_dir, python, rules_path, out;
  // The default evidence folder is evidence/<out_prefix>-<UTC time>-<seed commit prefix>.
  std::string out_prefix = "score";
  // Whether any submission is a Python file: then an interpreter with torch is required.
  bool needs_python = false;
  // Measure the energy column after each run that qualifies on a GPU (--no-energy: false).
  bool energy = true;
  // The tool that asks (observed.tool in the contract); empty when the scorer runs alone.
  std::string tool_version, tool_source_sha256;
  // The session's seed, 64 hex digits, when the tool gives it (a shard of a run: derived from the
  // run's seed and the shard's id, so that the audit re-derives it); nullopt: a fresh random one.
  // Committed in seed.commit before the first call and revealed at the end either way.
  std::optional<std::string> seed;
  // The Ed25519 private key (PEM) that signs the evidence's manifest (`--sign`), when given: it
  // travels to the scorer in the request and is written nowhere.
  std::optional<std::string> signing_key;
};

// The folder of the default evidence directories, relative to the current folder.
inline constexpr char kDefaultEvidenceFolder[] = "evidence";
// The folder the evidence directory goes into: the folder of `out`, else kDefaultEvidenceFolder.
std::string EvidenceFolder(const SessionOptions& options);

// One record to score: `spec` is FILE[:function] as `ratchet score` takes it.
struct RecordSpec {
  std::string id;
  std::string spec;
  int64_t band_bp = 0;
};

// What the runs of one record came to.
struct RecordResult {
  std::string id;
  bool qualified = false;  // every run qualified
  bool interrupted = false;
  std::optional<Status> harness_error;  // the harness could not finish a run
  std::vector<Problem> problems;        // of every run that did not qualify
  std::vector<double> ranked;           // of the runs that qualified
  std::vector<double> energy_mj;        // the energy columns measured (mJ per call above idle)
  std::string source_sha256;
  std::string file;      // the submission's file name
  std::string function;  // the function scored
  std::vector<std::string> review_flags;
  std::vector<ReportRun> runs;  // the report's per-run entries
  // Median of `ranked` when qualified.
  std::optional<double> ranked_ms() const;
  std::vector<std::string> broken() const;  // the rule ids of `problems`, sorted, each once
  // The record's entry in report.json. Its "energy" is the median of `energy_mj` (one column,
  // measured once per record) when every run qualified and one has a figure, else null, and
  // how many runs have one.
  ReportEntry ReportOf(int64_t band_bp) const;
};

// The messages. A request is one of:
//   {"begin": SessionOptions}            first, once: the scorer answers "begun" or "error"
//   {"score": {"record", "runs", "first_run"}}  answered by "scored" or "error"
//   {"contract": {}}                     the contract, written into the evidence if it is not yet
//   {"complete": {"extra", "exit_code", "message"}}  report.json, reveal, finish
//   {"fail": Status}  or  {"interrupt": {}}  finish as failed or interrupted
// and the scorer answers, besides "out" and "err" (text for the tool's terminal), with
//   {"begun": {"evidence", "device_kind", "rule_set"}}, {"scored": RecordResult},
//   {"contract": Json}, {"error": Status}, {"finished": {"exit_code"}}.
// The scorer exits after "finished", or after "error" in answer to "begin".
Json StatusToJson(const Status& status);
// A malformed one is an Internal status that says so.
Status StatusFromJson(const Json& json);

Json SessionOptionsToJson(const SessionOptions& options);
Result<SessionOptions> SessionOptionsFromJson(const Json& json);

// The file of FILE[:function] (FILE.py:name, FILE.cpp:method): the tool and the scorer split a
// spec here alone.
std::string SpecFile(const std::string& spec);

Json RecordSpecToJson(const RecordSpec& spec);
Result<RecordSpec> RecordSpecFromJson(const Json& json);

Json RecordResultToJson(const RecordResult& result);
Result<RecordResult> RecordResultFromJson(const Json& json);

// One message: an object of exactly one member. `Parse` refuses anything else, naming the line.
struct Message {
  std::string kind;
  Json body;
};
// One line, with '\n'. A request's strings (paths among them) must be UTF-8: one that is not is
// an error, so that no path is changed on its way. An answer's text (a submission's words among
// it) crosses with each byte that is not UTF-8 as U+FFFD: the tool only prints it.
Result<std::string> EncodeRequest(const std::string& kind, const Json& body);
std::string EncodeAnswer(const std::string& kind, const Json& body);
Result<Message> ParseMessage(const std::string& line);

}  // namespace ratchet

#endif  // RATCHET_SESSION_REQUEST_H_
