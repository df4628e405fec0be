// The baseline format (strict parsing, one spelling, atomic writes) and the ratchet's error codes.
#include "baseline/baseline.h"

#include <gtest/gtest.h>

#include <filesystem>
#include <functional>
#include <set>
#include <string>
#include <tuple>

#include "baseline/ratchet.h"
#include "contract/contract.h"
#include "core/canonical_json.h"
#include "core/exit_codes.h"
#include "core/file.h"
#include "core/sha256.h"
#include "evidence/manifest.h"
#include "rules/rule_ids.h"
#include "rules/rule_set.h"
#include "support/checkout.h"
#include "support/rule_constants.h"
#include "support/temp_dir.h"

namespace ratchet {
namespace {

const char kHash[] = "0000000000000000000000000000000000000000000000000000000000000000";
const char kOtherHash[] = "1111111111111111111111111111111111111111111111111111111111111111";

// The rule set's document the baseline holds, and the lane facts of its GPU lane with their id
// (a lane is named by the hash of its facts).
Json RuleSetDoc() { return {{"calls", {{"mnist_calls", 11}}}}; }
Json GpuFacts() {
  Json facts = {{"device", {{"kind", "cuda"}}}};
  facts["id"] = *LaneId(facts);
  return facts;
}
std::string GpuLane() { return GpuFacts()["id"]; }

Json Locked() {
  return {{"harness", {{"name", "ratchet"}, {"version", "0.1.0"}, {"source_sha256", kHash}}},
          {"rules", {{"id", "mnist-a100/1.2.0"}, {"sha256", *CanonicalSha256(RuleSetDoc())}}},
          {"datasets", {{"mnist", {{"images_sha256", kHash}, {"labels_sha256", kHash}}}}},
          {"sandbox", {{"policy_sha256", kHash}, {"uid", 65534}}}};
}

Json Contract(const std::string& lane, const std::string& kind) {
  return {{"schema", "ratchet.contract/1"},
          {"locked", Locked()},
          {"lane", {{"id", lane}, {"device", {{"kind", kind}}}}}};
}

Json BaselineDoc() {
  return {{"schema", "ratchet.baseline/1"},
          {"contract", {{"locked", Locked()}, {"rule_set", RuleSetDoc()}}},
          {"lanes",
           {{GpuLane(),
             {{"facts", GpuFacts()},
              {"reviewed", {{"by", "a reviewer"}, {"reason", "the reference board"}}}}}}},
          {"records",
           {{"fast",
             {{"submission", "submissions/fast.py"},
              {"sha256", kHash},
              {"band_bp", 2000},
              {"expected", {{"status", "qualified"}, {"broken", Json::array()}}},
              {"timing",
               {{GpuLane(), {{"ranked_ms", 10.0}, {"relative", 0.05}, {"absolute_ms", 0.1}}}}},
              {"reason", "qualifies"},
              {"reviewed_by", "a reviewer"}}},
            {"slow",
             {{"submission", "submissions/slow.py"},
              {"sha256", kHash},
              {"difficulty", 1},
              {"expected", {{"status", "disqualified"}, {"broken", {"accuracy"}}}},
              {"reason", "about 85% on MNIST: fails difficulty 1"},
              {"reviewed_by", "a reviewer"}}}}}};
}

Status Parse(const Json& doc) { return ParseBaseline(doc.dump(), "records.json").status(); }

void ExpectError(const Json& doc, const std::string& needle) {
  Status status = Parse(doc);
  ASSERT_FALSE(status.ok()) << "accepted: " << doc.dump();
  EXPECT_EQ(status.code(), Status::Code::kBadInput);
  EXPECT_NE(status.message().find(needle), std::string::npos) << status.message();
}

TEST(BaselineFormat, ParsesTheDocumentedShape) {
  Result<Baseline> baseline = ParseBaseline(BaselineDoc().dump(), "records.json");
  ASSERT_TRUE(baseline.ok()) << baseline.status().message();
  ASSERT_EQ(baseline->records.size(), 2u);
  const BaselineRecord& fast = baseline->records.at("fast");
  EXPECT_EQ(*fast.band_bp, 2000);
  EXPECT_FALSE(fast.difficulty.has_value());
  EXPECT_DOUBLE_EQ(fast.timing.at(GpuLane()).ranked_ms, 10.0);
  EXPECT_EQ(baseline->records.at("slow").expected->broken, std::vector<std::string>{"accuracy"});
  EXPECT_EQ(baseline->lanes.at(GpuLane()).by, "a reviewer");
}

// A rule no run can break would leave the record's expected outcome one that never compares
// equal: it is refused when the baseline is read, as bad input (exit 2), naming the file, the
// record, the field and the id, and listing the ids there are.
// Reviewers' public keys: read and written back; a key that is not 64 lowercase hex digits, one
// key under two names, and a field a reviewer does not have are refused, naming the field.
TEST(BaselineFormat, ReviewersKeysAreReadAndCheckedOneKeyPerReviewer) {
  const std::string a(64, 'a'), b(64, 'b');
  Json doc = BaselineDoc();
  doc["reviewers"] = {{"alice", {{"public_key", a}}}, {"bob", {{"public_key", b}}}};
  Result<Baseline> baseline = ParseBaseline(doc.dump(), "records.json");
  ASSERT_TRUE(baseline.ok()) << baseline.status().message();
  EXPECT_EQ(baseline->reviewers,
            (std::map<std::string, std::string>{{"alice", a}, {"bob", b}}));
  EXPECT_EQ(BaselineJson(*baseline)["reviewers"], doc["reviewers"]);
  EXPECT_FALSE(BaselineJson(*ParseBaseline(BaselineDoc().dump(), "b")).contains("reviewers"));

  Json bad = doc;
  bad["reviewers"]["alice"]["public_key"] = std::string(64, 'A');
  ExpectError(bad, "field \"reviewers.alice.public_key\": must be an Ed25519 public key");
  bad = doc;
  bad["reviewers"]["bob"]["public_key"] = a;
  ExpectError(bad, "is alice's key too");
  bad = doc;
  bad["reviewers"]["alice"]["email"] = "a@example.org";
  ExpectError(bad, "field \"reviewers.alice.email\": is not a field of the baseline format");
  bad = doc;
  bad["reviewers"] = {{"alice", a}};
  ExpectError(bad, "field \"reviewers.alice\": must be an object");
}

TEST(BaselineFormat, AnUnknownRuleIdIsRefused) {
  Json doc = BaselineDoc();
  doc["records"]["slow"]["expected"]["broken"] = {"acuracy"};
  Status status = Parse(doc);
  ASSERT_FALSE(status.ok());
  EXPECT_EQ(status.code(), Status::Code::kBadInput);
  EXPECT_EQ(ExitCodeFor(status), kExitBadInput);
  EXPECT_EQ(status.message(),
            "records.json: record \"slow\": field "
            "\"records.slow.expected.broken[0]\": \"acuracy\" is not a rule "
            "id; the rule ids are " +
                RuleIdsText());
  for (const char* id : {"timing-call", "dispersion-fast", "source", "compile-output"}) {
    EXPECT_NE(status.message().find(id), std::string::npos) << id;
  }

  doc["records"]["slow"]["expected"]["broken"] = {"accuracy", "holdouts"};
  ExpectError(doc, "field \"records.slow.expected.broken[1]\": \"holdouts\" is not a rule id");
  doc["records"]["slow"]["expected"]["broken"] = {7};
  ExpectError(doc, "field \"records.slow.expected.broken[0]\": must be a rule id, a string");
  // Every id of the judge and of the run loop is taken.
  std::vector<std::string> all(std::begin(kJudgeRules), std::end(kJudgeRules));
  all.insert(all.end(), std::begin(kRunLoopRules), std::end(kRunLoopRules));
  for (const std::string& id : all) {
    doc["records"]["slow"]["expected"]["broken"] = {id};
    EXPECT_TRUE(Parse(doc).ok()) << id << ": " << Parse(doc).message();
  }
}

TEST(BaselineFormat, OneSpellingRoundTrips) {
  Result<Baseline> baseline = ParseBaseline(BaselineDoc().dump(), "records.json");
  ASSERT_TRUE(baseline.ok());
  Result<std::string> text = BaselineText(*baseline);
  ASSERT_TRUE(text.ok());
  EXPECT_EQ(text->back(), '\n');
  Result<Baseline> again = ParseBaseline(*text, "records.json");
  ASSERT_TRUE(again.ok()) << again.status().message();
  EXPECT_EQ(*BaselineText(*again), *text);
  EXPECT_EQ(BaselineJson(*again), BaselineDoc());
}

TEST(BaselineFormat, ErrorsNameTheRecordAndTheFieldPath) {
  Json doc = BaselineDoc();
  doc["records"]["fast"]["colour"] = "blue";
  ExpectError(doc, "record \"fast\": field \"records.fast.colour\": is not a field");

  doc = BaselineDoc();
  doc["records"]["slow"]["expected"]["status"] = "passed";
  ExpectError(doc, "record \"slow\": field \"records.slow.expected.status\"");

  doc = BaselineDoc();
  doc["records"]["fast"]["difficulty"] = 2;
  ExpectError(doc, "exactly one of \"difficulty\" and \"band_bp\"");

  doc = BaselineDoc();
  doc["records"]["fast"]["band_bp"] = 10000;
  ExpectError(doc, "field \"records.fast.band_bp\": must be a whole number from 1 to 9999");

  doc = BaselineDoc();
  doc["records"]["fast"]["sha256"] = "ABC";
  ExpectError(doc, "field \"records.fast.sha256\": must be 64 lowercase hex digits");

  doc = BaselineDoc();
  doc["records"]["slow"]["expected"]["broken"] = {"timeout", "accuracy"};
  ExpectError(doc, "field \"records.slow.expected.broken\": must be sorted");

  doc = BaselineDoc();
  doc["records"]["slow"]["expected"]["broken"] = Json::array();
  ExpectError(doc, "must name the rules a disqualified outcome broke");

  doc = BaselineDoc();
  doc["records"]["fast"]["timing"][GpuLane()]["ranked_ms"] = -1;
  ExpectError(
      doc, "field \"records.fast.timing." + GpuLane() + ".ranked_ms\": must be a number above 0");

  doc = BaselineDoc();
  doc["records"]["fast"].erase("submission");
  ExpectError(doc, "field \"records.fast.submission\": is missing");

  doc = BaselineDoc();
  doc["records"]["bad id"] = doc["records"]["fast"];
  ExpectError(doc, "\"bad id\" is not a record id");

  doc = BaselineDoc();
  doc["schema"] = "ratchet.baseline/2";
  ExpectError(doc, "field \"schema\": is \"ratchet.baseline/2\"");

  doc = BaselineDoc();
  doc["lanes"][GpuLane()]["reviewed"].erase("reason");
  ExpectError(doc, "field \"lanes." + GpuLane() + ".reviewed.reason\": is missing");

  doc = BaselineDoc();
  doc["records"]["fast"].erase("sha256");
  ExpectError(doc, "field \"records.fast.sha256\": is missing: a reviewed record");

  doc = BaselineDoc();
  doc.erase("records");
  ExpectError(doc, "field \"records\": is missing");

  Status not_json = ParseBaseline("{\"schema\": ", "records.json").status();
  EXPECT_EQ(not_json.code(), Status::Code::kBadInput);
  EXPECT_NE(not_json.message().find("records.json"), std::string::npos) << not_json.message();
}

TEST(BaselineFormat, ARuleSetOrLaneThatDoesNotHashToItsNameOrAnUnknownPartIsRefused) {
  Json doc = BaselineDoc();
  doc["contract"]["rule_set"]["calls"]["mnist_calls"] = 12;
  ExpectError(doc, "field \"contract.rule_set\": its sha256 is " +
                       *CanonicalSha256(doc["contract"]["rule_set"]) +
                       ", but contract.locked.rules.sha256 is " + *CanonicalSha256(RuleSetDoc()));
  doc = BaselineDoc();
  doc["lanes"][GpuLane()]["facts"]["device"]["kind"] = "cpu";
  ExpectError(doc, "field \"lanes." + GpuLane() + ".facts\": its facts hash to the lane id ");
  // A part no contract locks is refused when the baseline is read, not after a scoring.
  doc = BaselineDoc();
  doc["contract"]["locked"]["colour"] = "blue";
  ExpectError(doc, "field \"contract.locked.colour\": is not a part of a contract");
  // Facts moved under another lane's name.
  doc = BaselineDoc();
  doc["lanes"]["0123456789abcdef"] = doc["lanes"][GpuLane()];
  ExpectError(doc, ", not 0123456789abcdef: a lane's facts are the contract's lane object");
}

TEST(BaselineFormat, TheBoardOfAReviewedTimeIsKeptWhenKnown) {
  Json doc = BaselineDoc();
  Result<Baseline> without = ParseBaseline(doc.dump(), "records.json");
  ASSERT_TRUE(without.ok()) << without.status().message();
  EXPECT_EQ(without->records.at("fast").timing.at(GpuLane()).board, "");
  EXPECT_EQ(BaselineText(*without)->find("\"board\""), std::string::npos);  // none written

  doc["records"]["fast"]["timing"][GpuLane()]["board"] = "GPU-kept";
  Result<Baseline> with = ParseBaseline(doc.dump(), "records.json");
  ASSERT_TRUE(with.ok()) << with.status().message();
  EXPECT_EQ(with->records.at("fast").timing.at(GpuLane()).board, "GPU-kept");
  Result<Baseline> again = ParseBaseline(*BaselineText(*with), "records.json");
  ASSERT_TRUE(again.ok()) << again.status().message();
  EXPECT_EQ(again->records.at("fast").timing.at(GpuLane()).board, "GPU-kept");

  doc["records"]["fast"]["timing"][GpuLane()]["board"] = "";
  ExpectError(doc, "records.fast.timing." + GpuLane() + ".board\": must not be empty");
  doc["records"]["fast"]["timing"][GpuLane()]["board"] = 7;
  ExpectError(doc, "records.fast.timing." + GpuLane() + ".board\": must be a string");
}

TEST(BaselineFormat, LoadNamesAMissingFile) {
  TempDir dir;
  Status missing = LoadBaseline(dir / "records.json").status();
  EXPECT_EQ(missing.code(), Status::Code::kBadInput);
  EXPECT_NE(missing.message().find(dir / "records.json"), std::string::npos) << missing.message();
}

TEST(BaselineFormat, WriteReplacesTheWholeFileAndLeavesNoTemporary) {
  TempDir dir;
  const std::string path = dir / "records.json";
  ASSERT_TRUE(WriteFileAtomic(path, "old").ok());
  Result<Baseline> baseline = ParseBaseline(BaselineDoc().dump(), "records.json");
  ASSERT_TRUE(baseline.ok());
  ASSERT_TRUE(WriteBaseline(path, *baseline).ok());
  EXPECT_EQ(*ReadFile(path), *BaselineText(*baseline));
  int entries = 0;
  for (const auto& entry : std::filesystem::directory_iterator(dir.path())) {
    (void)entry;
    ++entries;
  }
  EXPECT_EQ(entries, 1);
  // A baseline that cannot be written as JSON (a NaN) leaves the file as it was.
  baseline->records["fast"].timing[GpuLane()].ranked_ms = std::nan("");
  EXPECT_FALSE(WriteBaseline(path, *baseline).ok());
  EXPECT_EQ(*ReadFile(path), *BaselineText(*ParseBaseline(BaselineDoc().dump(), "x")));
}

// --- the ratchet ---------------------------------------------------------------------------

RatchetInputs Inputs(const std::string& lane = GpuLane(), const std::string& kind = "cuda") {
  RatchetInputs inputs;
  inputs.contract = Contract(lane, kind);
  inputs.selected = {"fast", "slow"};
  inputs.scored["fast"] = {true, kHash, {"qualified", {}}, 10.2, std::nullopt, std::nullopt};
  inputs.scored["slow"] = {true,         kHash,        {"disqualified", {"accuracy"}},
                           std::nullopt, std::nullopt, std::nullopt};
  return inputs;
}

std::vector<std::string> Codes(const RatchetResult& result) {
  std::vector<std::string> codes;
  for (const RatchetError& error : result.errors) codes.push_back(error.code + ":" + error.record);
  return codes;
}

Baseline Base() { return *ParseBaseline(BaselineDoc().dump(), "records.json"); }

TEST(Ratchet, AsExpectedIsNoError) {
  RatchetResult result = RatchetErrors(Base(), Inputs());
  EXPECT_TRUE(result.errors.empty()) << ::testing::PrintToString(Codes(result));
  EXPECT_TRUE(result.lane_reviewed);
  EXPECT_TRUE(result.timings_compared);
}

TEST(Ratchet, AChangedLockedFieldIsContractChangedNamingIt) {
  RatchetInputs inputs = Inputs();
  inputs.contract["locked"]["sandbox"]["policy_sha256"] = kOtherHash;
  RatchetResult result = RatchetErrors(Base(), inputs);
  ASSERT_EQ(result.errors.size(), 1u);
  EXPECT_EQ(result.errors[0].code, "contract-changed");
  EXPECT_NE(result.errors[0].message.find("locked.sandbox.policy_sha256"), std::string::npos);
  EXPECT_TRUE(result.contract_changed);
}

TEST(Ratchet, AChangedRuleConstantIsNamedToo) {
  RatchetInputs inputs = Inputs();
  inputs.contract["locked"]["rules"]["sha256"] = kOtherHash;
  inputs.rule_set = {{"calls", {{"mnist_calls", 12}}}};
  RatchetResult result = RatchetErrors(Base(), inputs);
  ASSERT_EQ(result.errors.size(), 2u) << ::testing::PrintToString(Codes(result));
  EXPECT_NE(result.errors[0].message.find("locked.rules.sha256"), std::string::npos);
  EXPECT_NE(result.errors[1].message.find("rules.calls.mnist_calls: reviewed 11, now 12"),
            std::string::npos)
      << result.errors[1].message;
}

// Every constant of the default rule set, changed (to a value the rule set accepts), changes
// the sha256 the contract locks, and the ratchet names the constant that moved. ratchet_command_test
// runs `ratchet run` on a few of them end to end.
TEST(Ratchet, EveryRuleConstantChangedIsContractChangedNamingIt) {
  Result<RuleSet> reviewed = ParseRuleSet(EmbeddedRuleSetText(kDefaultRuleSetId), "the default");
  ASSERT_TRUE(reviewed.ok()) << reviewed.status().message();
  Json doc = BaselineDoc();
  doc["contract"]["rule_set"] = reviewed->document;
  doc["contract"]["locked"]["rules"]["sha256"] = reviewed->sha256;
  Result<Baseline> base = ParseBaseline(doc.dump(), "records.json");
  ASSERT_TRUE(base.ok()) << base.status().message();

  const std::vector<std::pair<Json::json_pointer, std::string>> leaves =
      RuleConstants(reviewed->document);
  ASSERT_GE(leaves.size(), 60u);
  for (const auto& [pointer, dotted] : leaves) {
    bool named = false;
    std::string tried;
    // A change the rule set refuses is followed by another.
    for (int attempt = 0; !named; ++attempt) {
      const std::optional<Json> changed = ChangedRuleConstant(reviewed->document, pointer, attempt);
      if (!changed) break;
      Result<RuleSet> rules = ParseRuleSet(changed->dump(), "the changed rule set");
      if (!rules.ok()) {
        tried += rules.status().message() + "\n";
        continue;
      }
      RatchetInputs inputs = Inputs();
      inputs.contract["locked"]["rules"]["sha256"] = rules->sha256;
      inputs.rule_set = rules->document;
      const RatchetResult result = RatchetErrors(*base, inputs);
      bool locked = false;
      for (const RatchetError& error : result.errors) {
        locked = locked || (error.code == "contract-changed" &&
                            error.message.rfind("locked.rules.sha256:", 0) == 0);
        named = named ||
                (error.code == "contract-changed" && error.message.rfind(dotted + ":", 0) == 0);
        tried += error.code + ": " + error.message + "\n";
      }
      named = named && locked && result.contract_changed;
    }
    EXPECT_TRUE(named) << dotted << "\n" << tried;
  }
}

TEST(Ratchet, EachRecordErrorHasItsCode) {
  Baseline base = Base();
  RatchetInputs inputs = Inputs();
  inputs.scored["fast"].sha256 = kOtherHash;
  inputs.scored["slow"].outcome = {"qualified", {}};
  RatchetResult result = RatchetErrors(base, inputs);
  EXPECT_EQ(Codes(result),
            (std::vector<std::string>{"submission-changed:fast", "outcome-changed:slow"}));
  EXPECT_NE(result.errors[1].message.find("an improvement"), std::string::npos);

  base.records["slow"].reason = "UNREVIEWED";
  inputs = Inputs();
  EXPECT_EQ(Codes(RatchetErrors(base, inputs)),
            std::vector<std::string>{"nonpass-unreviewed:slow"});

  base = Base();
  base.records["slow"].expected.reset();
  EXPECT_EQ(Codes(RatchetErrors(base, inputs)), std::vector<std::string>{"record-unreviewed:slow"});

  inputs.scored.erase("fast");
  base = Base();
  EXPECT_EQ(Codes(RatchetErrors(base, inputs)), std::vector<std::string>{"record-missing:fast"});
}

// A record taken in by `ratchet import`: held to its claim, and never passing unreviewed.
TEST(Ratchet, AClaimIsHeldToItsOutcomeAndOnItsBoardKindToATimeNoSlowerThanClaimed) {
  Json doc = BaselineDoc();
  doc["records"]["claimed"] = {
      {"submission", "submissions/claimed.py"},
      {"sha256", kHash},
      {"band_bp", 2000},
      {"claimed",
       {{"outcome", {{"status", "qualified"}, {"broken", Json::array()}}},
        {"band_bp", 2000},
        {"ranked_ms", 10.0},
        {"board", "NVIDIA H200"},
        {"scorer", "mnist-a100/1.2.0"},
        {"claims", Json::array({{{"path", "claims/a.json"}, {"sha256", kHash}}})}}}};
  const Baseline base = *ParseBaseline(doc.dump(), "records.json");
  RatchetInputs inputs = Inputs();
  inputs.selected = {"claimed"};
  inputs.contract["lane"]["device"]["name"] = "NVIDIA H200";
  inputs.scored["claimed"] = {true, kHash, {"qualified", {}}, 10.3, std::nullopt, std::nullopt};
  auto note = [](const RatchetResult& result) {
    for (const std::string& n : result.notes) {
      if (n.rfind("claim-reproduced: claimed: ", 0) == 0) return n;
    }
    return std::string("no claim-reproduced note");
  };
  // Reproduced within the tolerance: a note, and the record is still unreviewed.
  RatchetResult result = RatchetErrors(base, inputs);
  EXPECT_EQ(Codes(result), std::vector<std::string>{"record-unreviewed:claimed"});
  EXPECT_NE(note(result).find("scored 10.300 ms on NVIDIA H200, within the tolerance"),
            std::string::npos)
      << note(result);
  // Faster than claimed reproduces it, and says by how much.
  inputs.scored["claimed"].ranked_ms = 5.0;
  result = RatchetErrors(base, inputs);
  EXPECT_EQ(Codes(result), std::vector<std::string>{"record-unreviewed:claimed"});
  EXPECT_NE(note(result).find("faster than claimed by 50.0% (the claim's scorer, mnist-a100/1.2.0"),
            std::string::npos)
      << note(result);
  // Slower beyond the tolerance, and again when scored once more: not reproduced.
  inputs.scored["claimed"].ranked_ms = 11.0;
  EXPECT_EQ(Codes(RatchetErrors(base, inputs)),
            std::vector<std::string>{"claim-not-reproduced:claimed"});
  inputs.scored["claimed"].rerun_ranked_ms = 10.4;
  EXPECT_EQ(Codes(RatchetErrors(base, inputs)),
            std::vector<std::string>{"record-unreviewed:claimed"});
  inputs.scored["claimed"].rerun_ranked_ms.reset();
  // On another kind of board, the outcome alone.
  inputs.contract["lane"]["device"]["name"] = "NVIDIA A100-SXM4-80GB";
  result = RatchetErrors(base, inputs);
  EXPECT_EQ(Codes(result), std::vector<std::string>{"record-unreviewed:claimed"});
  EXPECT_NE(note(result).find("the outcome only"), std::string::npos) << note(result);
  // Another outcome is not the claim, on any board.
  inputs.scored["claimed"].outcome = {"disqualified", {"accuracy"}};
  EXPECT_EQ(Codes(RatchetErrors(base, inputs)),
            std::vector<std::string>{"claim-not-reproduced:claimed"});
}

TEST(Ratchet, TimesOutsideTheirToleranceUnlessARunAgainIsWithin) {
  RatchetInputs inputs = Inputs();
  inputs.scored["fast"].ranked_ms = 11.0;  // +10%, tolerance 5%
  EXPECT_EQ(Codes(RatchetErrors(Base(), inputs)), std::vector<std::string>{"time-regressed:fast"});
  inputs.scored["fast"].ranked_ms = 9.0;
  EXPECT_EQ(Codes(RatchetErrors(Base(), inputs)), std::vector<std::string>{"time-improved:fast"});
  inputs.scored["fast"].rerun_ranked_ms = 10.1;
  RatchetResult spurious = RatchetErrors(Base(), inputs);
  EXPECT_TRUE(spurious.errors.empty());
  ASSERT_FALSE(spurious.notes.empty());
  EXPECT_NE(spurious.notes.back().find("spurious"), std::string::npos) << spurious.notes.back();
  inputs.scored["fast"].rerun_ranked_ms = 8.9;
  EXPECT_EQ(Codes(RatchetErrors(Base(), inputs)), std::vector<std::string>{"time-improved:fast"});
}

// A lane holds every board of its kind: a time outside its tolerance names the board its reviewed
// time was scored on and this run's, when both are known.
TEST(Ratchet, ATimeOutsideItsToleranceNamesTheBoards) {
  RatchetInputs inputs = Inputs();
  inputs.scored["fast"].ranked_ms = 11.0;
  auto message = [&inputs] {
    RatchetResult result = RatchetErrors(Base(), inputs);
    return result.errors.size() == 1 ? result.errors[0].message : std::string("not one error");
  };
  const std::string plain = "scored 11.000 ms; reviewed 10.000 ms on lane " + GpuLane();
  EXPECT_EQ(message(), plain);  // neither board known
  inputs.reviewed_boards["fast"] = "GPU-aaaa";
  EXPECT_EQ(message(), plain);  // the reviewed one alone
  inputs.contract["observed"]["device_uuid"] = "GPU-bbbb";
  EXPECT_EQ(message(), plain +
                           " with board GPU-aaaa; this run's board is GPU-bbbb, another board of "
                           "the same lane, and boards of one lane can differ by more than the "
                           "tolerance (docs/baseline.md): review the times on the board that runs "
                           "the baseline");
  inputs.reviewed_boards["fast"] = "GPU-bbbb";
  EXPECT_EQ(message(), plain + ", on the same board, GPU-bbbb");
  inputs.reviewed_boards.erase("fast");
  EXPECT_EQ(message(), plain);  // this run's alone
}

TEST(Ratchet, TheReviewedBoardIsTheRecordsEvidencesOnThisLaneElseTheLanes) {
  TempDir dir;
  auto evidence = [&dir](const std::string& name, const std::string& lane,
                         const std::string& board) {
    std::filesystem::create_directories(dir / name);
    Json contract = {{"lane", {{"id", lane}}}, {"observed", {{"device_uuid", board}}}};
    ASSERT_TRUE(WriteFileAtomic(dir / name + "/contract.json", contract.dump()).ok());
  };
  evidence("first", GpuLane(), "GPU-first");
  evidence("again", GpuLane(), "GPU-again");
  evidence("cpu", "cpu-lane", "");
  Baseline base = Base();
  base.lanes[GpuLane()].evidence = "first";
  EXPECT_EQ(ReviewedBoard(base, dir.path(), GpuLane(), "fast"), "GPU-first");  // no evidence
  base.records["fast"].evidence = EvidenceRef{"again", kHash};
  EXPECT_EQ(ReviewedBoard(base, dir.path(), GpuLane(), "fast"), "GPU-again");  // promoted again
  base.records["fast"].evidence = EvidenceRef{dir / "cpu", kHash};             // absolute
  EXPECT_EQ(ReviewedBoard(base, dir.path(), GpuLane(), "fast"), "GPU-first");  // another lane's
  EXPECT_EQ(ReviewedBoard(base, dir.path(), "other-lane", "fast"), "");
  EXPECT_EQ(ReviewedBoard(base, dir.path(), GpuLane(), "absent"), "GPU-first");
  base.lanes[GpuLane()].evidence = "missing";
  EXPECT_EQ(ReviewedBoard(base, dir.path(), GpuLane(), "slow"), "");
}

TEST(Ratchet, TheBoardKeptWithAReviewedTimeComesFirst) {
  TempDir dir;
  for (const auto& [name, lane, board] :
       {std::tuple<std::string, std::string, std::string>{"first", GpuLane(), "GPU-first"},
        std::tuple<std::string, std::string, std::string>{"cpu", "cpu-lane", ""}}) {
    std::filesystem::create_directories(dir / name);
    Json contract = {{"lane", {{"id", lane}}}, {"observed", {{"device_uuid", board}}}};
    ASSERT_TRUE(WriteFileAtomic(dir / name + "/contract.json", contract.dump()).ok());
  }
  // Reviewed on the lane from its first evidence, promoted again there from another board's,
  // then promoted on a CPU lane: the record's evidence is now the CPU run's, and only the board
  // kept with the time says where that time came from.
  Baseline base = Base();
  base.lanes[GpuLane()].evidence = "first";
  base.records["fast"].evidence = EvidenceRef{"cpu", kHash};
  EXPECT_EQ(ReviewedBoard(base, dir.path(), GpuLane(), "fast"), "GPU-first");  // not kept
  base.records["fast"].timing[GpuLane()].board = "GPU-again";
  EXPECT_EQ(ReviewedBoard(base, dir.path(), GpuLane(), "fast"), "GPU-again");
  // Promoted again on the lane with no time (a null ranked_ms) from another board's evidence: the
  // time and its board are the earlier ones.
  base.records["fast"].evidence = EvidenceRef{"first", kHash};
  EXPECT_EQ(ReviewedBoard(base, dir.path(), GpuLane(), "fast"), "GPU-again");
  EXPECT_EQ(ReviewedBoard(base, dir.path(), "other-lane", "fast"), "");  // another lane's time
  base.lanes[GpuLane()].evidence = "missing";
  EXPECT_EQ(ReviewedBoard(base, dir.path(), GpuLane(), "fast"), "GPU-again");
}

TEST(Ratchet, TheBoardOfAnEvidenceIsItsContractsDeviceUuid) {
  TempDir dir;
  EXPECT_EQ(EvidenceBoard(dir / "absent"), "");
  std::filesystem::create_directories(dir / "folder/contract.json");
  EXPECT_EQ(EvidenceBoard(dir / "folder"), "");  // not a file
  ASSERT_TRUE(WriteFileAtomic(dir / "contract.json", "{not json").ok());
  EXPECT_EQ(EvidenceBoard(dir.path()), "");
  ASSERT_TRUE(WriteFileAtomic(dir / "contract.json", R"({"observed": {}})").ok());
  EXPECT_EQ(EvidenceBoard(dir.path()), "");
  ASSERT_TRUE(
      WriteFileAtomic(dir / "contract.json", R"({"observed": {"device_uuid": "GPU-cccc"}})").ok());
  EXPECT_EQ(EvidenceBoard(dir.path()), "GPU-cccc");
  ASSERT_TRUE(WriteFileAtomic(dir / "contract.json", "[]").ok());
  EXPECT_EQ(EvidenceBoard(dir.path()), "");  // not an object: no board
}

TEST(Ratchet, OnlyTimingRulesMakeAnOutcomeWorthScoringAgain) {
  const Expected qualified{"qualified", {}};
  EXPECT_FALSE(DiffersByTimingRulesAlone(qualified, qualified));
  EXPECT_TRUE(DiffersByTimingRulesAlone(qualified, {"disqualified", {"dispersion-slow"}}));
  EXPECT_TRUE(
      DiffersByTimingRulesAlone({"disqualified", {"dispersion-fast", "timing-call"}}, qualified));
  EXPECT_TRUE(DiffersByTimingRulesAlone({"disqualified", {"accuracy", "timing-group"}},
                                        {"disqualified", {"accuracy"}}));
  EXPECT_FALSE(DiffersByTimingRulesAlone(qualified, {"disqualified", {"accuracy"}}));
  EXPECT_FALSE(
      DiffersByTimingRulesAlone({"disqualified", {"dispersion-slow", "holdout"}}, qualified));
  EXPECT_FALSE(
      DiffersByTimingRulesAlone({"disqualified", {"accuracy"}}, {"disqualified", {"draw-floor"}}));
}

// A record scored again after its outcome differed by timing rules alone: as reviewed the second
// time is a note naming both outcomes; not as reviewed it is outcome-changed naming both.
TEST(Ratchet, AnOutcomeScoredAgainIsSpuriousOnlyWhenTheSecondIsAsReviewed) {
  RatchetInputs inputs = Inputs();
  inputs.scored["fast"].first_outcome = Expected{"disqualified", {"dispersion-slow"}};
  RatchetResult spurious = RatchetErrors(Base(), inputs);
  EXPECT_TRUE(spurious.errors.empty()) << ::testing::PrintToString(Codes(spurious));
  ASSERT_FALSE(spurious.notes.empty());
  EXPECT_NE(spurious.notes.back().find(
                "fast: spurious: scored disqualified (dispersion-slow) (timing rules alone); run "
                "again it scored qualified"),
            std::string::npos)
      << spurious.notes.back();

  inputs.scored["fast"].outcome = Expected{"disqualified", {"dispersion-slow"}};
  inputs.scored["fast"].ranked_ms.reset();
  RatchetResult twice = RatchetErrors(Base(), inputs);
  EXPECT_EQ(Codes(twice), std::vector<std::string>{"outcome-changed:fast"});
  EXPECT_NE(twice.errors[0].message.find(
                "scored disqualified (dispersion-slow) and again disqualified (dispersion-slow)"),
            std::string::npos)
      << twice.errors[0].message;
}

// On a CPU lane, whose timings are never compared, an outcome that differs from the reviewed one
// by timing rules alone (after its second scoring) is a note naming the rules, both scorings and
// the machine's load; on a GPU lane it stays outcome-changed, and a rule that does not time the
// calls fails either lane.
TEST(Ratchet, OnACpuLaneAnOutcomeMovedByTimingRulesAloneIsANote) {
  const Expected slow_twice{"disqualified", {"dispersion-slow"}};
  RatchetInputs cpu = Inputs("cpu-lane", "cpu");
  cpu.scored["fast"].first_outcome = slow_twice;
  cpu.scored["fast"].outcome = slow_twice;
  cpu.scored["fast"].ranked_ms.reset();
  cpu.load_average = 3.5;
  RatchetResult noted = RatchetErrors(Base(), cpu);
  EXPECT_TRUE(noted.errors.empty()) << ::testing::PrintToString(Codes(noted));
  ASSERT_FALSE(noted.notes.empty());
  EXPECT_NE(noted.notes.back().find(
                "fast: timing rules alone (dispersion-slow) on a CPU lane: expected qualified, "
                "scored disqualified (dispersion-slow) and again disqualified (dispersion-slow)"),
            std::string::npos)
      << noted.notes.back();
  EXPECT_NE(noted.notes.back().find("load average was 3.50"), std::string::npos)
      << noted.notes.back();

  // Reviewed as broken by a rule that does not time the calls, and now broken by a timing rule
  // besides: still the timing rule alone that moved.
  cpu.scored["slow"].outcome = {"disqualified", {"accuracy", "timing-call"}};
  EXPECT_TRUE(RatchetErrors(Base(), cpu).errors.empty());

  RatchetInputs gpu = Inputs();
  gpu.scored["fast"] = cpu.scored["fast"];
  EXPECT_EQ(Codes(RatchetErrors(Base(), gpu)), std::vector<std::string>{"outcome-changed:fast"});

  cpu.scored["fast"].outcome = {"disqualified", {"accuracy", "dispersion-slow"}};
  EXPECT_EQ(Codes(RatchetErrors(Base(), cpu)), std::vector<std::string>{"outcome-changed:fast"});
}

TEST(Ratchet, CpuAndUnreviewedLanesCompareOutcomesOnly) {
  RatchetInputs cpu = Inputs("cpu-lane", "cpu");
  cpu.scored["fast"].ranked_ms = 50.0;
  RatchetResult result = RatchetErrors(Base(), cpu);
  EXPECT_TRUE(result.errors.empty()) << ::testing::PrintToString(Codes(result));
  EXPECT_FALSE(result.timings_compared);
  ASSERT_FALSE(result.notes.empty());
  EXPECT_NE(result.notes[0].find("has not been reviewed"), std::string::npos);
  cpu.require_lane = true;
  EXPECT_EQ(Codes(RatchetErrors(Base(), cpu)), std::vector<std::string>{"lane-unreviewed:"});
  cpu.scored["slow"].outcome = {"disqualified", {"accuracy", "timeout"}};
  cpu.require_lane = false;
  EXPECT_EQ(Codes(RatchetErrors(Base(), cpu)), std::vector<std::string>{"outcome-changed:slow"});
}

TEST(Ratchet, CompareTimingUsesTheLargerOfTheTwoTolerances) {
  LaneTiming timing{1.0, 0.05, 0.1, ""};
  EXPECT_EQ(CompareTiming(timing, 1.09), TimingVerdict::kWithin);  // absolute 0.1 ms wins
  EXPECT_EQ(CompareTiming(timing, 1.11), TimingVerdict::kRegressed);
  EXPECT_EQ(CompareTiming(timing, 0.89), TimingVerdict::kImproved);
}

// The baseline the README's main job runs: it parses, every record is reviewed, and the files it
// names are the ones reviewed (the run itself is the main job, not a test: any change to the
// harness changes the contract it locks).
TEST(BundledBaseline, ParsesAndNamesTheFilesItReviewed) {
  const std::string folder = SourceDir() + "/baselines";
  Result<Baseline> baseline = LoadBaseline(folder + "/records.json");
  ASSERT_TRUE(baseline.ok()) << baseline.status().message();
  EXPECT_GE(baseline->records.size(), 3u);
  EXPECT_FALSE(baseline->lanes.empty());
  EXPECT_FALSE(baseline->rule_set.is_null());
  bool disqualified = false;
  for (const auto& [id, record] : baseline->records) {
    ASSERT_TRUE(record.expected.has_value()) << id;
    EXPECT_FALSE(record.reason.empty()) << id;
    disqualified = disqualified || record.expected->status == "disqualified";
    EXPECT_EQ(*Sha256File(folder + "/" + record.submission), record.sha256) << id;
    ASSERT_TRUE(record.evidence.has_value()) << id;
    const std::string evidence = folder + "/" + record.evidence->path;
    EXPECT_EQ(*ManifestSha256(evidence), record.evidence->manifest_sha256) << id;
    EXPECT_TRUE(VerifyManifest(evidence).empty()) << id;
  }
  EXPECT_TRUE(disqualified) << "one record is reviewed as disqualified";
}

// docs/gpu.md says which lanes the bundled baseline holds now; the line names exactly those.
TEST(BundledBaseline, DocsGpuNamesItsLanes) {
  Result<Baseline> baseline = LoadBaseline(SourceDir() + "/baselines/records.json");
  ASSERT_TRUE(baseline.ok()) << baseline.status().message();
  Result<std::string> doc = ReadFile(SourceDir() + "/docs/gpu.md");
  ASSERT_TRUE(doc.ok()) << doc.status().message();
  const std::string lead = "The baseline's lanes now: ";
  const size_t at = doc->find(lead);
  ASSERT_NE(at, std::string::npos) << "docs/gpu.md has no line starting \"" << lead << "\"";
  const std::string sentence = doc->substr(at, doc->find(". ", at) - at);
  std::set<std::string> named;
  for (size_t open = sentence.find('`'); open != std::string::npos;
       open = sentence.find('`', sentence.find('`', open + 1) + 1)) {
    const size_t close = sentence.find('`', open + 1);
    ASSERT_NE(close, std::string::npos) << sentence;
    const std::string word = sentence.substr(open + 1, close - open - 1);
    if (word.size() == 16 && word.find_first_not_of("0123456789abcdef") == std::string::npos)
      named.insert(word);
  }
  std::set<std::string> lanes;
  for (const auto& [id, lane] : baseline->lanes) lanes.insert(id);
  EXPECT_EQ(named, lanes) << sentence;
}

}  // namespace
}  // namespace ratchet
