// One owner per evidence file (docs/design.md): the folders that read evidence (the audit, the
// baseline, the commands, compare, the sharded run) go through the typed readers of evidence/ and
// contract/, and spell no key that only one evidence file holds. The keys are taken from the
// bundled evidence itself, so a new field is covered once a promoted run holds it; energy.json has
// its own test (tests/energy/energy_file_test.cc). What it cannot see: a key that another file
// holds too (a report entry's "sha256" or "ranked_ms", which records.json keeps as well), a key
// the bundled evidence does not hold (a record scored again, "rerun"; a sharded run's run.json),
// and a file's own use of an allowed word for another document.
#include <gtest/gtest.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <functional>
#include <map>
#include <set>
#include <sstream>
#include <string>

#include "core/canonical_json.h"

namespace ratchet {
namespace {

namespace fs = std::filesystem;

std::string Checkout() {
  const char* dir = std::getenv("RATCHET_SOURCE_DIR");
  return dir ? dir : RATCHET_EVIDENCE_TEST_SOURCE_DIR;
}

std::string Slurp(const fs::path& path) {
  std::ifstream in(path, std::ios::binary);
  std::ostringstream text;
  text << in.rdbuf();
  return text.str();
}

void AddKeys(const Json& value, std::set<std::string>* keys) {
  if (value.is_object()) {
    for (auto it = value.begin(); it != value.end(); ++it) {
      keys->insert(it.key());
      AddKeys(it.value(), keys);
    }
  } else if (value.is_array()) {
    for (const Json& item : value) AddKeys(item, keys);
  }
}

// The keys each evidence file of the bundled evidence holds and no other file does: not another
// evidence file, not the baseline (records.json), not a rule set.
std::map<std::string, std::set<std::string>> KeysOnlyOneFileHolds() {
  std::map<std::string, std::set<std::string>> by_file;
  for (const auto& entry : fs::recursive_directory_iterator(Checkout() + "/baselines/evidence")) {
    if (!entry.is_regular_file() || entry.path().extension() != ".json") continue;
    AddKeys(Json::parse(Slurp(entry.path())), &by_file[entry.path().filename().string()]);
  }
  // The baseline keeps a contract (its "contract") and each lane's facts in contract.json's own
  // format: those are contract.json's keys, not the baseline's.
  std::set<std::string> elsewhere;
  Json baseline = Json::parse(Slurp(Checkout() + "/baselines/records.json"));
  baseline.erase("contract");
  for (auto& [id, lane] : baseline["lanes"].items()) lane.erase("facts");
  AddKeys(baseline, &elsewhere);
  for (const auto& entry : fs::directory_iterator(Checkout() + "/runner/rules")) {
    if (entry.path().extension() == ".json") AddKeys(Json::parse(Slurp(entry.path())), &elsewhere);
  }
  std::map<std::string, std::set<std::string>> only;
  for (const auto& [file, keys] : by_file) {
    for (const std::string& key : keys) {
      bool shared = elsewhere.count(key) > 0;
      for (const auto& [other, other_keys] : by_file) {
        if (other != file && other_keys.count(key)) shared = true;
      }
      if (!shared) only[file].insert(key);
    }
  }
  return only;
}

// Files of the reading folders that spell such a key for another document of their own, or as a
// word of a message, each with the keys it may spell and why.
const std::map<std::string, std::set<std::string>>& OtherMeanings() {
  static const auto* meanings = new std::map<std::string, std::set<std::string>>{
      // report.json's "ratchet" part: its owner
      {"baseline/ratchet_report.cc",
       {"baseline", "baseline_sha256", "code", "contract_changed", "errors", "lane_reviewed",
        "notes", "record", "require_lane", "rule_set"}},
      {"baseline/ratchet_report.h", {"ratchet"}},
      // run.json, the sharded run's own file: its owner (the inputs, the shards, the report it
      // collects, the exit code and the board of each attempt)
      {"shard/sharded_run.cc",
       {"baseline", "baseline_sha256", "require_lane", "record", "run", "runs", "inputs", "lane",
        "exit_code", "device_uuid", "files", "locked", "rules"}},
      {"shard/sharded_run.h", {"ratchet", "inputs"}},
      {"shard/shards.cc", {"record", "run", "device_uuid", "locked"}},  // and a shard id's hash
      // (and the run's own MANIFEST.json, of the sharded run's schema, lists its "files")
      {"shard/run_summary.h", {"ratchet"}},  // a comment naming run.json's report's parts
      // records.json's owner: a claim's outcome and function, a reviewer's public key
      {"baseline/baseline.cc", {"function", "outcome", "runs", "public_key", "scorer"}},
      {"baseline/baseline.h", {"locked"}},  // a comment: the contract it keeps
      // the reference scorer's --json records, a format of their own
      {"audit/reference_record.cc",
       {"function", "holdout", "record", "overhead_ms", "parent_ms", "torch", "source_sha256"}},
      {"audit/reference_record.h", {"function", "record"}},
      // field names in a finding's path, and words of the audit's lines ("3 runs", "135 calls")
      {"audit/evidence.cc", {"run", "runs", "call", "files"}},
      {"audit/evidence_record.cc", {"run", "runs"}},
      {"audit/evidence_run.cc", {"labels"}},  // a run folder's labels/ folder
      {"audit/run_calls.cc", {"worker"}},
      {"audit/run_verdict.cc", {"parent_ms", "overhead_ms"}},
      // the run page's own data
      {"cli/html_report.cc", {"call", "run", "runs"}},
      {"cli/html_report.h", {"call", "run", "runs"}},
      // a command's name, its options, its --json output, a table's heading
      {"cli/commands.cc", {"run"}},
      {"cli/audit_command.cc", {"rules"}},  // --rules, in each command that takes it
      {"cli/report_command.cc", {"rules"}},
      {"cli/score_args.cc", {"rules"}},
      {"cli/run_command.cc",
       {"baseline", "code", "errors", "lane", "lane_reviewed", "notes", "record", "run", "runs",
        "exit_code", "rules"}},
      {"cli/run_sharded.cc", {"ratchet", "run"}},
      {"cli/import_command.cc", {"baseline", "record", "rules"}},
      {"cli/promote_command.cc", {"baseline", "record"}},
      {"cli/score_command.cc", {"runs", "rules"}},
      {"cli/datasets_command.cc", {"labels"}},
      {"compare/render.cc", {"record"}},
      {"compare/compare.h", {"lane", "locked"}},  // comments naming a contract's parts
      // the rule sets compared as one part named "rules" (DiffContractPart)
      {"baseline/ratchet.cc", {"rules"}},
      // the scorer's own requests and its status, which the tool starts and reads
      {"cli/scorer_client.cc", {"record", "runs", "exit_code", "rule_set"}},
  };
  return *meanings;
}

TEST(EvidenceKeyOwnerTest, NoReadingFolderSpellsAKeyOnlyOneEvidenceFileHolds) {
  const std::map<std::string, std::set<std::string>> only = KeysOnlyOneFileHolds();
  // The survey sees the files it guards.
  for (const auto& [file, key] : std::map<std::string, std::string>{
           {"report.json", "lane_reviewed"},
           {"calls.json", "inputs_sha256"},
           {"contract.json", "sandbox_slot"},
           {"status.json", "exit_code"}}) {
    ASSERT_TRUE(only.count(file) && only.at(file).count(key))
        << key << " is not among the keys only " << file << " holds";
  }
  const fs::path runner = Checkout() + "/runner";
  size_t scanned = 0;
  for (const char* folder : {"audit", "baseline", "cli", "compare", "shard"}) {
    for (const auto& entry : fs::recursive_directory_iterator(runner / folder)) {
      const std::string extension = entry.path().extension().string();
      if (!entry.is_regular_file() || (extension != ".cc" && extension != ".h")) continue;
      ++scanned;
      const std::string relative = fs::relative(entry.path(), runner).string();
      const std::string text = Slurp(entry.path());
      auto allowed = OtherMeanings().find(relative);
      for (const auto& [file, keys] : only) {
        if (file == "energy.json") continue;
        for (const std::string& key : keys) {
          if (allowed != OtherMeanings().end() && allowed->second.count(key)) continue;
          EXPECT_EQ(text.find("\"" + key + "\""), std::string::npos)
              << "runner/" << relative << " spells " << file << "'s key \"" << key
              << "\": read it through its owner (evidence/, contract/contract_view.h)";
        }
      }
    }
  }
  EXPECT_GT(scanned, 50u);
}

}  // namespace
}  // namespace ratchet
