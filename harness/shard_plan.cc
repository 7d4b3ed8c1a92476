#include "harness/shard_plan.h"

#include <algorithm>
#include <charconv>
#include <numeric>
#include <optional>

#include "base/seed.h"
#include "base/sha256.h"
#include "base/option_set.h"

namespace locksmith {
namespace {

// A whole number 1..kMaxShards, or nullopt.
std::optional<int> ShardNumber(std::string_view text) {
  int n = 0;
  auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), n);
  if (ec != std::errc() || end != text.data() + text.size() || n < 1 || n > kMaxShards) {
    return std::nullopt;
  }
  return n;
}

}  // namespace

Result<ShardSpec> ParseShardSpec(std::string_view text) {
  const std::string shape = "I/N with 1 <= I <= N <= " + std::to_string(kMaxShards);
  const size_t slash = text.find('/');
  if (slash == std::string_view::npos) {
    return Error{"--shard must be " + shape + " or auto, not " + QuoteInput(std::string(text))};
  }
  auto index = ShardNumber(text.substr(0, slash));
  auto total = ShardNumber(text.substr(slash + 1));
  if (!index || !total || *index > *total) {
    return Error{"--shard must be " + shape + ", not " + QuoteInput(std::string(text))};
  }
  return ShardSpec{*index, *total};
}

Result<ShardSpec> ShardFromEnvironment(const std::function<const char*(const char*)>& getenv) {
  const char* index = getenv("CI_NODE_INDEX");
  const char* total = getenv("CI_NODE_TOTAL");
  if (index != nullptr || total != nullptr) {
    if (index == nullptr || total == nullptr) {
      return Error{"--shard auto: GitLab sets CI_NODE_INDEX and CI_NODE_TOTAL together; only " +
                   std::string(index != nullptr ? "CI_NODE_INDEX" : "CI_NODE_TOTAL") + " is set"};
    }
    auto spec = ParseShardSpec(std::string(index) + "/" + total);
    if (!spec) {
      return Error{"--shard auto: CI_NODE_INDEX=" + QuoteInput(index) +
                   " and CI_NODE_TOTAL=" + QuoteInput(total) + " are not a shard I of N (" +
                   "1 <= I <= N <= " + std::to_string(kMaxShards) + ")"};
    }
    return spec;
  }
  if (const char* given = getenv("LOCKSMITH_SHARD"); given != nullptr) {
    auto spec = ParseShardSpec(given);
    if (!spec) return Error{"--shard auto: LOCKSMITH_SHARD: " + spec.error()};
    return spec;
  }
  return Error{"--shard auto needs CI_NODE_INDEX and CI_NODE_TOTAL (GitLab's parallel) or "
               "LOCKSMITH_SHARD=I/N (a GitHub Actions matrix); none is set"};
}

double PlannedSeconds(const RunConfig& config) { return config.time_limit_s + kRunOverheadS; }

std::vector<PlannedRun> PlanSuiteRuns(const Suite& suite, uint64_t suite_seed) {
  std::vector<PlannedRun> plan;
  for (size_t c = 0; c < suite.cells.size(); ++c) {
    const SuiteCell& cell = suite.cells[c];
    const uint64_t cell_seed = cell.config.seed ? *cell.config.seed : SubSeed(suite_seed, c);
    for (int repeat = 0; repeat < cell.test_count; ++repeat) {
      plan.push_back({c, repeat, RepeatSeed(cell_seed, repeat), PlannedSeconds(cell.config)});
    }
  }
  return plan;
}

std::vector<int> AssignShards(const std::vector<double>& planned_s, int total) {
  std::vector<size_t> order(planned_s.size());
  std::iota(order.begin(), order.end(), size_t{0});
  std::stable_sort(order.begin(), order.end(),
                   [&](size_t a, size_t b) { return planned_s[a] > planned_s[b]; });
  std::vector<double> load(static_cast<size_t>(std::max(total, 1)), 0.0);
  std::vector<int> shard_of(planned_s.size(), 0);
  for (size_t run : order) {
    // min_element: the first of equal loads, so the lowest shard.
    const auto least = std::min_element(load.begin(), load.end());
    *least += planned_s[run];
    shard_of[run] = static_cast<int>(least - load.begin());
  }
  return shard_of;
}

std::vector<PlannedRun> ShardRuns(const std::vector<PlannedRun>& plan, const ShardSpec& spec) {
  std::vector<double> planned_s;
  for (const auto& run : plan) planned_s.push_back(run.planned_s);
  const std::vector<int> shard_of = AssignShards(planned_s, spec.total);
  std::vector<PlannedRun> mine;
  for (size_t i = 0; i < plan.size(); ++i) {
    if (shard_of[i] == spec.index - 1) mine.push_back(plan[i]);
  }
  return mine;
}

std::string PlanDigest(const Suite& suite, const std::vector<PlannedRun>& plan) {
  std::string text;
  for (const auto& run : plan) {
    text += suite.cells[run.cell].name + "\n" + std::to_string(run.repeat) + "\n" +
            std::to_string(run.seed) + "\n" + std::to_string(run.planned_s) + "\n";
  }
  return Sha256Hex(text);
}

}  // namespace locksmith
