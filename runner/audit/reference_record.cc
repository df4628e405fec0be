#include "audit/reference_record.h"

#include <algorithm>
#include <set>
#include <vector>

#include "audit/energy_column.h"
#include "audit/numbers.h"
#include "core/sha256.h"
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

// The line the scorer prints for call `index` (from 0) of `count`.
std::string CallLine(const Call& c, size_t index, int64_t count) {
  std::string number = std::to_string(index + 1);
  if (number.size() < 2) number = " " + number;
  return "  call " + number + "/" + std::to_string(count) + ": " + FormatFixed(c.ms, 3, true) +
         " ms, scorer's clock " + FormatFixed(std::max(0.0, c.parent_ms - c.overhead_ms), 3, true) +
         " ms";
}

// What a wrapper's stdout must hold, given the record: each expected text as a whole line (or
// lines), in any order. A line that begins the same way but differs is shown beside it.
class StdoutCheck {
 public:
  StdoutCheck(const std::string& stdout_text, std::string where, AuditResult* result)
      : text_("\n" + stdout_text +
              (!stdout_text.empty() && stdout_text.back() == '\n' ? "" : "\n")),
        where_(std::move(where)),
        result_(result) {}

  // `prefix`: how the line begins whatever its figures; `what`: which line, for the finding.
  void Expect(const std::string& expected, const std::string& prefix, const std::string& what,
              const std::string& source) {
    ++checked_;
    if (text_.find("\n" + expected + "\n") != std::string::npos) return;
    ok_ = false;
    size_t at = text_.find("\n" + prefix);
    if (at != std::string::npos && !prefix.empty()) {
      const size_t start = at + 1;
      const std::string printed = text_.substr(start, text_.find('\n', start) - start);
      result_->Breaks(where_ + ", " + what,
                      "prints " + Quoted(printed) + "; " + source + " gives " + Quoted(expected));
    } else {
      result_->Breaks(where_ + ", " + what,
                      "has no line " + Quoted(FirstLine(expected)) + " (from " + source + ")");
    }
  }
  // A line that begins with `prefix` must be there.
  void ExpectPrefix(const std::string& prefix, const std::string& what, const std::string& source) {
    ++checked_;
    if (text_.find("\n" + prefix) != std::string::npos) return;
    ok_ = false;
    result_->Breaks(where_ + ", " + what,
                    "has no line beginning " + Quoted(prefix) + " (from " + source + ")");
  }
  bool ok() const { return ok_; }
  int checked() const { return checked_; }

 private:
  std::string text_;
  std::string where_;
  AuditResult* result_;
  bool ok_ = true;
  int checked_ = 0;
};

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

Status AuditReferenceRecord(const Json& document, const std::string& name, const RuleSet& rules,
                            const std::optional<SubmissionFile>& submission, AuditResult* result) {
  const RecordShape shape = ShapeOf(document);
  if (shape == RecordShape::kNone) {
    return Status::BadInput(name +
                            " is not a record of the reference scorer (neither version, file, "
                            "calls... nor returncode, stdout, stderr, record)");
  }
  FieldReader reader(name, result);
  const Json* record = &document;
  std::string base;
  if (shape == RecordShape::kWrapped) {
    result->format = "a reference scorer record, wrapped as {returncode, stdout, stderr, record}";
    const Json inner = document.value("record", Json());
    if (inner.is_null() || (inner.is_object() && inner.empty())) {
      std::string said;
      if (document["stdout"].is_string()) {
        const std::string out = document["stdout"].get<std::string>();
        const size_t score = out.rfind("; score ");
        if (score != std::string::npos)
          said = out.substr(score + 2, out.find('\n', score) - score - 2);
      }
      result->nothing_to_audit =
          name + " holds no record (" + (inner.is_null() ? "no \"record\" field" : "an empty one") +
          "): " + (said.empty() ? "what it prints" : "the " + Quoted(said) + " its stdout prints") +
          " cannot be re-derived without the calls";
      return Status::Ok();
    }
    if (!reader.Object(document, "", "record")) return Status::Ok();
    record = &document["record"];
    base = "record";
  } else {
    result->format = "a reference scorer record";
  }

  std::optional<std::string> version = reader.String(*record, base, "version");
  if (version && *version != rules.version) {
    Result<const RuleSet*> own = FindEmbeddedRuleSetByVersion(*version);
    const bool compiled_in = own.ok() && *own != nullptr;
    return Status::BadInput(
        name + ": the record was made by " + Quoted(*version) + "; the rule set " + rules.id +
        " judges " + Quoted(rules.version) +
        (compiled_in ? ": give the record's own rule set, " + (*own)->id +
                           ", with --rules, or leave --rules out"
                     : std::string(": give the record's own rule set with --rules FILE")));
  }
  std::optional<std::string> file = reader.String(*record, base, "file");
  std::optional<std::string> function = reader.String(*record, base, "function");
  std::optional<std::string> source_sha256 = reader.String(*record, base, "source_sha256");
  std::optional<int64_t> band_bp = reader.Integer(*record, base, "band_bp");
  std::optional<bool> sandboxed = reader.Bool(*record, base, "sandboxed");
  std::optional<std::string> holdout = reader.String(*record, base, "holdout");
  const Json* call_list = reader.Array(*record, base, "calls");
  const Json* problems = reader.Array(*record, base, "problems");
  if (!file || !function || !band_bp || !call_list || !problems) {
    result->claims.push_back(name + ": a record too damaged to say what it claims");
    return Status::Ok();
  }
  const std::string who = *file + ":" + *function;
  const std::string calls_path = JoinPath(base, "calls");
  if (*band_bp < 1 || *band_bp > 9999) {
    result->Breaks(reader.Where(JoinPath(base, "band_bp")),
                   std::to_string(*band_bp) + " is not a band of 1..9999 basis points");
    return Status::Ok();
  }

  // Official or not.
  if (sandboxed && !*sandboxed) {
    result->NotOfficial(
        reader.Where(JoinPath(base, "sandboxed")),
        "false: the method ran without the sandbox, which the scorer prints as not an "
        "official time",
        "the method ran without the sandbox");
  }
  if (record->contains("device") && (*record)["device"].is_string()) {
    const std::string device = (*record)["device"].get<std::string>();
    if (device.rfind("cpu", 0) == 0) {
      result->NotOfficial(reader.Where(JoinPath(base, "device")),
                          Quoted(device) + ": the calls ran on a CPU, not on a GPU", "a CPU run");
    }
  } else if (!record->contains("device")) {
    result->Note(reader.Where(JoinPath(base, "device")),
                 "missing: the run stopped before its first worker said which device it ran on");
  }

  // The submission.
  if (source_sha256) {
    Status hex = CheckLowerHex64(*source_sha256, reader.Where(JoinPath(base, "source_sha256")));
    if (!hex.ok()) {
      result->Breaks(reader.Where(JoinPath(base, "source_sha256")), hex.message());
    } else if (submission) {
      const std::string actual = Sha256Hex(submission->bytes);
      if (actual != *source_sha256) {
        result->Breaks(reader.Where(JoinPath(base, "source_sha256")),
                       *source_sha256 + ", but " + submission->path + " has sha256 " + actual);
      } else {
        result->Checked("the submission's sha256 (" + submission->path + ")");
      }
    } else {
      result->Note(
          reader.Where(JoinPath(base, "source_sha256")),
          "not checked: " + *file + " is not beside the record; name it with --submission FILE");
    }
    if (shape == RecordShape::kWrapped && document.contains("source_sha256") &&
        document["source_sha256"] != Json(*source_sha256)) {
      result->Breaks(reader.Where("source_sha256"), JsonShown(document["source_sha256"]) +
                                                        ", but the record it wraps says " +
                                                        *source_sha256);
    }
  }

  std::optional<std::vector<Call>> calls = ReadCalls(*call_list, calls_path, reader);
  bool calls_ok = calls.has_value();
  if (holdout && !IsForeign(rules, *holdout)) {
    result->Breaks(reader.Where(JoinPath(base, "holdout")),
                   Quoted(*holdout) + " is not a hold-out dataset of the rule set " + rules.id);
    calls_ok = false;
  }
  if (calls && holdout)
    calls_ok = CheckCalls(*calls, calls_path, *holdout, reader, rules) && calls_ok;

  const int64_t planned = rules.calls.mnist_calls + rules.calls.holdout_calls;
  const bool judged = record->contains("summary");
  // What the record claims: a pass has a summary, no problems and a ranked time.
  const bool recorded_pass =
      judged && problems->empty() && record->value("ranked_ms", Json()).is_number();

  if (judged) {
    std::optional<std::string> summary = reader.String(*record, base, "summary");
    std::optional<std::optional<double>> ranked_ms =
        reader.NullableNumber(*record, base, "ranked_ms");
    if (calls_ok) {
      int64_t mnist = 0;
      for (const Call& c : *calls) mnist += c.dataset == rules.datasets.mnist;
      if (static_cast<int64_t>(calls->size()) != planned || mnist != rules.calls.mnist_calls) {
        result->Breaks(reader.Where(calls_path),
                       std::to_string(calls->size()) + " calls (" + std::to_string(mnist) + " " +
                           rules.datasets.mnist + "); a judged run of " + rules.id + " makes " +
                           std::to_string(planned) + " (" +
                           std::to_string(rules.calls.mnist_calls) + " " + rules.datasets.mnist +
                           ", " + std::to_string(rules.calls.holdout_calls) + " hold-out)");
      }
      Result<Judgement> judgement = Judge(*calls, *band_bp, rules);
      if (!judgement.ok()) {
        result->Breaks(reader.Where(calls_path),
                       "cannot be judged: " + judgement.status().message());
      } else {
        bool agrees =
            CompareProblems(*problems, judgement->problems, JoinPath(base, "problems"), reader);
        if (summary && *summary != judgement->summary) {
          result->Breaks(reader.Where(JoinPath(base, "summary")),
                         "the record says " + Quoted(*summary) + "; re-judging the calls gives " +
                             Quoted(judgement->summary));
          agrees = false;
        }
        if (ranked_ms) {
          const bool passes = judgement->problems.empty();
          if (!passes && ranked_ms->has_value()) {
            result->Breaks(
                reader.Where(JoinPath(base, "ranked_ms")),
                ExactNumber(**ranked_ms) + " for a run the calls disqualify; it should be null");
            agrees = false;
          } else if (passes && !ranked_ms->has_value()) {
            result->Breaks(reader.Where(JoinPath(base, "ranked_ms")),
                           "null, but the calls qualify with a ranked time of " +
                               ExactNumber(judgement->ranked_ms) + " ms");
            agrees = false;
          } else if (passes) {
            const int64_t ulps = UlpsApart(**ranked_ms, judgement->ranked_ms);
            if (ulps > kRankedUlps) {
              result->Breaks(reader.Where(JoinPath(base, "ranked_ms")),
                             "the record says " + ExactNumber(**ranked_ms) +
                                 "; re-judging the calls gives " +
                                 ExactNumber(judgement->ranked_ms));
              agrees = false;
            } else if (ulps > 0) {
              result->Note(
                  reader.Where(JoinPath(base, "ranked_ms")),
                  ExactNumber(**ranked_ms) + " is the re-judged " +
                      ExactNumber(judgement->ranked_ms) + " to within " + std::to_string(ulps) +
                      " units in the last place (a Python whose sum() compensates rounds a mean's "
                      "last bits differently)");
            }
          }
        } else {
          agrees = false;
        }
        if (agrees) {
          result->Checked("the verdict re-judged from the " + std::to_string(calls->size()) +
                          " calls (problems, summary, ranked time)");
        }
        ReferenceClaim claim;
        claim.version = version.value_or("");
        claim.file = *file;
        claim.function = *function;
        claim.source_sha256 = source_sha256.value_or("");
        claim.device = record->value("device", Json()).is_string()
                           ? (*record)["device"].get<std::string>()
                           : "";
        claim.sandboxed = sandboxed.value_or(false);
        claim.band_bp = *band_bp;
        std::set<std::string> broken;
        for (const Problem& problem : judgement->problems) broken.insert(problem.rule);
        claim.broken.assign(broken.begin(), broken.end());
        if (judgement->problems.empty()) claim.ranked_ms = judgement->ranked_ms;
        result->reference = claim;
      }
    }
  } else {
    // The run stopped on a failure: the scorer records the calls made, the failure's message,
    // and no summary. The failure happened in a process; the record holds only what it said.
    if (problems->size() != 1 || !(*problems)[0].is_string()) {
      result->Breaks(reader.Where(JoinPath(base, "problems")),
                     "a run that stopped on a failure records exactly its one message; found " +
                         JsonShown(*problems));
    } else {
      result->Note(reader.Where(JoinPath(base, "problems[0]")),
                   "the run stopped after " + std::to_string(call_list->size()) +
                       " calls on a failure the record gives only as its message, which cannot be "
                       "re-derived: " +
                       Quoted(FirstLine((*problems)[0].get<std::string>())));
    }
    if (calls && static_cast<int64_t>(calls->size()) >= planned) {
      result->Breaks(reader.Where(calls_path),
                     std::to_string(calls->size()) +
                         " calls, but a run that stopped on a failure made fewer than " +
                         std::to_string(planned));
    }
    std::optional<std::optional<double>> ranked_ms =
        reader.NullableNumber(*record, base, "ranked_ms");
    if (ranked_ms && ranked_ms->has_value()) {
      result->Breaks(reader.Where(JoinPath(base, "ranked_ms")),
                     "a ranked time for a run that stopped on a failure");
    }
  }

  // The energy column: measured only after a pass.
  std::optional<EnergyColumn> column;
  if (record->contains("energy")) {
    if (!recorded_pass) {
      result->Breaks(reader.Where(JoinPath(base, "energy")),
                     "an energy column for a run that did not qualify; the protocol measures one "
                     "only after a pass");
    } else if (calls) {
      std::vector<double> mnist_ms;
      for (const Call& c : *calls) {
        if (c.dataset == rules.datasets.mnist) mnist_ms.push_back(c.ms);
      }
      column = AuditEnergy((*record)["energy"], JoinPath(base, "energy"), reader, Median(mnist_ms),
                           *band_bp, rules);
      if (column) {
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
    }
  } else if (recorded_pass) {
    result->Note(reader.Where(base.empty() ? "energy" : JoinPath(base, "energy")),
                 "missing: the record claims no energy figure");
  }

  // A wrapper: the exit status and what the scorer printed must be the record's.
  if (shape == RecordShape::kWrapped) {
    std::optional<int64_t> returncode = reader.Integer(document, "", "returncode");
    const bool passes = recorded_pass;
    if (returncode && *returncode != (passes ? 0 : 1)) {
      result->Breaks(reader.Where("returncode"), std::to_string(*returncode) +
                                                     ", but the scorer exits " +
                                                     (passes ? "0" : "1") + " for a run that " +
                                                     (passes ? "qualifies" : "is disqualified"));
    }
    std::optional<std::string> out = reader.String(document, "", "stdout");
    if (out && calls) {
      StdoutCheck printed(*out, reader.Where("stdout"), result);
      printed.Expect(who + " at " + FormatFixed(*band_bp / 100.0, 2) + "% error: " +
                         std::to_string(planned) + " timed calls, each in a fresh process",
                     who + " at ", "the first line", "the record's file, function and band");
      if (record->contains("device") && (*record)["device"].is_string() && sandboxed) {
        const std::string torch = record->value("torch", Json("None")).is_string()
                                      ? (*record)["torch"].get<std::string>()
                                      : "None";
        const std::string prefix =
            "  " + (*record)["device"].get<std::string>() + ", torch " + torch + ", sandbox ";
        if (*sandboxed) {
          printed.Expect(prefix + "on", prefix, "the device line", JoinPath(base, "sandboxed"));
        } else {
          printed.ExpectPrefix(prefix + "OFF (", "the device line", JoinPath(base, "sandboxed"));
        }
      }
      for (size_t i = 0; i < calls->size(); ++i) {
        std::string number = std::to_string(i + 1);
        printed.Expect(CallLine((*calls)[i], i, planned),
                       std::string("  call ") + (i + 1 < 10 ? " " : "") + number + "/",
                       "call " + number + "/" + std::to_string(planned), JoinPath(calls_path, i));
      }
      if (judged && record->contains("summary") && (*record)["summary"].is_string()) {
        std::string line = (*record)["summary"].get<std::string>();
        const Json ranked_json = record->value("ranked_ms", Json());
        if (problems->empty() && ranked_json.is_number()) {
          line += "; score " + FormatFixed(ranked_json.get<double>(), 3) + " ms";
        }
        printed.Expect(line, "MNIST ", "the summary", JoinPath(base, "summary"));
      }
      for (size_t i = 0; i < problems->size(); ++i) {
        if ((*problems)[i].is_string()) {
          printed.Expect("disqualified: " + (*problems)[i].get<std::string>(), "", "a problem",
                         JoinPath(JoinPath(base, "problems"), i));
        }
      }
      const Json energy = record->value("energy", Json());
      if (energy.is_object()) {
        const Json mj = energy.value("mj_per_call", Json());
        if (mj.is_number()) {
          printed.Expect("energy " + FormatFixed(mj.get<double>(), 3) + " mJ per call above idle",
                         "energy ", "the energy line",
                         JoinPath(JoinPath(base, "energy"), "mj_per_call"));
        }
        for (const Json& p : energy.value("problems", Json::array())) {
          if (p.is_string()) {
            printed.Expect("energy not measured: " + p.get<std::string>(), "", "an energy problem",
                           JoinPath(JoinPath(base, "energy"), "problems"));
          }
        }
        if (energy.contains("reason") && energy["reason"].is_string()) {
          printed.Expect("energy not measured: " + energy["reason"].get<std::string>(), "",
                         "the energy line", JoinPath(JoinPath(base, "energy"), "reason"));
        }
      }
      if (printed.ok()) {
        result->Checked("the exit status and " + std::to_string(printed.checked()) +
                        " lines of the printed output against the record");
      }
    }
  }

  // The claim, as the record makes it.
  std::string claim = who + " at " + BandText(*band_bp) + ": ";
  const Json recorded_ranked = record->value("ranked_ms", Json());
  if (!recorded_pass) {
    const Json first = problems->empty() ? Json() : (*problems)[0];
    claim +=
        "disqualified" +
        (first.is_string() ? " (" + FirstLine(first.get<std::string>()) + ")" : std::string()) +
        (problems->size() > 1 ? " and " + std::to_string(problems->size() - 1) + " more problems"
                              : "");
  } else {
    claim += "qualified, ranked " + FormatFixed(recorded_ranked.get<double>(), 3) + " ms";
    const Json energy = record->value("energy", Json());
    if (energy.is_object() && energy.value("mj_per_call", Json()).is_number()) {
      claim += ", energy " + FormatFixed(energy["mj_per_call"].get<double>(), 3) + " mJ per call";
    }
  }
  result->claims.push_back(claim);
  return Status::Ok();
}

}  // namespace ratchet
