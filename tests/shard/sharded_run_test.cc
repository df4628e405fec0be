// run.json read back (shard/sharded_run.h): what it writes parses to the same run, and a whole
// number out of its field's range is refused naming the field, never cut to another value. The
// run sealed over the bytes verified (SealShardedRun), and a shard's signature held to the
// manifest bytes its audit read (CheckShardSignature).
#include <gtest/gtest.h>

#include <filesystem>
#include <map>
#include <string>

#include "core/file.h"
#include "core/sha256.h"
#include "evidence/signature.h"
#include "shard/sharded_run.h"
#include "shard/verify.h"
#include "support/temp_dir.h"

namespace ratchet {
namespace {

ShardedRun ARun() {
  ShardedRun run;
  run.state = "complete";
  run.seed_commit = std::string(64, 'a');
  run.seed = std::string(64, 'b');
  run.locked = Json::object();
  run.lane = "lane";
  run.signer = std::string(64, 'c');
  run.exit_code = 1;
  run.inputs.baseline = "/b/records.json";
  run.inputs.baseline_sha256 = std::string(64, 'f');
  run.inputs.records = {"a"};
  run.inputs.runs = 2;
  run.inputs.data = "/data";
  run.inputs.energy = false;
  run.inputs.executor = "slurm";
  run.inputs.devices = {"0", "1"};
  run.inputs.attempts = 5;
  run.inputs.slurm.folder = "/shared";
  run.inputs.slurm.gpus = 1;
  ShardedRunShard shard;
  shard.shard.id = std::string(64, 'd');
  shard.shard.record = "a";
  shard.shard.submission_sha256 = std::string(64, 'e');
  shard.shard.run = 2;
  shard.state = "done";
  run.shards.push_back(shard);
  return run;
}

TEST(ShardedRunFile, WhatItWritesParsesBack) {
  Result<ShardedRun> read = ParseShardedRun(ShardedRunJson(ARun()).dump(), "run.json");
  ASSERT_TRUE(read.ok()) << read.status().message();
  EXPECT_EQ(read->exit_code, 1);
  EXPECT_EQ(read->signer, std::string(64, 'c'));
  ASSERT_EQ(read->shards.size(), 1u);
  EXPECT_EQ(read->shards[0].shard.run, 2);
  const RunInputs& in = read->inputs;
  EXPECT_EQ(in.baseline, "/b/records.json");
  EXPECT_EQ(in.baseline_sha256, std::string(64, 'f'));
  EXPECT_EQ(in.records, std::vector<std::string>{"a"});
  EXPECT_EQ(in.runs, std::optional<int64_t>(2));
  EXPECT_EQ(in.data, std::optional<std::string>("/data"));
  EXPECT_EQ(in.rules, std::nullopt);
  EXPECT_FALSE(in.energy);
  EXPECT_EQ(in.executor, "slurm");
  EXPECT_EQ(in.devices, (std::vector<std::string>{"0", "1"}));
  EXPECT_EQ(in.attempts, 5);
  EXPECT_EQ(in.slurm.folder, "/shared");
  EXPECT_EQ(in.slurm.gpus, 1);
}

// The inputs --resume goes on with are read field by field: a missing or mistyped one is named,
// never taken as a default.
TEST(ShardedRunFile, TheRunsInputsAreReadWholeOrRefused) {
  const std::vector<std::pair<std::string, Json>> edits = {
      {"jobs", Json(int64_t{1} << 40)},  {"energy", Json("yes")},
      {"baseline_sha256", Json("ab")},   {"records", Json("a")},
      {"data", Json(3)},                 {"slurm", Json::array()}};
  for (const auto& [key, value] : edits) {
    Json run = ShardedRunJson(ARun());
    run["inputs"][key] = value;
    Result<ShardedRun> read = ParseShardedRun(run.dump(), "run.json");
    ASSERT_FALSE(read.ok()) << key;
    EXPECT_NE(read.status().message().find("run.json: inputs"), std::string::npos)
        << read.status().message();
    EXPECT_NE(read.status().message().find(key), std::string::npos) << read.status().message();
  }
  for (const char* key : {"require_lane", "runs"}) {  // "runs" may be null (no --runs), not absent
    Json run = ShardedRunJson(ARun());
    run["inputs"].erase(key);
    Result<ShardedRun> read = ParseShardedRun(run.dump(), "run.json");
    ASSERT_FALSE(read.ok()) << key;
    EXPECT_NE(read.status().message().find(std::string("no \"") + key + "\""), std::string::npos)
        << read.status().message();
  }
  Json run = ShardedRunJson(ARun());
  run["inputs"]["runs"] = nullptr;
  Result<ShardedRun> read = ParseShardedRun(run.dump(), "run.json");
  ASSERT_TRUE(read.ok()) << read.status().message();
  EXPECT_EQ(read->inputs.runs, std::nullopt);
}

TEST(ShardedRunFile, AWholeNumberOutOfRangeIsRefusedNotCut) {
  const int64_t big = int64_t{1} << 40;  // get<int> would read 0
  Json run = ShardedRunJson(ARun());
  run["shards"][0]["run"] = big;
  Result<ShardedRun> read = ParseShardedRun(run.dump(), "run.json");
  ASSERT_FALSE(read.ok());
  EXPECT_NE(read.status().message().find("run.json: shards[0]: \"run\" is not a whole number"),
            std::string::npos)
      << read.status().message();
  run = ShardedRunJson(ARun());
  run["exit_code"] = big;
  read = ParseShardedRun(run.dump(), "run.json");
  ASSERT_FALSE(read.ok());
  EXPECT_NE(read.status().message().find("\"exit_code\" is not a whole number"), std::string::npos)
      << read.status().message();
  run["exit_code"] = 1.5;
  EXPECT_FALSE(ParseShardedRun(run.dump(), "run.json").ok());
}

// A run of ARun()'s one done shard in `dir`: run.json written, the shard's MANIFEST.json `manifest`.
void WriteRun(const std::string& dir, const ShardedRun& run, const std::string& manifest) {
  std::filesystem::create_directories(dir + "/shards/" + run.shards[0].shard.id);
  ASSERT_TRUE(WriteShardedRun(dir, run).ok());
  ASSERT_TRUE(
      WriteFileAtomic(dir + "/shards/" + run.shards[0].shard.id + "/MANIFEST.json", manifest).ok());
}

TEST(SealShardedRun, NamesTheBytesVerifiedAndNothingElse) {
  TempDir dir;
  const ShardedRun run = ARun();
  const std::string id = run.shards[0].shard.id;
  ASSERT_NO_FATAL_FAILURE(WriteRun(dir.path(), run, "verified\n"));
  const std::map<std::string, std::string> verified = {{id, Sha256Hex("verified\n")}};
  Result<KeyPair> key = NewKeyPair();
  ASSERT_TRUE(key.ok());
  ASSERT_TRUE(SealShardedRun(dir.path(), run, verified, key->private_pem).ok());
  const Json manifest = Json::parse(*ReadFile(dir / "MANIFEST.json"));
  EXPECT_EQ(manifest["files"]["shards/" + id + "/MANIFEST.json"], Sha256Hex("verified\n"));
  EXPECT_EQ(manifest["files"]["run.json"], Sha256Hex(*ReadFile(dir / "run.json")));
  const SignatureCheck signature = CheckSignature(dir.path(), "MANIFEST.json");
  EXPECT_TRUE(signature.valid) << signature.problem;
  EXPECT_EQ(signature.public_hex, key->public_hex);

  // The shard's manifest rewritten after it was verified: nothing is sealed or signed.
  TempDir other;
  ASSERT_NO_FATAL_FAILURE(WriteRun(other.path(), run, "rewritten\n"));
  Status sealed = SealShardedRun(other.path(), run, verified, key->private_pem);
  ASSERT_FALSE(sealed.ok());
  EXPECT_NE(sealed.message().find("shards/" + id + "/MANIFEST.json changed after it was verified"),
            std::string::npos)
      << sealed.message();
  EXPECT_FALSE(std::filesystem::exists(other / "MANIFEST.json"));
  EXPECT_FALSE(std::filesystem::exists(other / "SIGNATURE.json"));
  // A shard that was not verified; run.json that is not the run's.
  ASSERT_NO_FATAL_FAILURE(WriteRun(other.path(), run, "verified\n"));
  sealed = SealShardedRun(other.path(), run, {}, std::nullopt);
  ASSERT_FALSE(sealed.ok());
  EXPECT_NE(sealed.message().find("was not verified as the run was collected"), std::string::npos)
      << sealed.message();
  ShardedRun changed = run;
  changed.exit_code = 0;
  sealed = SealShardedRun(other.path(), changed, verified, std::nullopt);
  ASSERT_FALSE(sealed.ok());
  EXPECT_NE(sealed.message().find("run.json changed after it was verified"), std::string::npos)
      << sealed.message();
  EXPECT_FALSE(std::filesystem::exists(other / "MANIFEST.json"));
}

// A shard is signed over the manifest bytes its verification read, and stands only over those
// its audit read.
TEST(CheckShardSignature, HoldsTheSignatureToTheManifestBytesTheAuditRead) {
  TempDir dir;
  ASSERT_TRUE(WriteFileAtomic(dir / "MANIFEST.json", "{\"files\": {}}\n").ok());
  Result<KeyPair> key = NewKeyPair();
  ASSERT_TRUE(key.ok());
  // The key signs only the bytes verified.
  ASSERT_FALSE(SignShard(dir.path(), key->private_pem, Sha256Hex("other bytes")).ok());
  EXPECT_FALSE(std::filesystem::exists(dir / "SIGNATURE.json"));
  ASSERT_TRUE(SignShard(dir.path(), key->private_pem, Sha256Hex("{\"files\": {}}\n")).ok());
  AuditResult audit;
  audit.manifest_sha256 = Sha256Hex("{\"files\": {}}\n");
  CheckShardSignature(dir.path(), key->public_hex, &audit);
  EXPECT_EQ(audit.breaking(), 0);
  audit.manifest_sha256 = Sha256Hex("other bytes");
  CheckShardSignature(dir.path(), key->public_hex, &audit);
  ASSERT_EQ(audit.breaking(), 1);
  EXPECT_EQ(audit.findings[0].where, "MANIFEST.json");
  EXPECT_NE(audit.findings[0].message.find("changed while it was read"), std::string::npos)
      << audit.findings[0].message;
  // Unsigned, a shard holds no signature; signed, it must hold the run's key's.
  AuditResult unsigned_run;
  CheckShardSignature(dir.path(), "", &unsigned_run);
  EXPECT_EQ(unsigned_run.breaking(), 1);
  Result<KeyPair> other = NewKeyPair();
  ASSERT_TRUE(other.ok());
  AuditResult other_key;
  other_key.manifest_sha256 = Sha256Hex("{\"files\": {}}\n");
  CheckShardSignature(dir.path(), other->public_hex, &other_key);
  EXPECT_EQ(other_key.breaking(), 1);
}

}  // namespace
}  // namespace ratchet
