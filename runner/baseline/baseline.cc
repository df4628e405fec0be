#include "baseline/baseline.h"

#include <algorithm>
#include <cmath>
#include <set>

#include "baseline/input_file.h"
#include "contract/contract.h"
#include "contract/contract_view.h"
#include "core/file.h"
#include "core/sha256.h"
#include "rules/rule_ids.h"

namespace ratchet {
namespace {

// Reads one JSON object strictly: every field it takes is named, what is left over is an error.
class Fields {
 public:
  Fields(const Json& object, std::string path, std::string what)
      : object_(object), path_(std::move(path)), what_(std::move(what)) {}

  Status Error(const std::string& field, const std::string& message) const {
    return Status::BadInput(what_ + ": field \"" + JoinPath(path_, field) + "\": " + message);
  }

  const Json* Find(const std::string& field) {
    taken_.insert(field);
    auto it = object_.find(field);
    return it == object_.end() ? nullptr : &*it;
  }

  Result<std::string> String(const std::string& field, bool required, bool nonempty = false) {
    const Json* value = Find(field);
    if (value == nullptr) {
      if (required) return Error(field, "is missing");
      return std::string();
    }
    if (!value->is_string()) return Error(field, "must be a string");
    if (nonempty && value->get<std::string>().empty()) return Error(field, "must not be empty");
    return value->get<std::string>();
  }

  Result<std::optional<int64_t>> Integer(const std::string& field, int64_t low, int64_t high) {
    const Json* value = Find(field);
    if (value == nullptr) return std::optional<int64_t>();
    if (!value->is_number_integer() ||
        (value->is_number_unsigned() && value->get<uint64_t>() > static_cast<uint64_t>(high)) ||
        value->get<int64_t>() < low || value->get<int64_t>() > high) {
      return Error(field, "must be a whole number from " + std::to_string(low) + " to " +
                              std::to_string(high));
    }
    return std::optional<int64_t>(value->get<int64_t>());
  }

  Result<double> Number(const std::string& field, bool required, double fallback, double low,
                        bool positive) {
    const Json* value = Find(field);
    if (value == nullptr) {
      if (required) return Error(field, "is missing");
      return fallback;
    }
    if (!value->is_number() || !std::isfinite(value->get<double>()) || value->get<double>() < low ||
        (positive && value->get<double>() <= 0)) {
      return Error(field, positive ? "must be a number above 0"
                                   : "must be a number, at least " + std::to_string(low));
    }
    return value->get<double>();
  }

  Result<const Json*> Object(const std::string& field, bool required) {
    const Json* value = Find(field);
    if (value == nullptr) {
      if (required) return Error(field, "is missing");
      return static_cast<const Json*>(nullptr);
    }
    if (!value->is_object()) return Error(field, "must be an object");
    return value;
  }

  Status Done() const {
    for (auto it = object_.begin(); it != object_.end(); ++it) {
      if (!taken_.count(it.key())) return Error(it.key(), "is not a field of the baseline format");
    }
    return Status::Ok();
  }

  const std::string& path() const { return path_; }

 private:
  const Json& object_;
  std::string path_;
  std::string what_;
  std::set<std::string> taken_;
};

bool IsLowerHex64(const std::string& text) {
  return text.size() == 64 && std::all_of(text.begin(), text.end(), [](char c) {
           return (c >= '0' && c <= '9') || (c >= 'a' && c <= 'f');
         });
}

Result<Expected> ParseExpected(const Json& json, const std::string& path, const std::string& what) {
  if (!json.is_object()) {
    return Status::BadInput(what + ": field \"" + path + "\": must be an object");
  }
  Fields fields(json, path, what);
  Expected expected;
  Result<std::string> status = fields.String("status", true);
  if (!status.ok()) return status.status();
  if (*status != "qualified" && *status != "disqualified") {
    return fields.Error("status",
                        "must be \"qualified\" or \"disqualified\", not \"" + *status + "\"");
  }
  expected.status = *status;
  const Json* broken = fields.Find("broken");
  if (broken == nullptr) return fields.Error("broken", "is missing");
  if (!broken->is_array()) return fields.Error("broken", "must be an array of rule ids");
  for (size_t i = 0; i < broken->size(); ++i) {
    const Json& rule = (*broken)[i];
    const std::string at = what + ": field \"" + JoinPath(JoinPath(path, "broken"), i) + "\": ";
    if (!rule.is_string()) return Status::BadInput(at + "must be a rule id, a string");
    // A rule no run can break would make the record's outcome one that never compares equal.
    if (!KnownRuleId(rule.get<std::string>())) {
      return Status::BadInput(at + "\"" + Excerpt(rule.get<std::string>(), 80) +
                              "\" is not a rule id; the rule ids are " + RuleIdsText());
    }
    expected.broken.push_back(rule.get<std::string>());
  }
  std::vector<std::string> sorted = expected.broken;
  std::sort(sorted.begin(), sorted.end());
  if (std::adjacent_find(sorted.begin(), sorted.end()) != sorted.end() ||
      sorted != expected.broken) {
    return fields.Error("broken", "must be sorted, each rule id once");
  }
  if ((expected.status == "qualified") != expected.broken.empty()) {
    return fields.Error("broken", expected.status == "qualified"
                                      ? "must be empty for a qualified outcome"
                                      : "must name the rules a disqualified outcome broke");
  }
  RATCHET_RETURN_IF_ERROR(fields.Done());
  return expected;
}

// A record's per-lane tables, "timing" ({lane: {"ranked_ms", ...}}) and "energy".
Status ParseLaneTables(Fields& fields, const std::string& path, const std::string& where,
                       BaselineRecord* record) {
  for (const char* which : {"timing", "energy"}) {
    Result<const Json*> lanes = fields.Object(which, false);
    if (!lanes.ok()) return lanes.status();
    if (*lanes == nullptr) continue;
    for (auto it = (*lanes)->begin(); it != (*lanes)->end(); ++it) {
      const std::string lane_path = JoinPath(JoinPath(path, which), it.key());
      if (!it.value().is_object()) {
        return Status::BadInput(where + ": field \"" + lane_path + "\": must be an object");
      }
      Fields lane(it.value(), lane_path, where);
      if (std::string(which) == "timing") {
        LaneTiming timing;
        Result<double> value = lane.Number("ranked_ms", true, 0, 0, true);
        if (!value.ok()) return value.status();
        timing.ranked_ms = *value;
        if (!(value = lane.Number("relative", false, timing.relative, 0, false)).ok())
          return value.status();
        timing.relative = *value;
        if (!(value = lane.Number("absolute_ms", false, timing.absolute_ms, 0, false)).ok()) {
          return value.status();
        }
        timing.absolute_ms = *value;
        if (lane.Find("board") != nullptr) {
          Result<std::string> board = lane.String("board", true, true);
          if (!board.ok()) return board.status();
          timing.board = *board;
        }
        record->timing[it.key()] = timing;
      } else {
        LaneEnergy energy;
        Result<double> value = lane.Number("mj_per_call", true, 0, 0, true);
        if (!value.ok()) return value.status();
        energy.mj_per_call = *value;
        if (!(value = lane.Number("relative", false, energy.relative, 0, false)).ok())
          return value.status();
        energy.relative = *value;
        record->energy[it.key()] = energy;
      }
      RATCHET_RETURN_IF_ERROR(lane.Done());
    }
  }
  return Status::Ok();
}

// The record's "evidence": {"path", "manifest_sha256"}, if it has one.
Status ParseEvidenceRef(Fields& fields, const std::string& path, const std::string& where,
                        BaselineRecord* record) {
  Result<std::string> text = std::string();
  Result<const Json*> evidence = fields.Object("evidence", false);
  if (!evidence.ok()) return evidence.status();
  if (*evidence != nullptr) {
    Fields ref(**evidence, JoinPath(path, "evidence"), where);
    EvidenceRef parsed;
    if (!(text = ref.String("path", true, true)).ok()) return text.status();
    parsed.path = *text;
    if (!(text = ref.String("manifest_sha256", true)).ok()) return text.status();
    if (!IsLowerHex64(*text))
      return ref.Error("manifest_sha256", "must be 64 lowercase hex digits");
    parsed.manifest_sha256 = *text;
    RATCHET_RETURN_IF_ERROR(ref.Done());
    record->evidence = parsed;
  }
  return Status::Ok();
}

// The record's "claimed" outcome, imported from published claims, if it has one.
Status ParseClaimed(Fields& fields, const std::string& path, const std::string& where,
                    BaselineRecord* record) {
  Result<std::string> text = std::string();
  Result<const Json*> claimed = fields.Object("claimed", false);
  if (!claimed.ok()) return claimed.status();
  if (*claimed != nullptr) {
    const std::string claimed_path = JoinPath(path, "claimed");
    Fields claim(**claimed, claimed_path, where);
    ClaimedOutcome parsed;
    const Json* outcome = claim.Find("outcome");
    if (outcome == nullptr) return claim.Error("outcome", "is missing");
    Result<Expected> expected = ParseExpected(*outcome, JoinPath(claimed_path, "outcome"), where);
    if (!expected.ok()) return expected.status();
    parsed.outcome = *expected;
    Result<std::optional<int64_t>> band = claim.Integer("band_bp", 1, 9999);
    if (!band.ok()) return band.status();
    if (!*band) return claim.Error("band_bp", "is missing");
    parsed.band_bp = **band;
    if (const Json* ranked = claim.Find("ranked_ms"); ranked != nullptr && !ranked->is_null()) {
      Result<double> value = claim.Number("ranked_ms", true, 0, 0, true);
      if (!value.ok()) return value.status();
      parsed.ranked_ms = *value;
    }
    if ((parsed.outcome.status == "qualified") != parsed.ranked_ms.has_value()) {
      return claim.Error("ranked_ms", "must be a time exactly when the claimed outcome qualifies");
    }
    if (!(text = claim.String("board", true)).ok()) return text.status();
    parsed.board = *text;
    if (!(text = claim.String("scorer", true, true)).ok()) return text.status();
    parsed.scorer = *text;
    const Json* files = claim.Find("claims");
    if (files == nullptr || !files->is_array() || files->empty()) {
      return claim.Error("claims", "must list the claims, each {\"path\", \"sha256\"}");
    }
    for (size_t i = 0; i < files->size(); ++i) {
      const std::string file_path = JoinPath(claimed_path, "claims[" + std::to_string(i) + "]");
      if (!(*files)[i].is_object()) {
        return Status::BadInput(where + ": field \"" + file_path + "\": must be an object");
      }
      Fields file((*files)[i], file_path, where);
      ClaimFile entry;
      if (!(text = file.String("path", true, true)).ok()) return text.status();
      entry.path = *text;
      if (!(text = file.String("sha256", true)).ok()) return text.status();
      if (!IsLowerHex64(*text)) return file.Error("sha256", "must be 64 lowercase hex digits");
      entry.sha256 = *text;
      RATCHET_RETURN_IF_ERROR(file.Done());
      parsed.claims.push_back(entry);
    }
    RATCHET_RETURN_IF_ERROR(claim.Done());
    record->claimed = parsed;
  }
  return Status::Ok();
}

Result<BaselineRecord> ParseRecord(const std::string& id, const Json& json,
                                   const std::string& what) {
  const std::string path = JoinPath("records", id);
  const std::string where = what + ": record \"" + id + "\"";
  RATCHET_RETURN_IF_ERROR(CheckRecordId(id, where));
  if (!json.is_object())
    return Status::BadInput(where + ": field \"" + path + "\": must be an object");
  Fields fields(json, path, where);
  BaselineRecord record;
  record.id = id;
  Result<std::string> text = fields.String("submission", true, true);
  if (!text.ok()) return text.status();
  record.submission = *text;
  if (!(text = fields.String("function", false)).ok()) return text.status();
  record.function = *text;
  if (!(text = fields.String("sha256", false)).ok()) return text.status();
  if (fields.Find("sha256") != nullptr && !IsLowerHex64(*text)) {
    return fields.Error("sha256", "must be 64 lowercase hex digits");
  }
  record.sha256 = *text;
  Result<std::optional<int64_t>> number = fields.Integer("difficulty", 1, 1000);
  if (!number.ok()) return number.status();
  record.difficulty = *number;
  if (!(number = fields.Integer("band_bp", 1, 9999)).ok()) return number.status();
  record.band_bp = *number;
  if (record.difficulty.has_value() == record.band_bp.has_value()) {
    return fields.Error("difficulty", "give exactly one of \"difficulty\" and \"band_bp\"");
  }
  if (!(number = fields.Integer("runs", 1, 100)).ok()) return number.status();
  record.runs = *number;
  if (fields.Find("device") != nullptr) {
    if (!(text = fields.String("device", true)).ok()) return text.status();
    if (*text != "cuda")
      return fields.Error("device", "must be \"cuda\" (scored on GPU lanes only)");
    record.device = *text;
  }
  if (const Json* expected = fields.Find("expected")) {
    Result<Expected> parsed = ParseExpected(*expected, JoinPath(path, "expected"), where);
    if (!parsed.ok()) return parsed.status();
    record.expected = *parsed;
  }
  RATCHET_RETURN_IF_ERROR(ParseLaneTables(fields, path, where, &record));
  if (!(text = fields.String("reason", false)).ok()) return text.status();
  record.reason = *text;
  if (!(text = fields.String("reviewed_by", false)).ok()) return text.status();
  record.reviewed_by = *text;
  if (fields.Find("reviewed_commit") != nullptr) {
    if (!(text = fields.String("reviewed_commit", true)).ok()) return text.status();
    record.reviewed_commit = *text;
  }
  if (const Json* clean = fields.Find("reviewed_clean")) {
    if (!clean->is_boolean()) return fields.Error("reviewed_clean", "must be true or false");
    record.reviewed_clean = clean->get<bool>();
  }
  RATCHET_RETURN_IF_ERROR(ParseEvidenceRef(fields, path, where, &record));
  RATCHET_RETURN_IF_ERROR(ParseClaimed(fields, path, where, &record));
  RATCHET_RETURN_IF_ERROR(fields.Done());
  if (record.claimed && record.sha256.empty()) {
    return fields.Error("sha256", "is missing: a claimed record names the bytes its claims scored");
  }
  if (record.expected && record.sha256.empty()) {
    return fields.Error("sha256", "is missing: a reviewed record names the bytes it reviewed");
  }
  return record;
}

Json RecordJson(const BaselineRecord& record) {
  Json json = {{"submission", record.submission}};
  if (!record.sha256.empty()) json["sha256"] = record.sha256;
  if (!record.function.empty()) json["function"] = record.function;
  if (record.difficulty) json["difficulty"] = *record.difficulty;
  if (record.band_bp) json["band_bp"] = *record.band_bp;
  if (record.runs) json["runs"] = *record.runs;
  if (record.device) json["device"] = *record.device;
  if (record.expected) {
    json["expected"] = {{"status", record.expected->status}, {"broken", record.expected->broken}};
  }
  if (!record.timing.empty()) {
    Json& timing = json["timing"] = Json::object();
    for (const auto& [lane, value] : record.timing) {
      timing[lane] = {{"ranked_ms", value.ranked_ms},
                      {"relative", value.relative},
                      {"absolute_ms", value.absolute_ms}};
      if (!value.board.empty()) timing[lane]["board"] = value.board;
    }
  }
  if (!record.energy.empty()) {
    Json& energy = json["energy"] = Json::object();
    for (const auto& [lane, value] : record.energy) {
      energy[lane] = {{"mj_per_call", value.mj_per_call}, {"relative", value.relative}};
    }
  }
  if (!record.reason.empty()) json["reason"] = record.reason;
  if (!record.reviewed_by.empty()) json["reviewed_by"] = record.reviewed_by;
  if (record.reviewed_commit) json["reviewed_commit"] = *record.reviewed_commit;
  if (record.reviewed_clean) json["reviewed_clean"] = *record.reviewed_clean;
  if (record.evidence) {
    json["evidence"] = {{"path", record.evidence->path},
                        {"manifest_sha256", record.evidence->manifest_sha256}};
  }
  if (record.claimed) {
    const ClaimedOutcome& claimed = *record.claimed;
    Json files = Json::array();
    for (const ClaimFile& file : claimed.claims) {
      files.push_back({{"path", file.path}, {"sha256", file.sha256}});
    }
    json["claimed"] = {
        {"outcome", {{"status", claimed.outcome.status}, {"broken", claimed.outcome.broken}}},
        {"band_bp", claimed.band_bp},
        {"ranked_ms", claimed.ranked_ms ? Json(*claimed.ranked_ms) : Json()},
        {"board", claimed.board},
        {"scorer", claimed.scorer},
        {"claims", files}};
  }
  return json;
}

}  // namespace

Status CheckRecordId(const std::string& id, const std::string& what) {
  if (id.empty() || id.size() > 100 || id[0] == '.' ||
      !std::all_of(id.begin(), id.end(), [](char c) {
        return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
               c == '.' || c == '_' || c == '-';
      })) {
    return Status::BadInput(what + ": \"" + id +
                            "\" is not a record id (1-100 characters of A-Z a-z 0-9 . _ -, not "
                            "starting with '.')");
  }
  return Status::Ok();
}

namespace {

Result<Baseline> ParseBaselineText(std::string_view text, const std::string& what) {
  if (text.substr(0, 3) == "\xEF\xBB\xBF") {
    return Status::BadInput(what +
                            ": starts with a byte-order mark (EF BB BF): save it as UTF-8 "
                            "without one");
  }
  Result<Json> parsed = ParseJson(text, what);
  if (!parsed.ok()) return parsed.status();
  if (!parsed->is_object()) return Status::BadInput(what + ": the baseline must be a JSON object");
  Fields top(*parsed, "", what);
  Result<std::string> schema = top.String("schema", true);
  if (!schema.ok()) return schema.status();
  if (*schema != kBaselineSchema) {
    return top.Error("schema",
                     "is \"" + *schema + "\"; this ratchet reads \"" + kBaselineSchema + "\"");
  }
  Baseline baseline;
  Result<const Json*> contract = top.Object("contract", true);
  if (!contract.ok()) return contract.status();
  Fields contract_fields(**contract, "contract", what);
  Result<const Json*> locked = contract_fields.Object(kContractLocked, true);
  if (!locked.ok()) return locked.status();
  baseline.locked = **locked;
  // What a contract locks is fixed by the ratchet that wrote it: a key no contract has would only
  // show as contract-changed after a whole scoring.
  for (auto key = baseline.locked.begin(); key != baseline.locked.end(); ++key) {
    if (!IsLockedPart(key.key())) {
      return Status::BadInput(what + ": field \"" + JoinPath("contract.locked", key.key()) +
                              "\": is not a part of a contract (a contract locks " +
                              "datasets, rules, sandbox, scorer and workers; one of contract 1 "
                              "harness instead of scorer)");
    }
  }
  Result<const Json*> rule_set = contract_fields.Object(kContractRuleSet, false);
  if (!rule_set.ok()) return rule_set.status();
  if (*rule_set != nullptr) baseline.rule_set = **rule_set;
  RATCHET_RETURN_IF_ERROR(contract_fields.Done());
  // The rule set's document is the one the contract locks, byte for byte in canonical form.
  const ContractView locked_view(Json{{kContractLocked, baseline.locked}});
  if (*rule_set != nullptr && locked_view.rules_sha256().ok()) {
    Result<std::string> sha256 = CanonicalSha256(baseline.rule_set);
    if (!sha256.ok()) return sha256.status();
    if (*sha256 != *locked_view.rules_sha256()) {
      return Status::BadInput(what + ": field \"contract.rule_set\": its sha256 is " + *sha256 +
                              ", but contract.locked.rules.sha256 is " +
                              *locked_view.rules_sha256() +
                              ": the rule set's document must be the one the contract locks");
    }
  }

  Result<const Json*> lanes = top.Object("lanes", false);
  if (!lanes.ok()) return lanes.status();
  if (*lanes != nullptr) {
    for (auto it = (*lanes)->begin(); it != (*lanes)->end(); ++it) {
      const std::string path = JoinPath("lanes", it.key());
      if (!it.value().is_object()) {
        return Status::BadInput(what + ": field \"" + path + "\": must be an object");
      }
      Fields lane(it.value(), path, what);
      ReviewedLane reviewed;
      Result<const Json*> facts = lane.Object("facts", true);
      if (!facts.ok()) return facts.status();
      reviewed.facts = **facts;
      // A lane is named by the hash of its facts: facts that hash to another id are another lane.
      Result<std::string> id = LaneId(reviewed.facts);
      if (!id.ok()) return id.status();
      if (*id != it.key() || reviewed.facts.value("id", Json()) != Json(it.key())) {
        return Status::BadInput(what + ": field \"" + JoinPath(path, "facts") +
                                "\": its facts hash to the lane id " + *id + ", not " +
                                Excerpt(it.key()) +
                                ": a lane's facts are the contract's lane object, as promote "
                                "writes them");
      }
      Result<const Json*> review = lane.Object("reviewed", true);
      if (!review.ok()) return review.status();
      Fields review_fields(**review, JoinPath(path, "reviewed"), what);
      Result<std::string> text = review_fields.String("by", true, true);
      if (!text.ok()) return text.status();
      reviewed.by = *text;
      if (!(text = review_fields.String("reason", true, true)).ok()) return text.status();
      reviewed.reason = *text;
      if (!(text = review_fields.String("evidence", false)).ok()) return text.status();
      reviewed.evidence = *text;
      RATCHET_RETURN_IF_ERROR(review_fields.Done());
      RATCHET_RETURN_IF_ERROR(lane.Done());
      baseline.lanes[it.key()] = reviewed;
    }
  }
  Result<const Json*> reviewers = top.Object("reviewers", false);
  if (!reviewers.ok()) return reviewers.status();
  if (*reviewers != nullptr) {
    std::map<std::string, std::string> names_by_key;
    for (auto it = (*reviewers)->begin(); it != (*reviewers)->end(); ++it) {
      const std::string path = JoinPath("reviewers", it.key());
      if (it.key().empty() || !it.value().is_object()) {
        return Status::BadInput(what + ": field \"" + path +
                                "\": must be an object {\"public_key\": HEX} under a reviewer's "
                                "name");
      }
      Fields reviewer(it.value(), path, what);
      Result<std::string> key = reviewer.String("public_key", true);
      if (!key.ok()) return key.status();
      if (!IsLowerHex64(*key)) {
        return reviewer.Error("public_key",
                              "must be an Ed25519 public key, 64 lowercase hex digits, as "
                              "`ratchet key new` writes it in FILE.pub");
      }
      if (names_by_key.count(*key)) {
        return reviewer.Error("public_key", "is " + names_by_key[*key] + "'s key too");
      }
      names_by_key[*key] = it.key();
      RATCHET_RETURN_IF_ERROR(reviewer.Done());
      baseline.reviewers[it.key()] = *key;
    }
  }
  Result<const Json*> records = top.Object("records", true);
  if (!records.ok()) return records.status();
  for (auto it = (*records)->begin(); it != (*records)->end(); ++it) {
    Result<BaselineRecord> record = ParseRecord(it.key(), it.value(), what);
    if (!record.ok()) return record.status();
    baseline.records[it.key()] = std::move(*record);
  }
  RATCHET_RETURN_IF_ERROR(top.Done());
  return baseline;
}

}  // namespace

Result<Baseline> ParseBaseline(std::string_view text, const std::string& what) {
  // A value of a hostile file (a string of a hundred megabytes) reaches the terminal only as an
  // excerpt.
  Result<Baseline> baseline = ParseBaselineText(text, what);
  if (!baseline.ok()) return Excerpted(baseline.status());
  return baseline;
}

Result<Baseline> LoadBaseline(const std::string& path, std::string* sha256) {
  Result<std::string> text = ReadInputFile(path, "the baseline", kMaxBaselineBytes);
  if (!text.ok()) return text.status();
  if (sha256 != nullptr) *sha256 = Sha256Hex(*text);
  return ParseBaseline(*text, path);
}

Json BaselineContract(const Baseline& baseline) {
  Json contract = {{kContractLocked, baseline.locked}};
  if (!baseline.rule_set.is_null()) contract[kContractRuleSet] = baseline.rule_set;
  return contract;
}

Json BaselineJson(const Baseline& baseline) {
  Json contract = BaselineContract(baseline);
  Json lanes = Json::object();
  for (const auto& [id, lane] : baseline.lanes) {
    Json reviewed = {{"by", lane.by}, {"reason", lane.reason}};
    if (!lane.evidence.empty()) reviewed["evidence"] = lane.evidence;
    lanes[id] = {{"facts", lane.facts}, {"reviewed", reviewed}};
  }
  Json records = Json::object();
  for (const auto& [id, record] : baseline.records) records[id] = RecordJson(record);
  Json out = {
      {"schema", kBaselineSchema}, {"contract", contract}, {"lanes", lanes}, {"records", records}};
  if (!baseline.reviewers.empty()) {
    Json reviewers = Json::object();
    for (const auto& [name, key] : baseline.reviewers) reviewers[name] = {{"public_key", key}};
    out["reviewers"] = reviewers;
  }
  return out;
}

Result<std::string> BaselineText(const Baseline& baseline) {
  Json json = BaselineJson(baseline);
  Result<std::string> canonical = CanonicalJson(json);  // refuses NaN and the infinities
  if (!canonical.ok()) return canonical.status().Annotate("the baseline");
  return json.dump(2, ' ', false, Json::error_handler_t::strict) + "\n";
}

Status WriteBaseline(const std::string& path, const Baseline& baseline) {
  Result<std::string> text = BaselineText(baseline);
  if (!text.ok()) return text.status();
  return WriteFileAtomic(path, *text, 0644);
}

std::string ReviewerOf(const Baseline& baseline, const std::string& public_hex) {
  if (public_hex.empty()) return "";
  for (const auto& [name, key] : baseline.reviewers) {
    if (key == public_hex) return name;
  }
  return "";
}

std::string OutcomeText(const Expected& outcome) {
  if (outcome.broken.empty()) return outcome.status;
  std::string text = outcome.status + " (";
  for (size_t i = 0; i < outcome.broken.size(); ++i) text += (i ? ", " : "") + outcome.broken[i];
  return text + ")";
}

std::string InBaselineFolder(const std::string& folder, const std::string& path) {
  if (path.empty() || path[0] == '/') return path;
  return folder.empty() || folder == "." ? path : folder + "/" + path;
}

}  // namespace ratchet
