#include "audit/reference_record.h"

#include <algorithm>
#include <set>
#include <vector>

#include "audit/energy_column.h"
#include "audit/numbers.h"
#include "audit/stdout_check.h"
#include "core/sha256.h"
#include "energy/energy_file.h"
#include "evidence/fields.h"
#include "evidence/layout.h"
#include "rules/judge.h"
#include "rules/pyformat.h"

namespace ratchet {
namespace {

// A ranked time that differs from the re-judged one by at most this many units in the last
// place is the same figure: a Python whose sum() compensates rounds the last bits of a mean
// differently (docs/rules.md), and nothing else moves a figure by so little.
constexpr int64_t kRankedUlps = 4;

std::string Quoted(const std::string& text) { return "'" + text + "'"; }

std::string FirstLine(const std::string& text) { return text.substr(0, text.find('\n')); }

bool IsForeign(const RuleSet& rules, const std::string& dataset) {
  return std::find(rules.datasets.foreign.begin(), rules.datasets.foreign.end(), dataset) !=
         rules.datasets.foreign.end();
}

// The calls of the record, read strictly; nullopt when any is malformed (findings say where).
std::optional<std::vector<Call>> ReadCalls(const Json& list, const std::string& path,
                                           FieldReader& reader) {
  std::vector<Call> calls;
  bool ok = true;
  for (size_t i = 0; i < list.size(); ++i) {
    const std::string at = JoinPath(path, i);
    if (!reader.IsObject(list[i], at)) {
      ok = false;
      continue;
    }
    std::optional<std::string> dataset = reader.String(list[i], at, "dataset");
    std::optional<double> ms = reader.Number(list[i], at, "ms");
    std::optional<double> parent_ms = reader.Number(list[i], at, "parent_ms");
    std::optional<int64_t> correct = reader.Integer(list[i], at, "correct");
    std::optional<int64_t> total = reader.Integer(list[i], at, "total");
    std::optional<double> overhead_ms = reader.Number(list[i], at, "overhead_ms");
    if (!dataset || !ms || !parent_ms || !correct || !total || !overhead_ms) {
      ok = false;
      continue;
    }
    calls.push_back(Call{*dataset, *ms, *parent_ms, *correct, *total, *overhead_ms});
  }
  if (!ok) return std::nullopt;
  return calls;
}

// Every call is one the protocol makes: a known dataset (the hold-out the record names), a full
// test set, a count of correct labels within it.
bool CheckCalls(const std::vector<Call>& calls, const std::string& path, const std::string& holdout,
                FieldReader& reader, const RuleSet& rules) {
  bool ok = true;
  for (size_t i = 0; i < calls.size(); ++i) {
    const Call& c = calls[i];
    const std::string at = JoinPath(path, i);
    if (c.dataset != rules.datasets.mnist && c.dataset != holdout) {
      reader.result()->Breaks(reader.Where(JoinPath(at, "dataset")),
                              Quoted(c.dataset) + " is neither " + rules.datasets.mnist +
                                  " nor the run's hold-out " + holdout);
      ok = false;
    }
    if (c.total != rules.draw.test) {
      reader.result()->Breaks(reader.Where(JoinPath(at, "total")),
                              std::to_string(c.total) + "; every draw of the rule set has " +
                                  std::to_string(rules.draw.test) + " test images");
      ok = false;
    } else if (c.correct < 0 || c.correct > c.total) {
      reader.result()->Breaks(
          reader.Where(JoinPath(at, "correct")),
          std::to_string(c.correct) + " is not a count of " + std::to_string(c.total) + " labels");
      ok = false;
    }
  }
  return ok;
}

// Compares the problems the record lists with those re-judged from its calls.
bool CompareProblems(const Json& recorded, const std::vector<Problem>& judged,
                     const std::string& path, FieldReader& reader) {
  std::vector<std::string> listed, derived;
  for (size_t i = 0; i < recorded.size(); ++i) {
    if (!recorded[i].is_string()) {
      reader.result()->Breaks(reader.Where(JoinPath(path, i)),
                              "expected a string, found " + JsonTypeName(recorded[i]));
      return false;
    }
    listed.push_back(recorded[i].get<std::string>());
  }
  for (const Problem& p : judged) derived.push_back(p.message);
  if (listed == derived) return true;
  bool named = false;
  for (size_t i = 0; i < listed.size(); ++i) {
    if (std::find(derived.begin(), derived.end(), listed[i]) == derived.end()) {
      reader.result()->Breaks(reader.Where(JoinPath(path, i)),
                              Quoted(listed[i]) + " does not follow from the calls");
      named = true;
    }
  }
  for (const Problem& p : judged) {
    if (std::find(listed.begin(), listed.end(), p.message) == listed.end()) {
      reader.result()->Breaks(reader.Where(path), "re-judging the calls breaks rule " + p.rule +
                                                      ": " + Quoted(p.message) +
                                                      ", which the record does not list");
      named = true;
    }
  }
  if (!named) {
    reader.result()->Breaks(reader.Where(path),
                            "the problems are those of the calls, in another order");
  }
  return false;
}

std::string BandText(int64_t band_bp) { return FormatFixed(band_bp / 100.0, 2) + "% error"; }

}  // namespace

RecordShape ShapeOf(const Json& document) {
  if (!document.is_object()) return RecordShape::kNone;
  if (document.contains("returncode") && document.contains("stdout")) return RecordShape::kWrapped;
  if (document.contains("version") && document.contains("file")) return RecordShape::kBare;
  return RecordShape::kNone;
}

namespace {

// The string field `key` of the record in `document` (bare, or inside a wrapper), if it has one.
std::optional<std::string> RecordString(const Json& document, const char* key) {
  const Json* record = &document;
  if (ShapeOf(document) == RecordShape::kWrapped) {
    if (!document.contains("record")) return std::nullopt;
    record = &document["record"];
  }
  if (!record->is_object() || !record->contains(key) || !(*record)[key].is_string())
    return std::nullopt;
  return (*record)[key].get<std::string>();
}

}  // namespace

std::optional<std::string> RecordFileName(const Json& document) {
  return RecordString(document, "file");
}

std::optional<std::string> RecordVersion(const Json& document) {
  return RecordString(document, "version");
}

Result<RuleSet> RuleSetForRecord(const Json& document, const std::string& name,
                                 AuditResult* result) {
  const std::optional<std::string> version = RecordVersion(document);
  if (!version) {
    Result<RuleSet> rules = LoadRuleSet(std::nullopt);
    if (rules.ok()) result->rules = rules->id + " (the default: the record names no version)";
    return rules;
  }
  Result<const RuleSet*> found = FindEmbeddedRuleSetByVersion(*version);
  if (!found.ok()) return found.status();
  if (*found == nullptr) {
    return Status::BadInput(name + ": the record was made by " + Quoted(*version) +
                            "; no rule set compiled into ratchet judges that version (they are " +
                            EmbeddedRuleSetIds() +
                            "): give the record's own rule set with --rules FILE");
  }
  result->rules = (*found)->id + " (compiled in; the rule set of the record's version)";
  return **found;
}

namespace {

// What the audit of a record read, for its checks: the document and where the record is in it,
// its fields read strictly (each nullopt or nullptr when missing or mistyped: a finding), and
// what follows from them.
struct ReferenceFacts {
  ReferenceFacts(const Json& document_in, const std::string& name_in, const RuleSet& rules_in,
                 const std::optional<SubmissionFile>& submission_in, AuditResult* result)
      : document(document_in),
        name(name_in),
        rules(rules_in),
        submission(submission_in),
        shape(ShapeOf(document_in)),
        reader(name_in, result),
        record(&document_in) {}

  const Json& document;
  const std::string& name;  // the file's, which findings begin with
  const RuleSet& rules;
  const std::optional<SubmissionFile>& submission;
  const RecordShape shape;
  FieldReader reader;
  const Json* record;  // the document, or its "record"
  std::string base;    // the record's path in the document: "" or "record"

  std::optional<std::string> version, file, function, source_sha256, holdout;
  std::optional<int64_t> band_bp;
  std::optional<bool> sandboxed;
  const Json* call_list = nullptr;
  const Json* problems = nullptr;
  std::string who;         // "<file>:<function>"
  std::string calls_path;  // "record.calls"
  std::optional<std::vector<Call>> calls;
  bool calls_ok = false;       // every call read and one the protocol makes
  int64_t planned = 0;         // the rule set's number of calls
  bool judged = false;         // the record has a summary: the run was not stopped by a failure
  bool recorded_pass = false;  // a summary, no problems and a ranked time

  std::string Where(const std::string& field) const { return reader.Where(JoinPath(base, field)); }
  bool HasDevice() const { return record->contains("device") && (*record)["device"].is_string(); }
};

// Where the record is: the document, or a wrapper's "record". False when there is none to audit
// (a wrapper without one, or with one that is not an object: findings say which).
bool FindRecord(ReferenceFacts* r, AuditResult* result) {
  if (r->shape != RecordShape::kWrapped) {
    result->format = "a reference scorer record";
    return true;
  }
  result->format = "a reference scorer record, wrapped as {returncode, stdout, stderr, record}";
  const Json inner = r->document.value("record", Json());
  if (inner.is_null() || (inner.is_object() && inner.empty())) {
    std::string said;
    if (r->document["stdout"].is_string()) {
      const std::string out = r->document["stdout"].get<std::string>();
      const size_t score = out.rfind("; score ");
      if (score != std::string::npos)
        said = out.substr(score + 2, out.find('\n', score) - score - 2);
    }
    result->nothing_to_audit =
        r->name + " holds no record (" +
        (inner.is_null() ? "no \"record\" field" : "an empty one") +
        "): " + (said.empty() ? "what it prints" : "the " + Quoted(said) + " its stdout prints") +
        " cannot be re-derived without the calls";
    return false;
  }
  if (!r->reader.Object(r->document, "", "record")) return false;
  r->record = &r->document["record"];
  r->base = "record";
  return true;
}

// The record's version is the one the rule set judges: a record of another can only be judged
// under its own rules (BadInput).
Status CheckVersion(ReferenceFacts* r) {
  r->version = r->reader.String(*r->record, r->base, "version");
  if (!r->version || *r->version == r->rules.version) return Status::Ok();
  Result<const RuleSet*> own = FindEmbeddedRuleSetByVersion(*r->version);
  const bool compiled_in = own.ok() && *own != nullptr;
  return Status::BadInput(
      r->name + ": the record was made by " + Quoted(*r->version) + "; the rule set " +
      r->rules.id + " judges " + Quoted(r->rules.version) +
      (compiled_in ? ": give the record's own rule set, " + (*own)->id +
                         ", with --rules, or leave --rules out"
                   : std::string(": give the record's own rule set with --rules FILE")));
}

// The record's fields, read strictly. False, with a claim saying so, when those that say what it
// claims are not there.
bool ReadRecordFields(ReferenceFacts* r, AuditResult* result) {
  const Json& record = *r->record;
  r->file = r->reader.String(record, r->base, "file");
  r->function = r->reader.String(record, r->base, "function");
  r->source_sha256 = r->reader.String(record, r->base, "source_sha256");
  r->band_bp = r->reader.Integer(record, r->base, "band_bp");
  r->sandboxed = r->reader.Bool(record, r->base, "sandboxed");
  r->holdout = r->reader.String(record, r->base, "holdout");
  r->call_list = r->reader.Array(record, r->base, "calls");
  r->problems = r->reader.Array(record, r->base, "problems");
  if (!r->file || !r->function || !r->band_bp || !r->call_list || !r->problems) {
    result->claims.push_back(r->name + ": a record too damaged to say what it claims");
    return false;
  }
  r->who = *r->file + ":" + *r->function;
  r->calls_path = JoinPath(r->base, "calls");
  r->planned = r->rules.calls.mnist_calls + r->rules.calls.holdout_calls;
  r->judged = record.contains("summary");
  r->recorded_pass =
      r->judged && r->problems->empty() && record.value("ranked_ms", Json()).is_number();
  return true;
}

// The band is one of 1..9999 basis points; nothing is judged at another.
bool CheckBand(const ReferenceFacts& r, AuditResult* result) {
  if (*r.band_bp >= 1 && *r.band_bp <= 9999) return true;
  result->Breaks(r.Where("band_bp"),
                 std::to_string(*r.band_bp) + " is not a band of 1..9999 basis points");
  return false;
}

// Official or not: a run without the sandbox, or on a CPU, makes the claim unofficial.
void CheckOfficial(const ReferenceFacts& r, AuditResult* result) {
  if (r.sandboxed && !*r.sandboxed) {
    result->NotOfficial(r.Where("sandboxed"),
                        "false: the method ran without the sandbox, which the scorer prints as "
                        "not an official time",
                        "the method ran without the sandbox");
  }
  if (r.HasDevice()) {
    const std::string device = (*r.record)["device"].get<std::string>();
    if (device.rfind("cpu", 0) == 0) {
      result->NotOfficial(r.Where("device"),
                          Quoted(device) + ": the calls ran on a CPU, not on a GPU", "a CPU run");
    }
  } else if (!r.record->contains("device")) {
    result->Note(r.Where("device"),
                 "missing: the run stopped before its first worker said which device it ran on");
  }
}

// source_sha256 against the submission's bytes, when the file was found (a note when not), and
// a wrapper's own source_sha256 against the record's.
void CheckSubmission(const ReferenceFacts& r, AuditResult* result) {
  if (!r.source_sha256) return;
  const std::string where = r.Where("source_sha256");
  Status hex = CheckLowerHex64(*r.source_sha256, where);
  if (!hex.ok()) {
    result->Breaks(where, hex.message());
  } else if (r.submission) {
    const std::string actual = Sha256Hex(r.submission->bytes);
    if (actual != *r.source_sha256) {
      result->Breaks(where,
                     *r.source_sha256 + ", but " + r.submission->path + " has sha256 " + actual);
    } else {
      result->Checked("the submission's sha256 (" + r.submission->path + ")");
    }
  } else {
    result->Note(where, "not checked: " + *r.file +
                            " is not beside the record; name it with --submission FILE");
  }
  if (r.shape == RecordShape::kWrapped && r.document.contains("source_sha256") &&
      r.document["source_sha256"] != Json(*r.source_sha256)) {
    result->Breaks(r.reader.Where("source_sha256"), JsonShown(r.document["source_sha256"]) +
                                                        ", but the record it wraps says " +
                                                        *r.source_sha256);
  }
}

// The calls, read strictly; the hold-out one of the rule set's foreign datasets; each call one
// the protocol makes (CheckCalls).
void ReadAndCheckCalls(ReferenceFacts* r, AuditResult* result) {
  r->calls = ReadCalls(*r->call_list, r->calls_path, r->reader);
  r->calls_ok = r->calls.has_value();
  if (r->holdout && !IsForeign(r->rules, *r->holdout)) {
    result->Breaks(
        r->Where("holdout"),
        Quoted(*r->holdout) + " is not a hold-out dataset of the rule set " + r->rules.id);
    r->calls_ok = false;
  }
  if (r->calls && r->holdout)
    r->calls_ok =
        CheckCalls(*r->calls, r->calls_path, *r->holdout, r->reader, r->rules) && r->calls_ok;
}

// A judged run makes the rule set's number of MNIST and hold-out calls.
void CheckCallCount(const ReferenceFacts& r, AuditResult* result) {
  const RuleSet& rules = r.rules;
  int64_t mnist = 0;
  for (const Call& c : *r.calls) mnist += c.dataset == rules.datasets.mnist;
  if (static_cast<int64_t>(r.calls->size()) != r.planned || mnist != rules.calls.mnist_calls) {
    result->Breaks(r.reader.Where(r.calls_path),
                   std::to_string(r.calls->size()) + " calls (" + std::to_string(mnist) + " " +
                       rules.datasets.mnist + "); a judged run of " + rules.id + " makes " +
                       std::to_string(r.planned) + " (" + std::to_string(rules.calls.mnist_calls) +
                       " " + rules.datasets.mnist + ", " +
                       std::to_string(rules.calls.holdout_calls) + " hold-out)");
  }
}

// The record's ranked_ms against the re-judged one: null exactly when the calls disqualify, and
// within kRankedUlps units in the last place (a note when not to the bit). Whether it agrees.
bool CheckRankedTime(const ReferenceFacts& r, const std::optional<double>& ranked_ms,
                     const Judgement& judgement, AuditResult* result) {
  const std::string where = r.Where("ranked_ms");
  const bool passes = judgement.problems.empty();
  if (!passes && ranked_ms.has_value()) {
    result->Breaks(where,
                   ExactNumber(*ranked_ms) + " for a run the calls disqualify; it should be null");
    return false;
  }
  if (passes && !ranked_ms.has_value()) {
    result->Breaks(where, "null, but the calls qualify with a ranked time of " +
                              ExactNumber(judgement.ranked_ms) + " ms");
    return false;
  }
  if (!passes) return true;
  const int64_t ulps = UlpsApart(*ranked_ms, judgement.ranked_ms);
  if (ulps > kRankedUlps) {
    result->Breaks(where, "the record says " + ExactNumber(*ranked_ms) +
                              "; re-judging the calls gives " + ExactNumber(judgement.ranked_ms));
    return false;
  }
  if (ulps > 0) {
    result->Note(where, ExactNumber(*ranked_ms) + " is the re-judged " +
                            ExactNumber(judgement.ranked_ms) + " to within " +
                            std::to_string(ulps) +
                            " units in the last place (a Python whose sum() compensates rounds a "
                            "mean's last bits differently)");
  }
  return true;
}

// What the record claims, as its calls re-judge it.
ReferenceClaim ClaimOfCalls(const ReferenceFacts& r, const Judgement& judgement) {
  ReferenceClaim claim;
  claim.version = r.version.value_or("");
  claim.file = *r.file;
  claim.function = *r.function;
  claim.source_sha256 = r.source_sha256.value_or("");
  claim.device = r.HasDevice() ? (*r.record)["device"].get<std::string>() : "";
  claim.sandboxed = r.sandboxed.value_or(false);
  claim.band_bp = *r.band_bp;
  std::set<std::string> broken;
  for (const Problem& problem : judgement.problems) broken.insert(problem.rule);
  claim.broken.assign(broken.begin(), broken.end());
  if (judgement.problems.empty()) claim.ranked_ms = judgement.ranked_ms;
  return claim;
}

// A judged run (one with a summary): its calls' count, and Judge on them gives the record's
// problems, summary and ranked time; what it claims (result->reference).
void CheckReJudged(ReferenceFacts* r, AuditResult* result) {
  std::optional<std::string> summary = r->reader.String(*r->record, r->base, "summary");
  std::optional<std::optional<double>> ranked_ms =
      r->reader.NullableNumber(*r->record, r->base, "ranked_ms");
  if (!r->calls_ok) return;
  CheckCallCount(*r, result);
  Result<Judgement> judgement = Judge(*r->calls, *r->band_bp, r->rules);
  if (!judgement.ok()) {
    result->Breaks(r->reader.Where(r->calls_path),
                   "cannot be judged: " + judgement.status().message());
    return;
  }
  bool agrees =
      CompareProblems(*r->problems, judgement->problems, JoinPath(r->base, "problems"), r->reader);
  if (summary && *summary != judgement->summary) {
    result->Breaks(r->Where("summary"), "the record says " + Quoted(*summary) +
                                            "; re-judging the calls gives " +
                                            Quoted(judgement->summary));
    agrees = false;
  }
  if (ranked_ms) {
    agrees = CheckRankedTime(*r, *ranked_ms, *judgement, result) && agrees;
  } else {
    agrees = false;
  }
  if (agrees) {
    result->Checked("the verdict re-judged from the " + std::to_string(r->calls->size()) +
                    " calls (problems, summary, ranked time)");
  }
  result->reference = ClaimOfCalls(*r, *judgement);
}

// The run stopped on a failure: the scorer records the calls made, the failure's message, and no
// summary. The failure happened in a process; the record holds only what it said.
void CheckStoppedRun(ReferenceFacts* r, AuditResult* result) {
  const Json& problems = *r->problems;
  if (problems.size() != 1 || !problems[0].is_string()) {
    result->Breaks(r->Where("problems"),
                   "a run that stopped on a failure records exactly its one message; found " +
                       JsonShown(problems));
  } else {
    result->Note(r->Where("problems[0]"),
                 "the run stopped after " + std::to_string(r->call_list->size()) +
                     " calls on a failure the record gives only as its message, which cannot be "
                     "re-derived: " +
                     Quoted(FirstLine(problems[0].get<std::string>())));
  }
  if (r->calls && static_cast<int64_t>(r->calls->size()) >= r->planned) {
    result->Breaks(r->reader.Where(r->calls_path),
                   std::to_string(r->calls->size()) +
                       " calls, but a run that stopped on a failure made fewer than " +
                       std::to_string(r->planned));
  }
  std::optional<std::optional<double>> ranked_ms =
      r->reader.NullableNumber(*r->record, r->base, "ranked_ms");
  if (ranked_ms && ranked_ms->has_value()) {
    result->Breaks(r->Where("ranked_ms"), "a ranked time for a run that stopped on a failure");
  }
}

// The energy column, measured only after a pass, recomputed from its windows (AuditEnergy).
void CheckEnergyColumn(ReferenceFacts* r, AuditResult* result) {
  if (!r->record->contains("energy")) {
    if (r->recorded_pass) {
      result->Note(r->reader.Where(r->base.empty() ? "energy" : JoinPath(r->base, "energy")),
                   "missing: the record claims no energy figure");
    }
    return;
  }
  if (!r->recorded_pass) {
    result->Breaks(r->Where("energy"),
                   "an energy column for a run that did not qualify; the protocol measures one "
                   "only after a pass");
    return;
  }
  if (!r->calls) return;
  std::vector<double> mnist_ms;
  for (const Call& c : *r->calls) {
    if (c.dataset == r->rules.datasets.mnist) mnist_ms.push_back(c.ms);
  }
  std::optional<EnergyColumn> column =
      AuditEnergy((*r->record)["energy"], JoinPath(r->base, "energy"), r->reader, Median(mnist_ms),
                  *r->band_bp, r->rules);
  if (!column) return;
  std::string telemetry = "telemetry reference " + FormatFixed(column->j_per_tflop, 2) +
                          " J/TFLOP at " + FormatFixed(column->tflops_per_s, 1) + " TFLOP/s";
  if (column->band != nullptr) {
    telemetry += ", within the rule set's band for " + column->band->boards() + " (" +
                 FormatGeneral(column->band->j_per_tflop.low) + "-" +
                 FormatGeneral(column->band->j_per_tflop.high) + " J/TFLOP, " +
                 FormatGeneral(column->band->tflops_per_s.low) + "-" +
                 FormatGeneral(column->band->tflops_per_s.high) + " TFLOP/s)";
    if (!column->problems.empty()) telemetry += " as the protocol judges it";
  }
  result->Checked("the energy column recomputed from its windows; " + telemetry);
}

// A wrapper's returncode is the scorer's exit status for the verdict.
void CheckReturnCode(ReferenceFacts* r, AuditResult* result) {
  std::optional<int64_t> returncode = r->reader.Integer(r->document, "", "returncode");
  const bool passes = r->recorded_pass;
  if (returncode && *returncode != (passes ? 0 : 1)) {
    result->Breaks(r->reader.Where("returncode"),
                   std::to_string(*returncode) + ", but the scorer exits " + (passes ? "0" : "1") +
                       " for a run that " + (passes ? "qualifies" : "is disqualified"));
  }
}

// A wrapper's stdout holds every line the scorer prints from the record.
void CheckPrintedOutput(ReferenceFacts* r, AuditResult* result) {
  std::optional<std::string> out = r->reader.String(r->document, "", "stdout");
  if (!out || !r->calls) return;
  const Json& record = *r->record;
  const std::string& base = r->base;
  StdoutCheck printed(*out, r->reader.Where("stdout"), result);
  printed.Expect(r->who + " at " + FormatFixed(*r->band_bp / 100.0, 2) + "% error: " +
                     std::to_string(r->planned) + " timed calls, each in a fresh process",
                 r->who + " at ", "the first line", "the record's file, function and band");
  if (r->HasDevice() && r->sandboxed) {
    const std::string torch = record.value("torch", Json("None")).is_string()
                                  ? record["torch"].get<std::string>()
                                  : "None";
    const std::string prefix =
        "  " + record["device"].get<std::string>() + ", torch " + torch + ", sandbox ";
    if (*r->sandboxed) {
      printed.Expect(prefix + "on", prefix, "the device line", JoinPath(base, "sandboxed"));
    } else {
      printed.ExpectPrefix(prefix + "OFF (", "the device line", JoinPath(base, "sandboxed"));
    }
  }
  for (size_t i = 0; i < r->calls->size(); ++i) {
    std::string number = std::to_string(i + 1);
    printed.Expect(CallLine((*r->calls)[i], i, r->planned),
                   std::string("  call ") + (i + 1 < 10 ? " " : "") + number + "/",
                   "call " + number + "/" + std::to_string(r->planned), JoinPath(r->calls_path, i));
  }
  if (r->judged && record.contains("summary") && record["summary"].is_string()) {
    std::string line = record["summary"].get<std::string>();
    const Json ranked_json = record.value("ranked_ms", Json());
    if (r->problems->empty() && ranked_json.is_number()) {
      line += "; score " + FormatFixed(ranked_json.get<double>(), 3) + " ms";
    }
    printed.Expect(line, "MNIST ", "the summary", JoinPath(base, "summary"));
  }
  for (size_t i = 0; i < r->problems->size(); ++i) {
    if ((*r->problems)[i].is_string()) {
      printed.Expect("disqualified: " + (*r->problems)[i].get<std::string>(), "", "a problem",
                     JoinPath(JoinPath(base, "problems"), i));
    }
  }
  printed.ExpectEnergy(record.value("energy", Json()), JoinPath(base, "energy"));
  if (printed.ok()) {
    result->Checked("the exit status and " + std::to_string(printed.checked()) +
                    " lines of the printed output against the record");
  }
}

// The claim, as the record makes it.
std::string ClaimOfRecord(const ReferenceFacts& r) {
  const Json& record = *r.record;
  const Json& problems = *r.problems;
  std::string claim = r.who + " at " + BandText(*r.band_bp) + ": ";
  if (!r.recorded_pass) {
    const Json first = problems.empty() ? Json() : problems[0];
    claim +=
        "disqualified" +
        (first.is_string() ? " (" + FirstLine(first.get<std::string>()) + ")" : std::string()) +
        (problems.size() > 1 ? " and " + std::to_string(problems.size() - 1) + " more problems"
                             : "");
  } else {
    claim += "qualified, ranked " +
             FormatFixed(record.value("ranked_ms", Json()).get<double>(), 3) + " ms";
    const Json energy = record.value("energy", Json());
    if (std::optional<double> mj = ClaimedEnergyMj(energy)) {
      claim += ", energy " + FormatFixed(*mj, 3) + " mJ per call";
    }
  }
  return claim;
}

}  // namespace

// The checks of a record, in order (docs/audit.md, "What it checks: a reference record").
Status AuditReferenceRecord(const Json& document, const std::string& name, const RuleSet& rules,
                            const std::optional<SubmissionFile>& submission, AuditResult* result) {
  if (ShapeOf(document) == RecordShape::kNone) {
    return Status::BadInput(name +
                            " is not a record of the reference scorer (neither version, file, "
                            "calls... nor returncode, stdout, stderr, record)");
  }
  ReferenceFacts facts(document, name, rules, submission, result);
  if (!FindRecord(&facts, result)) return Status::Ok();
  RATCHET_RETURN_IF_ERROR(CheckVersion(&facts));
  if (!ReadRecordFields(&facts, result)) return Status::Ok();
  if (!CheckBand(facts, result)) return Status::Ok();
  CheckOfficial(facts, result);
  CheckSubmission(facts, result);
  ReadAndCheckCalls(&facts, result);
  if (facts.judged) {
    CheckReJudged(&facts, result);
  } else {
    CheckStoppedRun(&facts, result);
  }
  CheckEnergyColumn(&facts, result);
  if (facts.shape == RecordShape::kWrapped) {
    CheckReturnCode(&facts, result);
    CheckPrintedOutput(&facts, result);
  }
  result->claims.push_back(ClaimOfRecord(facts));
  return Status::Ok();
}

}  // namespace ratchet
