// The tamper battery over a real sharded run: two runs of `ratchet run --executor local` (one
// record, two runs, so two shards; ncm.py under a fast rule set), one signed and one not, each
// changed in every way one byte can be changed and verified in-process as each consumer verifies
// it: the whole run by AuditShardedRun (the audit, promote, compare, report: through
// shard/verified_evidence.h), and each changed shard by VerifyShard as --resume and collect
// verify it, before the run has a manifest of its own:
//
// - signed, manifests as they were: every byte of every file the run's manifests cover (run.json,
//   MANIFEST.json, SIGNATURE.json, each shard's files) changed alone (its lowest bit flipped)
//   breaks the claim, and a changed shard is refused at resume and collect; a byte of a file no
//   manifest covers (an attempt's log) never changes what the run claims;
// - unsigned, each change resealed the way a forger would (the shard's MANIFEST.json written again
//   over its files as the audit's fixture writes one, the run's MANIFEST.json over run.json and
//   the shards' manifests): the claim does not stand, or it claims exactly what the untouched run
//   claims; and resume and collect refuse the shard or count exactly its untouched entry;
// - between collect and the seal: a shard resealed after collect verified it, or run.json
//   changed, is never sealed (SealShardedRun names only the bytes verified).
//
// Time: each test makes the one run it needs (some 30 s; ctest runs each test in a process of its
// own). An audit of the run without the labels' re-count reads and hashes every file (some
// milliseconds); a re-count regenerates each call's draw (some 50 ms a call). So every byte of
// every file up to 1 KiB is taken, larger files at a stride of 53 bytes, the labels (10,000
// bytes each) at a stride of 401, and only the resealed labels' changes are re-counted, at a
// stride of 2003. A changed byte is written in place (no fsync): the copy is scratch.
#include <gtest/gtest.h>

#include <cstring>
#include <filesystem>
#include <fstream>
#include <map>
#include <memory>
#include <optional>
#include <sstream>
#include <string>
#include <vector>

#include "audit/evidence.h"
#include "audit/fixture.h"
#include "audit/result.h"
#include "core/canonical_json.h"
#include "core/file.h"
#include "core/sha256.h"
#include "data/locate.h"
#include "evidence/signature.h"
#include "rules/pyformat.h"
#include "rules/rule_set.h"
#include "shard/collect.h"
#include "shard/sharded_run.h"
#include "shard/verify.h"
#include "support/checkout.h"
#include "support/fast_rules.h"
#include "support/run_binary.h"
#include "support/temp_dir.h"

namespace ratchet {
namespace {

namespace fs = std::filesystem;

// Primes, so that the bytes taken fall on every place of a repeating pattern alike.
constexpr size_t kLabelStride = 401;
constexpr size_t kRecountStride = 2003;
constexpr size_t kBigStride = 53;  // a file over kSmall bytes other than labels
constexpr size_t kSmall = 1024;
constexpr size_t kShown = 20;  // failures printed

struct Runs {
  TempDir dir;
  std::string rules_path;
  std::string signed_run, unsigned_run;
  EvidenceAuditOptions options;  // the fast rule set, the datasets located once
  std::string skip;              // why the battery cannot run here
};
Runs* runs = nullptr;

bool IsLabels(const std::string& file) { return file.find("/labels/") != std::string::npos; }
bool IsLog(const std::string& file) { return file.rfind("logs/", 0) == 0; }

// Every regular file of `dir`, relative, sorted.
std::vector<std::string> FilesOf(const std::string& dir) {
  std::vector<std::string> files;
  for (const auto& entry : fs::recursive_directory_iterator(dir)) {
    if (entry.is_regular_file()) files.push_back(fs::relative(entry.path(), dir).string());
  }
  std::sort(files.begin(), files.end());
  return files;
}

// `bytes` written over `path` in place, without WriteFileAtomic's fsync: the copy is scratch.
void Overwrite(const std::string& path, const std::string& bytes) {
  std::ofstream out(path, std::ios::binary | std::ios::trunc);
  out.write(bytes.data(), static_cast<std::streamsize>(bytes.size()));
  ASSERT_TRUE(out.good()) << path;
}

AuditResult Audit(const std::string& dir, bool recount) {
  EvidenceAuditOptions options = runs->options;
  options.recount = recount;
  AuditResult result;
  result.path = dir;
  Status status = AuditShardedRun(dir, options, &result);
  if (!status.ok()) result.Breaks("", "the audit ended: " + status.message());
  return result;
}

// What a run claims as the audit re-derives it: each record's scorings, and the verdict.
std::string Claims(const AuditResult& result) {
  std::ostringstream out;
  out << (result.verdict() == AuditVerdict::kStands ? "stands" : "does not stand") << "\n";
  auto scoring = [&](const AuditedScoring& s) {
    out << s.sha256 << " " << s.band_bp << " " << (s.qualified ? "qualified" : "disqualified");
    for (const std::string& rule : s.broken) out << " " << rule;
    out << " " << (s.ranked_ms ? FormatFixed(*s.ranked_ms, 6) : std::string("-")) << "\n";
  };
  for (const auto& [id, record] : result.records) {
    out << id << ": ";
    scoring(record.first);
    if (record.rerun) scoring(*record.rerun);
  }
  for (const std::string& claim : result.claims) out << claim << "\n";
  return out.str();
}

// Shard `id` of `dir`'s run, as its run.json lists it.
const Shard* ShardNamed(const ShardedRun& run, const std::string& id) {
  for (const ShardedRunShard& s : run.shards) {
    if (s.shard.id == id) return &s.shard;
  }
  return nullptr;
}

// What collect would count of the shard folder `shard` ("shards/<id>") of `dir`, verified as
// --resume and collect verify it before the run has a manifest (VerifyShard, under the run's key
// when it has one): its entry, or "refused". `recount`: as the audit's.
std::string Counted(const std::string& dir, const ShardedRun& run, const std::string& shard,
                    bool recount) {
  const Shard* named = ShardNamed(run, shard.substr(std::strlen("shards/")));
  if (named == nullptr) return "no such shard";
  ShardVerification verification{run.seed, runs->options};
  verification.options.recount = recount;
  Result<ReportEntry> entry = verification.Entry(dir, run, *named);
  return entry.ok() ? ReportEntryJson(*entry).dump() : "refused";
}

std::string FirstFinding(const AuditResult& result) {
  for (const AuditFinding& finding : result.findings) {
    if (finding.kind == AuditFinding::Kind::kBreaks) return finding.where + ": " + finding.message;
  }
  return "(none)";
}

// The shard folder a file of the run lies in ("" for a file at the top or under logs/).
std::string ShardOf(const std::string& file) {
  if (file.rfind("shards/", 0) != 0) return "";
  const size_t slash = file.find('/', 7);
  return slash == std::string::npos ? "" : file.substr(0, slash);
}

// The run's MANIFEST.json made to list run.json and every shard's MANIFEST.json as they are now.
void ResealRun(const std::string& dir) {
  Json manifest = Json::parse(*ReadFile(dir + "/MANIFEST.json"));
  for (auto& [name, sha256] : manifest["files"].items()) sha256 = *Sha256File(dir + "/" + name);
  ASSERT_NO_FATAL_FAILURE(Overwrite(dir + "/MANIFEST.json", manifest.dump(2) + "\n"));
}

// The workspace every run of this process shares: a baseline of one record of two runs under the
// fast rule set, and the datasets located once.
void MakeWorkspace() {
  const std::string folder = runs->dir.path();
  runs->rules_path = FastRules(runs->dir);
  fs::create_directories(folder + "/submissions");
  fs::copy_file(SourceDir() + "/baselines/submissions/ncm.py", folder + "/submissions/ncm.py");
  BinaryRun contract = RunRatchet({"contract", "--json", "--rules", runs->rules_path});
  ASSERT_EQ(contract.exit_code, 0) << contract.err;
  Json records = {{"a",
                   {{"submission", "submissions/ncm.py"},
                    {"band_bp", 3000},
                    {"runs", 2},
                    {"expected", {{"status", "qualified"}, {"broken", Json::array()}}},
                    {"reason", "the nearest class mean, at a loose band"},
                    {"sha256", *Sha256File(folder + "/submissions/ncm.py")}}}};
  Json baseline = {{"schema", "ratchet.baseline/1"},
                   {"contract",
                    {{"locked", Json::parse(contract.out)["locked"]},
                     {"rule_set", FastRulesJson()}}},
                   {"lanes", Json::object()},
                   {"records", records}};
  ASSERT_TRUE(WriteFileAtomic(folder + "/records.json", baseline.dump(2) + "\n").ok());
  Result<RuleSet> rules = LoadRuleSet(runs->rules_path);
  ASSERT_TRUE(rules.ok()) << rules.status().ToString();
  runs->options.rules = *rules;
  Result<DataSearch> search = MakeDataSearch(std::nullopt);
  ASSERT_TRUE(search.ok());
  Result<std::vector<LocatedDataset>> located = LocateDatasets(*search);
  ASSERT_TRUE(located.ok()) << located.status().ToString();
  runs->options.datasets = *located;
}

// `ratchet run --executor local --jobs 2` of the workspace's baseline into `out`, signed or not;
// each test makes only the run it needs (ctest runs each test in a process of its own).
void MakeRun(const std::string& out, bool sign) {
  const std::string folder = runs->dir.path();
  std::vector<std::string> args = {"run", "--baseline", folder + "/records.json", "--rules",
                                   runs->rules_path, "--out", out, "--executor", "local",
                                   "--jobs", "2"};
  if (sign) {
    Result<KeyPair> key = NewKeyPair();
    ASSERT_TRUE(key.ok());
    ASSERT_TRUE(WriteFileAtomic(folder + "/key", key->private_pem, 0600).ok());
    args.insert(args.end(), {"--sign", folder + "/key"});
  }
  BinaryRun run = RunRatchet(args);
  ASSERT_EQ(run.exit_code, 0) << run.out << run.err;
  // The untouched run stands, its record qualified: what every change is held against.
  const AuditResult audit = Audit(out, true);
  ASSERT_EQ(audit.verdict(), AuditVerdict::kStands) << FirstFinding(audit);
  ASSERT_EQ(audit.records.count("a"), 1u);
  ASSERT_TRUE(audit.records.at("a").first.qualified);
  ASSERT_EQ(!audit.signed_by.empty(), sign);
}

class ShardedTamperBattery : public ::testing::Test {
 protected:
  static void SetUpTestSuite() {
    runs = new Runs;
    if (!HavePython()) {
      runs->skip = "no python3 that imports torch";
      return;
    }
    MakeWorkspace();
  }
  static void TearDownTestSuite() {
    delete runs;
    runs = nullptr;
  }
  void SetUp() override {
    if (!runs->skip.empty()) GTEST_SKIP() << runs->skip;
    ASSERT_TRUE(runs->options.datasets.has_value()) << "the workspace was not made";
  }
};

// Signed, nothing resealed: any byte a manifest covers breaks the claim; an attempt's log, which
// none covers, claims nothing.
TEST_F(ShardedTamperBattery, EveryByteChangedAloneInASignedRunBreaksItsClaim) {
  runs->signed_run = runs->dir / "signed";
  ASSERT_NO_FATAL_FAILURE(MakeRun(runs->signed_run, true));
  const std::string original = Claims(Audit(runs->signed_run, false));
  TempDir scratch;
  const std::string copy = scratch / "run";
  fs::copy(runs->signed_run, copy, fs::copy_options::recursive);
  Result<ShardedRun> run = ReadShardedRun(copy);
  ASSERT_TRUE(run.ok()) << run.status().ToString();
  size_t changes = 0, failures = 0;
  for (const std::string& file : FilesOf(copy)) {
    Result<std::string> bytes = ReadFile(copy + "/" + file);
    ASSERT_TRUE(bytes.ok()) << file;
    const std::string shard = ShardOf(file);
    const size_t stride =
        IsLabels(file) ? kLabelStride : bytes->size() > kSmall ? kBigStride : 1;
    for (size_t at = 0; at < bytes->size(); at += stride) {
      std::string changed = *bytes;
      changed[at] = static_cast<char>(changed[at] ^ 1);
      ASSERT_NO_FATAL_FAILURE(Overwrite(copy + "/" + file, changed));
      const AuditResult audit = Audit(copy, false);
      ++changes;
      const bool stands = audit.verdict() == AuditVerdict::kStands;
      const bool ok = IsLog(file) ? Claims(audit) == original : !stands;
      if (!ok && ++failures <= kShown) {
        ADD_FAILURE() << file << " byte " << at << ": "
                      << (stands ? "the claim still stands" : "the claim changed: " +
                                                                  FirstFinding(audit));
      }
      // At --resume and at collect, before the run has a manifest of its own, the shard's own
      // verification under the run's key refuses it.
      if (!shard.empty() && Counted(copy, *run, shard, false) != "refused" && ++failures <= kShown) {
        ADD_FAILURE() << file << " byte " << at << ": its shard is still counted";
      }
    }
    ASSERT_NO_FATAL_FAILURE(Overwrite(copy + "/" + file, *bytes));
  }
  EXPECT_EQ(failures, 0u) << failures << " of " << changes << " changes";
  EXPECT_GT(changes, 300u);
}

// Unsigned, each change resealed up to the run's manifest: the claim does not stand, or it is
// exactly the untouched run's.
TEST_F(ShardedTamperBattery, EveryByteChangedAndResealedInAnUnsignedRunBreaksOrLeavesItsClaim) {
  runs->unsigned_run = runs->dir / "unsigned";
  ASSERT_NO_FATAL_FAILURE(MakeRun(runs->unsigned_run, false));
  const std::string original = Claims(Audit(runs->unsigned_run, true));
  TempDir scratch;
  const std::string copy = scratch / "run";
  fs::copy(runs->unsigned_run, copy, fs::copy_options::recursive);
  const std::string run_manifest = *ReadFile(copy + "/MANIFEST.json");
  Result<ShardedRun> run = ReadShardedRun(copy);
  ASSERT_TRUE(run.ok()) << run.status().ToString();
  std::map<std::string, std::string> counted;  // each shard's entry, untouched
  for (const ShardedRunShard& s : run->shards) {
    counted["shards/" + s.shard.id] = Counted(copy, *run, "shards/" + s.shard.id, true);
    ASSERT_NE(counted["shards/" + s.shard.id], "refused") << s.shard.id;
  }
  size_t changes = 0, failures = 0;
  for (const std::string& file : FilesOf(copy)) {
    if (file == "MANIFEST.json" || IsLog(file)) continue;  // the resealing writes the first
    const std::string shard = ShardOf(file);
    if (!shard.empty() && fs::path(file).filename() == "MANIFEST.json") continue;
    Result<std::string> bytes = ReadFile(copy + "/" + file);
    ASSERT_TRUE(bytes.ok()) << file;
    const std::string shard_manifest =
        shard.empty() ? "" : *ReadFile(copy + "/" + shard + "/MANIFEST.json");
    const size_t stride =
        IsLabels(file) ? kRecountStride : bytes->size() > kSmall ? kBigStride : 1;
    for (size_t at = 0; at < bytes->size(); at += stride) {
      std::string changed = *bytes;
      changed[at] = static_cast<char>(changed[at] ^ 1);
      ASSERT_NO_FATAL_FAILURE(Overwrite(copy + "/" + file, changed));
      if (!shard.empty()) {
        ASSERT_TRUE(Remanifest(copy + "/" + shard).ok());
      }
      ResealRun(copy);
      const AuditResult audit = Audit(copy, IsLabels(file));
      ++changes;
      const bool ok = audit.verdict() != AuditVerdict::kStands || Claims(audit) == original;
      if (!ok && ++failures <= kShown) {
        ADD_FAILURE() << file << " byte " << at << " resealed: the claim stands and changed:\n"
                      << Claims(audit);
      }
      // At --resume and at collect, with no manifest of the run's yet: the resealed shard is
      // refused, or counted exactly as it was.
      if (!shard.empty()) {
        const std::string now = Counted(copy, *run, shard, IsLabels(file));
        if (now != "refused" && now != counted[shard] && ++failures <= kShown) {
          ADD_FAILURE() << file << " byte " << at << " resealed: its shard is counted as " << now;
        }
      }
      if (!shard.empty()) {
        ASSERT_NO_FATAL_FAILURE(Overwrite(copy + "/" + shard + "/MANIFEST.json", shard_manifest));
      }
    }
    ASSERT_NO_FATAL_FAILURE(Overwrite(copy + "/" + file, *bytes));
    ASSERT_NO_FATAL_FAILURE(Overwrite(copy + "/MANIFEST.json", run_manifest));
  }
  EXPECT_EQ(failures, 0u) << failures << " of " << changes << " changes";
  EXPECT_GT(changes, 300u);

  // Between collect and the seal: the run's manifest names the shard manifests as collect's
  // verification read them, and run.json as written; a shard resealed after it was verified, or
  // run.json changed, leaves the run unsealed and nothing written.
  std::map<std::string, std::string> verified;
  ShardVerification verification{run->seed, runs->options};
  for (const ShardedRunShard& s : run->shards) {
    ASSERT_TRUE(verification.Entry(copy, *run, s.shard, &verified[s.shard.id]).ok());
  }
  fs::remove(copy + "/MANIFEST.json");
  ASSERT_TRUE(SealShardedRun(copy, *run, verified, std::nullopt).ok());
  EXPECT_EQ(*ReadFile(copy + "/MANIFEST.json"), run_manifest) << "sealed again, unchanged";
  fs::remove(copy + "/MANIFEST.json");
  for (const std::string& file : FilesOf(copy)) {
    const std::string shard = ShardOf(file);
    if (fs::path(file).filename() != "report.json" && file != "run.json") continue;
    const std::string bytes = *ReadFile(copy + "/" + file);
    std::string changed = bytes;
    changed[changed.size() / 2] = static_cast<char>(changed[changed.size() / 2] ^ 1);
    ASSERT_NO_FATAL_FAILURE(Overwrite(copy + "/" + file, changed));
    const std::string shard_manifest =
        shard.empty() ? "" : *ReadFile(copy + "/" + shard + "/MANIFEST.json");
    if (!shard.empty()) {
      ASSERT_TRUE(Remanifest(copy + "/" + shard).ok());
    }
    const Status sealed = SealShardedRun(copy, *run, verified, std::nullopt);
    EXPECT_FALSE(sealed.ok()) << file << " changed after collect, and the run was sealed";
    EXPECT_NE(sealed.message().find("changed after it was verified"), std::string::npos)
        << sealed.message();
    EXPECT_FALSE(fs::exists(copy + "/MANIFEST.json")) << file;
    ASSERT_NO_FATAL_FAILURE(Overwrite(copy + "/" + file, bytes));
    if (!shard.empty()) {
      ASSERT_NO_FATAL_FAILURE(Overwrite(copy + "/" + shard + "/MANIFEST.json", shard_manifest));
    }
  }
  // A shard collect did not verify is never sealed over.
  verified.erase(verified.begin());
  EXPECT_FALSE(SealShardedRun(copy, *run, verified, std::nullopt).ok());
}

}  // namespace
}  // namespace ratchet
