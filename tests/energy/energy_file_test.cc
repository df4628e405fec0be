// energy.json's owner (energy/energy_file.h): the bundled evidence's measured columns are read
// by its reader and written again by its writer to the same bytes, and no folder of runner/ but
// energy/ spells a key that only energy.json holds.
#include "energy/energy_file.h"

#include <gtest/gtest.h>

#include <filesystem>
#include <functional>
#include <map>
#include <set>
#include <string>

#include "core/file.h"
#include "evidence/fields.h"
#include "rules/rule_set.h"
#include "support/checkout.h"

namespace ratchet {
namespace {

namespace fs = std::filesystem;

Json ReadJsonFile(const std::string& path) {
  Result<std::string> text = ReadFile(path);
  EXPECT_TRUE(text.ok()) << path;
  Result<Json> json = ParseJson(text.ok() ? *text : "null", path);
  EXPECT_TRUE(json.ok()) << path;
  return json.ok() ? *json : Json();
}

// Every energy.json of the bundled evidence, by path.
std::vector<fs::path> BundledEnergyFiles() {
  std::vector<fs::path> files;
  for (const auto& entry : fs::recursive_directory_iterator(SourceDir() + "/baselines/evidence")) {
    if (entry.is_regular_file() && entry.path().filename() == "energy.json") {
      files.push_back(entry.path());
    }
  }
  return files;
}

TEST(EnergyFileTest, TheBundledColumnsAreWrittenAgainToTheirBytes) {
  Result<RuleSet> rules = LoadRuleSet(std::nullopt);
  ASSERT_TRUE(rules.ok()) << rules.status().message();
  size_t measured = 0;
  for (const fs::path& path : BundledEnergyFiles()) {
    const Json energy = ReadJsonFile(path);
    if (!IsMeasuredColumn(energy)) continue;
    ++measured;
    // records/<id>/run-<n>/energy.json: the record's band is in the run's report.json.
    const fs::path evidence = path.parent_path().parent_path().parent_path().parent_path();
    const std::string id = path.parent_path().parent_path().filename();
    const Json report = ReadJsonFile(evidence / "report.json");
    FindingLines findings;
    FieldReader reader(path.string(), &findings);
    std::optional<std::vector<EnergyWindow>> windows = ReadEnergyWindows(energy, "", reader);
    ASSERT_TRUE(windows.has_value()) << findings.Joined();
    const Json device = EnergyDevice(energy);
    Result<EnergyColumn> column = RecomputeEnergy(
        *windows, device["name"].get<std::string>(),
        energy["timed_mnist_ms_median"].get<double>(),
        report["records"][id]["band_bp"].get<int64_t>(), *rules);
    ASSERT_TRUE(column.ok()) << column.status().message();
    const Json written = EnergyColumnJson(*column, *windows, device, {{"draws", energy["draws"]}});
    Result<std::string> bytes = CanonicalJson(written), kept = CanonicalJson(energy);
    ASSERT_TRUE(bytes.ok() && kept.ok());
    EXPECT_EQ(*bytes, *kept) << path;
    EXPECT_EQ(*ClaimedEnergyMj(energy), *column->mj_per_call) << path;
  }
  EXPECT_GT(measured, 0u) << "no measured energy.json in the bundled evidence";
}

// The keys of energy.json (and of its summary, which report.json keeps as a run's `energy`
// entry) that no other file of the bundled evidence holds elsewhere.
std::set<std::string> KeysOnlyEnergyJsonHolds() {
  std::map<std::string, std::set<std::string>> keys_by_file;
  // `in_runs` is true inside an array under a key "runs": its items' "energy" is energy.json's.
  std::function<void(const Json&, bool, std::set<std::string>*)> walk =
      [&](const Json& value, bool in_runs, std::set<std::string>* keys) {
        if (value.is_object()) {
          for (auto it = value.begin(); it != value.end(); ++it) {
            if (in_runs && it.key() == "energy") continue;
            keys->insert(it.key());
            if (it.key() == "runs" && it.value().is_array()) {
              for (const Json& run : it.value()) walk(run, true, keys);
            } else {
              walk(it.value(), false, keys);
            }
          }
        } else if (value.is_array()) {
          for (const Json& item : value) walk(item, false, keys);
        }
      };
  std::set<std::string> energy;
  for (const auto& entry : fs::recursive_directory_iterator(SourceDir() + "/baselines/evidence")) {
    if (!entry.is_regular_file() || entry.path().extension() != ".json") continue;
    const std::string file = entry.path().filename();
    walk(ReadJsonFile(entry.path()), false, file == "energy.json" ? &energy : &keys_by_file[file]);
  }
  for (const auto& [file, keys] : keys_by_file) {
    for (const std::string& key : keys) energy.erase(key);
  }
  return energy;
}

TEST(EnergyFileTest, NoFolderButItsOwnersSpellsAKeyOnlyEnergyJsonHolds) {
  const std::set<std::string> keys = KeysOnlyEnergyJsonHolds();
  for (const char* key : {"joules", "utilization_max", "idle_w", "gross_mj_per_call", "reason"}) {
    ASSERT_TRUE(keys.count(key)) << key << " is not among energy.json's own keys";
  }
  // The same word with another meaning in each of these files.
  const std::map<std::string, std::set<std::string>> other_meaning = {
      // the worker protocol's telemetry reference command
      {"worker/ratchet_worker.cc", {"dim", "exact", "reference", "seconds"}},
      // the run page's own data (each window's watts), and its plot's band
      {"cli/html_report.cc", {"band", "seconds", "windows"}},
      {"cli/html_report.h", {"band", "seconds", "windows"}},
      // the command's --band option
      {"cli/score_command.cc", {"band"}},
      // a promotion's reason, in records.json
      {"baseline/baseline.cc", {"reason"}},
      {"cli/promote_command.cc", {"reason"}},
      // a shard attempt's seconds, in run.json
      {"shard/shards.cc", {"seconds"}},
      {"shard/sharded_run.cc", {"seconds"}},
      // the reference window's name, and a window's seconds in a finding's path
      {"audit/energy_column.cc", {"reference", "seconds"}},
  };
  const fs::path runner = SourceDir() + "/runner";
  for (const auto& entry : fs::recursive_directory_iterator(runner)) {
    const std::string relative = fs::relative(entry.path(), runner).string();
    const std::string extension = entry.path().extension().string();
    if (!entry.is_regular_file() || (extension != ".cc" && extension != ".h")) continue;
    if (relative.rfind("energy/", 0) == 0) continue;  // the owner's folder
    Result<std::string> text = ReadFile(entry.path());
    ASSERT_TRUE(text.ok());
    auto allowed = other_meaning.find(relative);
    for (const std::string& key : keys) {
      if (allowed != other_meaning.end() && allowed->second.count(key)) continue;
      EXPECT_EQ(text->find("\"" + key + "\""), std::string::npos)
          << "runner/" << relative << " spells energy.json's key \"" << key
          << "\": read it through energy/energy_file.h";
    }
  }
}

}  // namespace
}  // namespace ratchet
