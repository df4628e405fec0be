// run.json read back (shard/sharded_run.h): what it writes parses to the same run, and a whole
// number out of its field's range is refused naming the field, never cut to another value.
#include <gtest/gtest.h>

#include <string>

#include "shard/sharded_run.h"

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

}  // namespace
}  // namespace ratchet
