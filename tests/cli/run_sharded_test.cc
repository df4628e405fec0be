// `ratchet run --executor local|slurm` end to end, as a user runs it: a baseline split into shards,
// each scored by a scorer of its own, verified and collected into one run that `ratchet audit`
// lets stand. The Slurm tests run against a real single-node cluster the suite starts
// (scripts/slurm-test-cluster, from Debian's slurmctld, slurmd and munge) and stops: the bundled
// baseline gives the same outcomes and exit code as on this host; a task cancelled by someone
// else and a slurmd killed are retried into a complete run; SIGINT cancels the run's jobs and
// exits 130, and --resume scores what is left (a shard corrupted meanwhile among it).
#include <gtest/gtest.h>
#include <signal.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstdlib>
#include <filesystem>
#include <functional>
#include <set>
#include <thread>
#include <tuple>

#include "core/canonical_json.h"
#include "core/file.h"
#include "core/sha256.h"
#include "evidence/signature.h"
#include "core/subprocess.h"
#include "audit/fixture.h"
#include "baseline/baseline.h"
#include "baseline/ratchet.h"
#include "shard/reviewed_evidence.h"
#include "support/checkout.h"
#include "support/fast_rules.h"
#include "support/run_binary.h"
#include "support/slurm_cluster.h"
#include "support/temp_dir.h"

namespace ratchet {
namespace {

bool Contains(const std::string& text, const std::string& needle) {
  return text.find(needle) != std::string::npos;
}

// A baseline under the fast rule set: records `a` and `b`, ncm.py at a loose band, reviewed by
// hand as qualified, two runs each: four shards.
class Workspace {
 public:
  Workspace() {
    rules_ = FastRules(dir_);
    std::filesystem::create_directories(dir_ / "submissions");
    std::filesystem::copy_file(SourceDir() + "/baselines/submissions/ncm.py",
                               dir_ / "submissions/ncm.py");
    BinaryRun contract = RunRatchet({"contract", "--json", "--rules", rules_});
    EXPECT_EQ(contract.exit_code, 0) << contract.err;
    const Json locked = Json::parse(contract.out)["locked"];
    Json records = Json::object();
    for (const char* id : {"a", "b"}) {
      records[id] = {{"submission", "submissions/ncm.py"},
                     {"band_bp", 3000},
                     {"runs", 2},
                     {"expected", {{"status", "qualified"}, {"broken", Json::array()}}},
                     {"reason", "the nearest class mean, at a loose band"},
                     {"sha256", *Sha256File(dir_ / "submissions/ncm.py")}};
    }
    Json doc = {{"schema", "ratchet.baseline/1"},
                {"contract", {{"locked", locked}, {"rule_set", FastRulesJson()}}},
                {"lanes", Json::object()},
                {"records", records}};
    EXPECT_TRUE(WriteFileAtomic(baseline(), doc.dump(2) + "\n").ok());
  }
  std::vector<std::string> Args(const std::string& out, std::vector<std::string> extra) const {
    std::vector<std::string> args = {"run", "--baseline", baseline(), "--rules", rules_,
                                     "--out", out};
    args.insert(args.end(), extra.begin(), extra.end());
    return args;
  }
  std::string baseline() const { return dir_ / "records.json"; }
  const std::string& rules() const { return rules_; }
  const TempDir& dir() const { return dir_; }

 private:
  TempDir dir_;
  std::string rules_;
};

Json RunJson(const std::string& dir) {
  Result<std::string> text = ReadFile(dir + "/run.json");
  return text.ok() ? Json::parse(*text) : Json();
}

// Waits until `ready` holds of run.json (or `seconds` pass).
bool WaitForRun(const std::string& dir, const std::function<bool(const Json&)>& ready,
                double seconds) {
  const auto until = std::chrono::steady_clock::now() + std::chrono::duration<double>(seconds);
  while (std::chrono::steady_clock::now() < until) {
    Result<std::string> text = ReadFile(dir + "/run.json");
    if (text.ok()) {
      try {
        if (ready(Json::parse(*text))) return true;
      } catch (const std::exception&) {
      }
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(100));
  }
  return false;
}

int CountState(const Json& run, const std::string& state) {
  int n = 0;
  for (const Json& shard : run["shards"]) n += shard["state"] == state;
  return n;
}

// The run's MANIFEST.json made to list shard `id`'s MANIFEST.json as it is now.
void ResealShardInRun(const std::string& dir, const std::string& id) {
  Json manifest = Json::parse(*ReadFile(dir + "/MANIFEST.json"));
  const std::string listed = "shards/" + id + "/MANIFEST.json";
  manifest["files"][listed] = *Sha256File(dir + "/" + listed);
  ASSERT_TRUE(WriteFileAtomic(dir + "/MANIFEST.json", manifest.dump(2)).ok());
}

// The first shard run.json says is done: its id and record.
std::pair<std::string, std::string> DoneShard(const Json& run) {
  for (const Json& shard : run["shards"]) {
    if (shard["state"] == "done") return {shard["id"], shard["record"]};
  }
  return {"", ""};
}

// A complete run: every shard done and verified by the audit, which lets the claim stand.
void ExpectCompleteAndStanding(const std::string& dir, const std::string& rules = "") {
  const Json run = RunJson(dir);
  EXPECT_EQ(run["state"], "complete") << run.dump(2);
  EXPECT_TRUE(run["seed"].is_string());
  EXPECT_FALSE(PathExists(dir + "/plans")) << "the shards' seeds stay once revealed";
  EXPECT_TRUE(PathExists(dir + "/MANIFEST.json"));
  for (const Json& shard : run["shards"]) EXPECT_EQ(shard["state"], "done") << shard.dump();
  std::vector<std::string> args = {"audit", dir};
  if (!rules.empty()) args.insert(args.end(), {"--rules", rules});
  BinaryRun audit = RunRatchet(args);
  EXPECT_EQ(audit.exit_code, 0) << audit.out << audit.err;
  EXPECT_TRUE(Contains(audit.out, "the claim stands")) << audit.out;
}

TEST(ShardedRunTest, UsageErrorsSayWhatToDo) {
  Workspace space;
  const std::string out = space.dir() / "run";
  struct Case {
    std::vector<std::string> extra;
    std::string message;
  };
  for (const Case& c : std::vector<Case>{
           {{"--executor", "cloud"}, "--executor is local or slurm"},
           {{"--jobs", "2"}, "add --executor local or slurm"},
           {{"--executor", "slurm"}, "--slurm-folder"},
           {{"--executor", "local", "--partition", "p"}, "an option of --executor slurm"},
           {{"--executor", "local", "--devices", "0,0"}, "names GPU 0 twice"},
           {{"--executor", "local", "--devices", "x"}, "--devices is \"all\" or GPU indices"},
           {{"--executor", "local", "--devices", "0"}, "this lane has none"},
           // The summary written into the evidence would fail its audit: refused before scoring.
           {{"--markdown", out + "/summary.md"}, "is inside " + out + ", the run's evidence"},
           {{"--executor", "local", "--markdown", out + "/./x/../s.md"}, "is inside"},
       }) {
    BinaryRun run = RunRatchet(space.Args(out, c.extra));
    EXPECT_EQ(run.exit_code, 2) << c.message << "\n" << run.err;
    EXPECT_TRUE(Contains(run.err, c.message)) << run.err;
  }
  EXPECT_FALSE(PathExists(out)) << "nothing scored";
  BinaryRun resume = RunRatchet({"run", "--resume", space.dir().path()});
  EXPECT_EQ(resume.exit_code, 2);
  EXPECT_TRUE(Contains(resume.err, "not a sharded run's directory")) << resume.err;
  resume = RunRatchet({"run", "--resume", out, "--baseline", space.baseline()});
  EXPECT_EQ(resume.exit_code, 2);
  EXPECT_TRUE(Contains(resume.err, "leave out --baseline")) << resume.err;
}

// A record whose first scoring differs from its reviewed outcome by timing rules alone gets the
// shards of a second scoring (runs N+1..2N) after the first pass, and is held to that second one:
// on this CPU lane a note when it differs by timing rules alone again. A record that differs by
// another rule is outcome-changed, and heads the run's summary.
TEST(ShardedRunTest, ARecordDifferingByTimingRulesAloneIsScoredAgainInShardsOfItsOwn) {
  if (!HavePython()) GTEST_SKIP() << "no python3 that imports torch";
  Workspace space;
  Json doc = Json::parse(*ReadFile(space.baseline()));
  doc["records"]["a"]["expected"] = {{"status", "disqualified"}, {"broken", {"dispersion-slow"}}};
  doc["records"]["a"]["reason"] = "reviewed as slow to disperse";
  doc["records"]["b"]["expected"] = {{"status", "disqualified"}, {"broken", {"accuracy"}}};
  doc["records"]["b"]["reason"] = "reviewed as inaccurate";
  ASSERT_TRUE(WriteFileAtomic(space.baseline(), doc.dump(2) + "\n").ok());
  const std::string out = space.dir() / "run";
  const std::string summary = space.dir() / "summary.md";
  BinaryRun run = RunRatchet(space.Args(out, {"--record", "a", "--record", "b", "--executor",
                                              "local", "--jobs", "2", "--markdown", summary}));
  ASSERT_EQ(run.exit_code, 1) << run.out << run.err;
  EXPECT_TRUE(Contains(run.out, "record a: ")) << run.out;
  // The summary of a sharded run that exits 1 is headed by its difference, as a direct run's is.
  ASSERT_TRUE(PathExists(summary)) << run.err;
  EXPECT_EQ(ReadFile(summary)->rfind("### ratchet: 1 difference(s)\n", 0), 0u) << *ReadFile(summary);
  BinaryRun report = RunRatchet({"report", out, "--markdown", "--rules", space.rules()});
  EXPECT_EQ(report.exit_code, 0) << report.err;
  EXPECT_EQ(report.out, *ReadFile(summary));
  const Json json = RunJson(out);
  std::vector<std::tuple<std::string, int, bool>> shards;  // (record, run, second scoring)
  for (const Json& shard : json["shards"]) {
    shards.push_back({shard["record"].get<std::string>(), shard["run"].get<int>(),
                      shard["rerun"].get<bool>()});
  }
  std::sort(shards.begin(), shards.end());
  EXPECT_EQ(shards, (std::vector<std::tuple<std::string, int, bool>>{{"a", 1, false},
                                                                     {"a", 2, false},
                                                                     {"a", 3, true},
                                                                     {"a", 4, true},
                                                                     {"b", 1, false},
                                                                     {"b", 2, false}}))
      << json.dump(2);
  const Json& record = json["report"]["records"]["a"];
  ASSERT_TRUE(record.contains("rerun")) << record.dump(2);
  EXPECT_EQ(record["rerun"]["runs"].size(), 2u);
  const Json& ratchet = json["report"]["ratchet"];
  ASSERT_EQ(ratchet["errors"].size(), 1u) << ratchet.dump(2);
  EXPECT_EQ(ratchet["errors"][0]["code"], "outcome-changed");
  EXPECT_EQ(ratchet["errors"][0]["record"], "b");
  bool noted_both = false;
  for (const Json& note : ratchet["notes"]) {
    noted_both = noted_both || (Contains(note, "a: timing rules alone (dispersion-slow) on a CPU "
                                               "lane") &&
                                Contains(note, "and again qualified"));
  }
  EXPECT_TRUE(noted_both) << ratchet.dump(2);
  ExpectCompleteAndStanding(out, space.rules());
}

// Four shards, two at a time on this host: each scored once into its own folder with its own
// seed, the run collected, and the audit lets it stand; a run changed afterwards does not.
TEST(ShardedRunTest, ALocalRunIsCollectedVerifiedAndAudited) {
  if (!HavePython()) GTEST_SKIP() << "no python3 that imports torch";
  Workspace space;
  const std::string out = space.dir() / "run";
  // Signed with a key made here; its summary for a pull request written beside it.
  Result<KeyPair> key = NewKeyPair();
  ASSERT_TRUE(key.ok());
  const std::string key_file = space.dir() / "key";
  ASSERT_TRUE(WriteFileAtomic(key_file, key->private_pem, 0600).ok());
  const std::string summary = space.dir() / "summary.md";
  BinaryRun run = RunRatchet(space.Args(
      out, {"--executor", "local", "--jobs", "2", "--sign", key_file, "--markdown", summary}));
  ASSERT_EQ(run.exit_code, 0) << run.out << run.err;
  EXPECT_TRUE(Contains(run.out, "4 shard(s), executor local")) << run.out;
  EXPECT_TRUE(Contains(run.out, "ok: every record as")) << run.out;
  ExpectCompleteAndStanding(out, space.rules());
  // Compare verifies a sharded run as it does a direct run's evidence.
  BinaryRun compare = RunRatchet({"compare", out, out});
  EXPECT_EQ(compare.exit_code, 0) << compare.out << compare.err;
  EXPECT_TRUE(Contains(compare.out, "records: 2 same, 0 regressed")) << compare.out;
  BinaryRun signed_audit = RunRatchet({"audit", out, "--rules", space.rules()});
  EXPECT_TRUE(Contains(signed_audit.out, "checked: signed by key " + KeyId(key->public_hex)))
      << signed_audit.out;
  // Each shard is signed with the run's key as it was verified, the run's manifest once collected.
  for (const Json& shard : RunJson(out)["shards"]) {
    const SignatureCheck signature =
        CheckSignature(out + "/shards/" + shard["id"].get<std::string>());
    EXPECT_TRUE(signature.valid) << shard.dump() << signature.problem;
    EXPECT_EQ(signature.public_hex, key->public_hex);
  }
  EXPECT_EQ(RunJson(out)["signer"], key->public_hex);
  ASSERT_TRUE(PathExists(summary)) << run.err;
  EXPECT_EQ(ReadFile(summary)->rfind("### ratchet: as the baseline expects", 0), 0u)
      << *ReadFile(summary);
  const Json json = RunJson(out);
  ASSERT_EQ(json["shards"].size(), 4u);
  std::set<std::string> ids, seeds;
  for (const Json& shard : json["shards"]) {
    ids.insert(shard["id"]);
    ASSERT_EQ(shard["attempts"].size(), 1u) << shard.dump();
    EXPECT_EQ(shard["attempts"][0]["end"], "scored");
    EXPECT_EQ(shard["attempts"][0]["executor"], "local");
    const std::string folder = out + "/shards/" + shard["id"].get<std::string>();
    seeds.insert(*ReadFile(folder + "/seed.reveal"));
    EXPECT_TRUE(PathExists(folder + "/records/" + shard["record"].get<std::string>() + "/run-" +
                           std::to_string(shard["run"].get<int>())))
        << folder;
  }
  EXPECT_EQ(ids.size(), 4u);
  EXPECT_EQ(seeds.size(), 4u) << "two shards drew from one seed";
  EXPECT_EQ(json["report"]["records"]["a"]["runs"].size(), 2u);

  // Changed after the run, each in a copy of its own, resealed (MANIFEST.json written again over
  // what changed) or not: the audit names what no longer holds.
  struct Tamper {
    std::string name;
    std::function<void(const std::string& dir, Json& run)> change;
    bool reseal;
    std::string named;  // in the audit's output
  };
  const std::string first_id = json["shards"][0]["id"];
  const std::string first_record = json["shards"][0]["record"];
  const std::vector<Tamper> tampers = {
      {"a claimed time", [](const std::string&, Json& run) {
         run["report"]["records"]["a"]["ranked_ms"] = 0.001;
       }, false, "MANIFEST.json"},
      {"a claimed time, resealed", [](const std::string&, Json& run) {
         run["report"]["records"]["a"]["ranked_ms"] = 0.001;
       }, true, "report.records.a.ranked_ms"},
      {"another run seed, resealed", [](const std::string&, Json& run) {
         const std::string seed(64, 'a');
         run["seed"] = seed;
         run["seed_commit"] = Sha256Hex(*HexDecode(seed, "seed"));
       }, true, "not the seed the run seed derives for this shard"},
      {"a shard removed", [first_id](const std::string& dir, Json&) {
         std::filesystem::remove_all(dir + "/shards/" + first_id);
       }, true, "shards/" + first_id.substr(0, 12)},
      {"a folder added", [first_id](const std::string& dir, Json&) {
         std::filesystem::copy(dir + "/shards/" + first_id, dir + "/shards/" + std::string(64, 'b'),
                               std::filesystem::copy_options::recursive);
       }, true, "a folder run.json does not list as a shard"},
      {"a shard's run changed, resealed", [](const std::string&, Json& run) {
         run["shards"][0]["run"] = 7;
       }, true, "not the hash of the shard's work"},
      {"a shard's signature removed", [first_id](const std::string& dir, Json&) {
         std::filesystem::remove(dir + "/shards/" + first_id + "/SIGNATURE.json");
       }, false, "missing: the run is signed with key"},
      {"a shard's report rewritten, the shard and the run resealed",
       [first_id, first_record](const std::string& dir, Json&) {
         const std::string shard = dir + "/shards/" + first_id;
         ASSERT_TRUE(EditJsonAndRemanifest(shard, "report.json", [&](Json& report) {
                       report["records"][first_record]["function"] = "forged";
                     }).ok());
         ResealShardInRun(dir, first_id);
       }, true, "shards/" + first_id.substr(0, 12) + "…/SIGNATURE.json"},
      {"an unsigned file beside the run", [](const std::string& dir, Json&) {
         ASSERT_TRUE(WriteFileAtomic(dir + "/NOTES.md", "looks official\n").ok());
       }, false, "not part of a sharded run's evidence"},
      {"not collected", [](const std::string&, Json& run) { run["state"] = "interrupted"; },
       true, "the run is interrupted, not complete"},
      {"the report removed, resealed", [](const std::string&, Json& run) {
         run["report"] = nullptr;
       }, true, "the run claims nothing"},
      // Read by the part's owner: one it cannot read is named, and gives no exit code of 0.
      {"the ratchet part's errors not a list, resealed", [](const std::string&, Json& run) {
         run["report"]["ratchet"]["errors"] = "none";
       }, true, "run.json: report.ratchet.errors"},
      {"a claimed outcome of no known status, resealed", [](const std::string&, Json& run) {
         run["report"]["records"]["a"]["outcome"]["status"] = "great";
       }, true, "report.records.a.outcome.status"},
      {"a record's slow run left out, resealed", [](const std::string& dir, Json& run) {
         // Run 1 of record a dropped, folder and entry; the claim made again from run 2 alone.
         Json kept = Json::array();
         for (const Json& shard : run["shards"]) {
           if (shard["record"] == "a" && shard["run"] == 1) {
             std::filesystem::remove_all(dir + "/shards/" + shard["id"].get<std::string>());
           } else {
             kept.push_back(shard);
           }
         }
         run["shards"] = kept;
         Json& a = run["report"]["records"]["a"];
         a["runs"].erase(0);
         a["ranked_ms"] = a["runs"][0]["ranked_ms"];
       }, true, "a run is missing or moved"},
  };
  for (size_t i = 0; i < tampers.size(); ++i) {
    const Tamper& tamper = tampers[i];
    const std::string copy = space.dir() / ("copy-" + std::to_string(i));
    std::filesystem::copy(out, copy, std::filesystem::copy_options::recursive);
    Json changed = RunJson(copy);
    tamper.change(copy, changed);
    ASSERT_TRUE(WriteFileAtomic(copy + "/run.json", changed.dump(2)).ok());
    if (tamper.reseal) {
      Json manifest = Json::parse(*ReadFile(copy + "/MANIFEST.json"));
      manifest["files"]["run.json"] = *Sha256File(copy + "/run.json");
      ASSERT_TRUE(WriteFileAtomic(copy + "/MANIFEST.json", manifest.dump(2)).ok());
    }
    BinaryRun audit = RunRatchet({"audit", copy, "--rules", space.rules()});
    EXPECT_EQ(audit.exit_code, 1) << tamper.name << "\n" << audit.out << audit.err;
    EXPECT_TRUE(Contains(audit.out, tamper.named)) << tamper.name << "\n" << audit.out;
    // compare verifies as the audit does: the copy is no evidence to compare with.
    BinaryRun compared = RunRatchet({"compare", out, copy});
    EXPECT_EQ(compared.exit_code, 1) << tamper.name << "\n" << compared.out << compared.err;
    EXPECT_EQ(compared.out.rfind("incomplete evidence: the comparison below is no verdict", 0), 0u)
        << tamper.name << "\n" << compared.out << compared.err;
    if (tamper.reseal) {
      // A rewrite resealed consistently no longer verifies against the run's signature.
      EXPECT_TRUE(Contains(audit.out, "SIGNATURE.json: MANIFEST.json is not the one signed"))
          << tamper.name << "\n" << audit.out;
    }
    std::filesystem::remove_all(copy);
  }

  // Promote reads a sharded run as it reads a direct run's evidence: verified first, the records'
  // outcomes the ones its shards' calls give, the run copied beside the baseline whole (from a
  // folder outside it) and checked there before the baseline names it.
  TempDir elsewhere;
  const std::string moved = elsewhere / "sharded";
  std::filesystem::copy(out, moved, std::filesystem::copy_options::recursive);
  BinaryRun promote =
      RunRatchet({"promote", "--baseline", space.baseline(), "--evidence", moved, "--record", "a",
                  "--record", "b", "--reason", "reviewed from shards", "--reviewer", "a test"});
  ASSERT_EQ(promote.exit_code, 0) << promote.out << promote.err;
  EXPECT_TRUE(Contains(promote.out, "promoted a: qualified")) << promote.out;
  EXPECT_TRUE(Contains(promote.out, "copied " + moved)) << promote.out;
  Result<Baseline> promoted = LoadBaseline(space.baseline());
  ASSERT_TRUE(promoted.ok()) << promoted.status().ToString();
  ASSERT_TRUE(promoted->records.at("a").evidence.has_value());
  EXPECT_EQ(promoted->records.at("a").evidence->path, "evidence/sharded");
  EXPECT_EQ(promoted->records.at("a").evidence->manifest_sha256,
            *Sha256File(out + "/MANIFEST.json"));
  // The check of reviewed evidence (`ratchet run`'s, promote's) lets the copy stand...
  RatchetResult reviewed;
  CheckReviewedEvidence(*promoted, space.dir().path(), {"a", "b"}, &reviewed);
  EXPECT_TRUE(reviewed.errors.empty()) << reviewed.errors.front().message;
  // ...and re-derives instead of trusting it: a shard's claimed time rewritten in the copy, with the
  // shard's manifest made again over it, no longer matches the run's manifest.
  const std::string copied = space.dir() / "evidence/sharded";
  const std::string shard = copied + "/shards/" + first_id;
  ASSERT_TRUE(EditJsonAndRemanifest(shard, "report.json", [&](Json& report) {
                report["records"][first_record]["ranked_ms"] = 0.001;
              }).ok());
  RatchetResult tampered;
  CheckReviewedEvidence(*promoted, space.dir().path(), {"a", "b"}, &tampered);
  ASSERT_FALSE(tampered.errors.empty());
  EXPECT_EQ(tampered.errors.front().code, "evidence-incomplete");
  EXPECT_TRUE(Contains(tampered.errors.front().message, "does not verify"))
      << tampered.errors.front().message;
}

// SIGINT stops the run at once and keeps the shards scored; a shard corrupted meanwhile is
// scored again by --resume, which collects a run the audit lets stand.
TEST(ShardedRunTest, AnInterruptedLocalRunResumesAndScoresACorruptedShardAgain) {
  if (!HavePython()) GTEST_SKIP() << "no python3 that imports torch";
  Workspace space;
  const std::string out = space.dir() / "run";
  StartedRatchet started = StartRatchet(space.Args(out, {"--executor", "local"}));
  ASSERT_TRUE(WaitForRun(out, [](const Json& run) { return CountState(run, "done") >= 1; }, 120));
  kill(started.pid, SIGINT);
  BinaryRun stopped = FinishRatchet(started);
  ASSERT_EQ(stopped.exit_code, 130) << stopped.out << stopped.err;
  EXPECT_TRUE(Contains(stopped.err, "ratchet run --resume " + out)) << stopped.err;
  Json run = RunJson(out);
  EXPECT_EQ(run["state"], "interrupted");
  EXPECT_FALSE(PathExists(out + "/MANIFEST.json")) << "an interrupted run looks complete";
  BinaryRun audit = RunRatchet({"audit", out, "--rules", space.rules()});
  EXPECT_EQ(audit.exit_code, 1) << audit.out << audit.err;
  // A scored shard's claimed time cut tenfold and its manifest resealed: the folder matches its
  // manifest, and only its calls tell (the run is unsigned). Collect counts what the calls give.
  const auto [corrupted, record] = DoneShard(run);
  ASSERT_FALSE(corrupted.empty());
  ASSERT_TRUE(EditJsonAndRemanifest(out + "/shards/" + corrupted, "report.json", [&](Json& report) {
                Json& entry = report["records"][record];
                entry["ranked_ms"] = entry["ranked_ms"].get<double>() / 10;
              }).ok());
  BinaryRun resumed = RunRatchet({"run", "--resume", out});
  ASSERT_EQ(resumed.exit_code, 0) << resumed.out << resumed.err;
  EXPECT_TRUE(Contains(resumed.out, "is scored again: discarded at resume: its folder fails "
                                    "verification: report.json: records." + record + ".ranked_ms"))
      << resumed.out;
  ExpectCompleteAndStanding(out, space.rules());
  const Json resumed_run = RunJson(out);
  for (const Json& shard : resumed_run["shards"]) {
    if (shard["id"] != corrupted) continue;
    ASSERT_EQ(shard["attempts"].size(), 2u) << shard.dump(2);
    EXPECT_EQ(shard["attempts"][0]["end"], "scored");
    EXPECT_EQ(shard["attempts"][1]["end"], "scored");
  }
  // The audit lets it stand, and says the shard was scored twice and why.
  BinaryRun audited = RunRatchet({"audit", out, "--rules", space.rules()});
  EXPECT_EQ(audited.exit_code, 0) << audited.out << audited.err;
  EXPECT_TRUE(Contains(audited.out, "the shard was scored 2 times and its last attempt collected; "
                                    "attempt 1: discarded at resume"))
      << audited.out;
  BinaryRun again = RunRatchet({"run", "--resume", out});
  EXPECT_EQ(again.exit_code, 2);
  EXPECT_TRUE(Contains(again.err, "nothing to resume")) << again.err;
}

// A ratchet killed (SIGKILL) while a shard runs: --resume keeps that attempt in the provenance,
// as a fault that says so, and numbers the attempt it makes after it, so both logs are kept.
TEST(ShardedRunTest, AnAttemptRunningWhenItsRatchetIsKilledIsKeptWithItsLog) {
  if (!HavePython()) GTEST_SKIP() << "no python3 that imports torch";
  Workspace space;
  const std::string out = space.dir() / "run";
  StartedRatchet started = StartRatchet(space.Args(out, {"--executor", "local"}));
  std::string running;
  ASSERT_TRUE(WaitForRun(out, [&](const Json& run) {
    for (const Json& shard : run["shards"]) {
      const std::string id = shard["id"];
      if (shard["state"] == "running" && PathExists(out + "/logs/" + id + ".1.log")) {
        running = id;
        return true;
      }
    }
    return false;
  }, 120));
  kill(started.pid, SIGKILL);
  FinishRatchet(started);
  std::this_thread::sleep_for(std::chrono::seconds(5));  // the shard, sent SIGTERM, finishes
  BinaryRun resumed = RunRatchet({"run", "--resume", out});
  ASSERT_EQ(resumed.exit_code, 0) << resumed.out << resumed.err;
  ExpectCompleteAndStanding(out, space.rules());
  for (const Json& shard : RunJson(out)["shards"]) {
    if (shard["id"] != running) continue;
    ASSERT_GE(shard["attempts"].size(), 2u) << shard.dump(2);
    EXPECT_EQ(shard["attempts"][0]["end"], "fault") << shard.dump(2);
    EXPECT_TRUE(Contains(shard["attempts"][0]["why"], "was killed before it ended"))
        << shard.dump(2);
    EXPECT_EQ(shard["attempts"][1]["attempt"], 2) << shard.dump(2);
  }
  EXPECT_TRUE(PathExists(out + "/logs/" + running + ".1.log"));
  EXPECT_TRUE(PathExists(out + "/logs/" + running + ".2.log"));
}

// --resume --sign signs only what its key witnessed: a run is resumed with the key it began with,
// a shard rewritten since its key signed it is scored again, and a collected run whose manifest
// is gone is never collected or signed again, with any key.
TEST(ShardedRunTest, ResumeSignsOnlyWhatItsKeyWitnessed) {
  if (!HavePython()) GTEST_SKIP() << "no python3 that imports torch";
  Workspace space;
  const std::string out = space.dir() / "run";
  std::string keys[2], publics[2];
  for (int k = 0; k < 2; ++k) {
    Result<KeyPair> pair = NewKeyPair();
    ASSERT_TRUE(pair.ok());
    keys[k] = space.dir() / ("key-" + std::to_string(k));
    publics[k] = pair->public_hex;
    ASSERT_TRUE(WriteFileAtomic(keys[k], pair->private_pem, 0600).ok());
  }
  StartedRatchet started =
      StartRatchet(space.Args(out, {"--executor", "local", "--sign", keys[0]}));
  ASSERT_TRUE(WaitForRun(out, [](const Json& run) { return CountState(run, "done") >= 1; }, 120));
  kill(started.pid, SIGINT);
  BinaryRun stopped = FinishRatchet(started);
  ASSERT_EQ(stopped.exit_code, 130) << stopped.out << stopped.err;
  // A scored shard rewritten consistently (a field report.json alone holds), its manifest resealed.
  const auto [rewritten, record] = DoneShard(RunJson(out));
  ASSERT_FALSE(rewritten.empty());
  ASSERT_TRUE(EditJsonAndRemanifest(out + "/shards/" + rewritten, "report.json", [&](Json& report) {
                report["records"][record]["function"] = "forged";
              }).ok());

  BinaryRun other_key = RunRatchet({"run", "--resume", out, "--sign", keys[1]});
  EXPECT_EQ(other_key.exit_code, 2) << other_key.out << other_key.err;
  EXPECT_TRUE(Contains(other_key.err, "resume it with --sign and the key it began with"))
      << other_key.err;
  BinaryRun no_key = RunRatchet({"run", "--resume", out});
  EXPECT_EQ(no_key.exit_code, 2) << no_key.out << no_key.err;
  EXPECT_TRUE(Contains(no_key.err, "resume it with --sign and that key")) << no_key.err;

  BinaryRun resumed = RunRatchet({"run", "--resume", out, "--sign", keys[0]});
  ASSERT_EQ(resumed.exit_code, 0) << resumed.out << resumed.err;
  EXPECT_TRUE(Contains(resumed.out, "is scored again: discarded at resume: its folder fails "
                                    "verification: SIGNATURE.json"))
      << resumed.out;
  ExpectCompleteAndStanding(out, space.rules());
  for (const Json& shard : RunJson(out)["shards"]) {
    const std::string folder = out + "/shards/" + shard["id"].get<std::string>();
    EXPECT_EQ(CheckSignature(folder).public_hex, publics[0]) << folder;
    if (shard["id"] == rewritten) {
      EXPECT_EQ(shard["attempts"].size(), 2u) << shard.dump(2);
    }
  }

  // The collected run's MANIFEST.json and SIGNATURE.json removed, a shard rewritten: no key makes
  // a signed run of it again.
  std::filesystem::remove(out + "/MANIFEST.json");
  std::filesystem::remove(out + "/SIGNATURE.json");
  ASSERT_TRUE(EditJsonAndRemanifest(out + "/shards/" + rewritten, "report.json", [&](Json& report) {
                report["records"][record]["function"] = "forged";
              }).ok());
  for (const std::string& key : keys) {
    BinaryRun again = RunRatchet({"run", "--resume", out, "--sign", key});
    EXPECT_EQ(again.exit_code, 2) << again.out << again.err;
    EXPECT_TRUE(Contains(again.err, "a collected run is not collected or signed again"))
        << again.err;
    EXPECT_FALSE(PathExists(out + "/SIGNATURE.json"));
  }
}

// A run begun unsigned and resumed with --sign: its key witnessed none of the shards scored
// before, so each is scored again under it.
TEST(ShardedRunTest, AnUnsignedRunResumedWithSignScoresItsShardsAgain) {
  if (!HavePython()) GTEST_SKIP() << "no python3 that imports torch";
  Workspace space;
  const std::string out = space.dir() / "run";
  Result<KeyPair> pair = NewKeyPair();
  ASSERT_TRUE(pair.ok());
  const std::string key = space.dir() / "key";
  ASSERT_TRUE(WriteFileAtomic(key, pair->private_pem, 0600).ok());
  StartedRatchet started = StartRatchet(space.Args(out, {"--executor", "local"}));
  ASSERT_TRUE(WaitForRun(out, [](const Json& run) { return CountState(run, "done") >= 1; }, 120));
  kill(started.pid, SIGINT);
  ASSERT_EQ(FinishRatchet(started).exit_code, 130);
  const auto [scored, record] = DoneShard(RunJson(out));
  ASSERT_FALSE(scored.empty());
  BinaryRun resumed = RunRatchet({"run", "--resume", out, "--sign", key});
  ASSERT_EQ(resumed.exit_code, 0) << resumed.out << resumed.err;
  ExpectCompleteAndStanding(out, space.rules());
  for (const Json& shard : RunJson(out)["shards"]) {
    EXPECT_TRUE(CheckSignature(out + "/shards/" + shard["id"].get<std::string>()).valid);
    if (shard["id"] == scored) {
      EXPECT_EQ(shard["attempts"].size(), 2u) << shard.dump(2);
    }
  }
}

class SlurmRunTest : public SlurmClusterTest {
 protected:
  void SetUp() override {
    SlurmClusterTest::SetUp();
    if (IsSkipped() || HasFatalFailure()) return;
    if (!HavePython()) GTEST_SKIP() << "no python3 that imports torch";
  }
  // The Slurm options of a run whose folders are under the test's.
  std::vector<std::string> Slurm(const Workspace& space) {
    const std::string folder = space.dir() / "slurm";
    std::filesystem::create_directories(folder);
    return {"--executor", "slurm", "--slurm-folder", folder};
  }
  // The job array task ids Slurm runs now ("12_0").
  static std::vector<std::string> RunningTasks() {
    Result<ProcessResult> listed = RunProcess(
        {"squeue", "--array", "--noheader", "--states=RUNNING", "--Format=JobArrayID:40"}, 30);
    std::vector<std::string> tasks;
    if (!listed.ok()) return tasks;
    std::stringstream lines(listed->out);
    for (std::string task; lines >> task;) tasks.push_back(task);
    return tasks;
  }
};

// The bundled baseline: the same outcomes and exit code through Slurm, two shards at once, as
// through the local executor. Under the fast rule set (its contract then differs from the
// baseline's in both runs alike): the default rules' timing, on this busy 2-core machine, can
// break a timing rule in one run and not the other.
TEST_F(SlurmRunTest, TheBundledBaselineGivesWhatTheLocalExecutorGives) {
  TempDir dir;
  std::filesystem::create_directories(dir / "slurm");
  const std::string rules = FastRules(dir);
  const std::string baseline = SourceDir() + "/baselines/records.json";
  BinaryRun local = RunRatchet({"run", "--baseline", baseline, "--rules", rules, "--executor",
                                "local", "--json", "--out", dir / "local"});
  BinaryRun slurm = RunRatchet({"run", "--baseline", baseline, "--rules", rules, "--executor",
                                "slurm", "--slurm-folder", dir / "slurm", "--json", "--out",
                                dir / "slurm-run"});
  ASSERT_NE(local.exit_code, 3) << local.err;
  ASSERT_NE(slurm.exit_code, 3) << slurm.err;
  const Json a = Json::parse(local.out), b = Json::parse(slurm.out);
  EXPECT_EQ(slurm.exit_code, local.exit_code) << local.out << "\n" << slurm.out;
  ASSERT_EQ(a["records"].size(), 3u) << local.out;
  ASSERT_EQ(a["records"].size(), b["records"].size());
  for (const auto& [id, record] : a["records"].items()) {
    const Json& other = b["records"][id];
    // The outcome compared is the second scoring's where there is one.
    const Json& mine = record.contains("rerun") ? record["rerun"] : record;
    const Json& theirs = other.contains("rerun") ? other["rerun"] : other;
    EXPECT_EQ(mine["outcome"], theirs["outcome"]) << id;
    EXPECT_EQ(mine["sha256"], theirs["sha256"]) << id;
  }
  EXPECT_EQ(a["errors"], b["errors"]);
  // The shards ran side by side: some two attempts overlap in time.
  const Json run = RunJson(dir / "slurm-run");
  bool overlapped = false;
  for (const Json& x : run["shards"]) {
    for (const Json& y : run["shards"]) {
      if (x["id"] == y["id"]) continue;
      const Json& p = x["attempts"].back();
      const Json& q = y["attempts"].back();
      overlapped = overlapped || (p["started"] < q["ended"] && q["started"] < p["ended"] &&
                                  p["job"] != q["job"]);
    }
    EXPECT_EQ(x["attempts"].back()["executor"], "slurm");
    EXPECT_FALSE(x["attempts"].back()["job"].is_null());
  }
  EXPECT_TRUE(overlapped) << run["shards"].dump(2);
  ExpectCompleteAndStanding(dir / "slurm-run", rules);
}

// A task cancelled by someone else (scancel) and a slurmd killed and restarted: each shard it
// hit is scored again, and the run completes.
TEST_F(SlurmRunTest, ACancelledTaskAndAKilledSlurmdEndInACompleteRun) {
  Workspace space;
  const std::string out = space.dir() / "run";
  StartedRatchet started = StartRatchet(space.Args(out, Slurm(space)));
  std::string cancelled;
  const auto until = std::chrono::steady_clock::now() + std::chrono::seconds(120);
  while (cancelled.empty() && std::chrono::steady_clock::now() < until) {
    std::vector<std::string> tasks = RunningTasks();
    if (!tasks.empty()) {
      cancelled = tasks.front();
      ASSERT_TRUE(RunProcess({"scancel", cancelled}, 30).ok());
    } else {
      std::this_thread::sleep_for(std::chrono::milliseconds(200));
    }
  }
  ASSERT_FALSE(cancelled.empty()) << "no task was seen running";
  // A node that goes away and comes back.
  std::string error;
  ASSERT_TRUE(RestartSlurmd(&error)) << error;
  BinaryRun run = FinishRatchet(started);
  ASSERT_EQ(run.exit_code, 0) << run.out << run.err;
  ExpectCompleteAndStanding(out, space.rules());
  bool retried = false;
  const Json ended = RunJson(out);
  for (const Json& shard : ended["shards"]) {
    const Json& attempts = shard["attempts"];
    if (attempts.size() >= 2 && attempts[0]["end"] == "fault" && attempts[0]["job"] == cancelled) {
      retried = true;
      EXPECT_EQ(attempts.back()["end"], "scored");
    }
  }
  EXPECT_TRUE(retried) << "the cancelled task " << cancelled << " was not retried:\n"
                       << ended["shards"].dump(2);
}

// SIGINT during a Slurm run cancels its jobs and exits 130; --resume completes it.
TEST_F(SlurmRunTest, AnInterruptCancelsTheJobsAndResumeCompletesTheRun) {
  Workspace space;
  const std::string out = space.dir() / "run";
  StartedRatchet started = StartRatchet(space.Args(out, Slurm(space)));
  ASSERT_TRUE(WaitForRun(out, [](const Json& run) { return CountState(run, "done") >= 1; }, 120));
  kill(started.pid, SIGINT);
  BinaryRun stopped = FinishRatchet(started);
  ASSERT_EQ(stopped.exit_code, 130) << stopped.out << stopped.err;
  EXPECT_EQ(RunJson(out)["state"], "interrupted");
  EXPECT_TRUE(RunningTasks().empty()) << "a job of the run still runs";
  BinaryRun resumed = RunRatchet({"run", "--resume", out});
  ASSERT_EQ(resumed.exit_code, 0) << resumed.out << resumed.err;
  EXPECT_TRUE(Contains(resumed.out, "kept")) << resumed.out;
  ExpectCompleteAndStanding(out, space.rules());
}

}  // namespace
}  // namespace ratchet
