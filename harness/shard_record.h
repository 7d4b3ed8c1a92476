// ShardRecord: what a shard's suite directory says of itself in shard.json,
// beside its summary.json: the suite file's digest, the plan's digest, the
// suite's seed, I/N, the suite's cells in order, and the runs the shard was
// given (each with its seed and planned time). `locksmith merge` reads it to
// tell whether shards belong together and whether any run is missing or
// present twice. Pure; not thread-safe.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "base/result.h"
#include "harness/shard_plan.h"

namespace locksmith {

inline constexpr int kShardRecordFormat = 1;

struct ShardRecord {
  std::string suite;         // its name
  std::string suite_digest;  // Suite::digest
  std::string plan_digest;   // PlanDigest of the whole suite's plan
  uint64_t seed = 0;         // the suite's
  ShardSpec shard;
  int suite_runs = 0;              // runs of the whole suite
  std::vector<std::string> cells;  // the whole suite's, in order
  struct Run {
    std::string cell;
    int repeat = 0;
    uint64_t seed = 0;
    double planned_s = 0;
  };
  std::vector<Run> runs;  // this shard's, in suite order
};

// The record of shard `spec` of `suite` run with `seed`.
ShardRecord MakeShardRecord(const Suite& suite, uint64_t seed, const ShardSpec& spec);

nlohmann::json ShardRecordJson(const ShardRecord& record);
// ShardRecordJson's inverse; a field missing or of the wrong type or range,
// or an unknown format, is an error naming it.
Result<ShardRecord> ShardRecordFromJson(const nlohmann::json& j);

}  // namespace locksmith
