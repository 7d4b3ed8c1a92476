// ShardPlan: how `locksmith suite FILE --shard I/N` splits a suite over N
// machines (a CI matrix), as Playwright's --shard does. The unit is one run
// (a cell's repeat), so a cell of 30 repeats spreads too. The split is a
// pure function of the suite and N: every shard computes the whole plan and
// keeps its share, so no shard needs to hear from another, and each run
// keeps the seed it has in the unsharded suite. Runs go to shards by
// planned time, longest first, each to the least loaded shard (ties to the
// lowest), so shards end close together. Pure but for reading the
// environment in ShardFromEnvironment; thread-safe.
#pragma once

#include <cstdint>
#include <functional>
#include <string>
#include <string_view>
#include <vector>

#include "base/result.h"
#include "harness/suite_file.h"

namespace locksmith {

inline constexpr int kMaxShards = 1000;

// Shard `index` of `total`, counted from 1 as CI systems count their jobs.
struct ShardSpec {
  int index = 1;
  int total = 1;
  std::string Text() const { return std::to_string(index) + "/" + std::to_string(total); }
};

// "I/N" (1 <= I <= N <= kMaxShards); errors name --shard.
Result<ShardSpec> ParseShardSpec(std::string_view text);

// --shard auto: GitLab's CI_NODE_INDEX and CI_NODE_TOTAL (`parallel: N`),
// else LOCKSMITH_SHARD=I/N (set from a GitHub Actions matrix). Neither, or
// a bad value, is an error naming the variable. `getenv` is ::getenv in use.
Result<ShardSpec> ShardFromEnvironment(const std::function<const char*(const char*)>& getenv);

// What a run is planned to cost: its time limit and the set-up and teardown
// every run pays around it (docs/nightly.md measures both).
inline constexpr double kRunOverheadS = 4;
double PlannedSeconds(const RunConfig& config);

// One run of a suite, as planned before any starts.
struct PlannedRun {
  size_t cell = 0;  // index in Suite::cells
  int repeat = 0;
  uint64_t seed = 0;
  double planned_s = 0;
};

// Every run of `suite` in suite order (cells, then repeats), with the seed
// it runs with when the suite's seed is `suite_seed`: a cell's own seed, or
// one derived from the suite's and the cell's place, then RepeatSeed.
std::vector<PlannedRun> PlanSuiteRuns(const Suite& suite, uint64_t suite_seed);

// The shard (0-based) of each of `planned_s`'s runs among `total` shards:
// longest first, each to the least loaded shard so far; ties in time keep
// suite order, ties in load go to the lowest shard.
std::vector<int> AssignShards(const std::vector<double>& planned_s, int total);

// The runs of `plan` that shard `spec` runs, in suite order.
std::vector<PlannedRun> ShardRuns(const std::vector<PlannedRun>& plan, const ShardSpec& spec);

// A digest of the plan: every run's cell name, repeat, seed and planned
// time. Shards whose plans differ (another --test-count, --time-limit or
// --time-scale) have different digests and are not merged.
std::string PlanDigest(const Suite& suite, const std::vector<PlannedRun>& plan);

}  // namespace locksmith
