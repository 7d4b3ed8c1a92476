// SearchPartitions through CheckLinearizable: the early stop at the first
// refuted partition (the others reported, not hidden), --all-anomalies, and
// the same states explored whatever thread searches a partition.
#include "checker/partition_search.h"

#include <gtest/gtest.h>

#include <string>

#include "checker/check_file.h"
#include "history/testing/history_builder.h"

namespace locksmith {
namespace {

using testing::HistoryBuilder;

const std::string kTestdata = LOCKSMITH_CHECKER_TESTDATA;

// A mutex granted twice with no release between, under `key`.
void DoubleGrant(HistoryBuilder& b, const std::string& key) {
  b.Invoke(100, "acquire", nullptr, key).Ok(100).Invoke(101, "acquire", nullptr, key).Ok(101);
}

// Key "bad" first (refuted at once), then `valid_keys` keys k0.. of
// `cycles` acquire / release cycles each; and "worse" last when asked.
History OneRefutedAmongValid(int valid_keys, int cycles, bool refuted_last_too = false) {
  HistoryBuilder b;
  DoubleGrant(b, "bad");
  for (int c = 0; c < cycles; ++c) {
    for (int k = 0; k < valid_keys; ++k) {
      const std::string key = "k" + std::to_string(k);
      b.Call(k, "acquire", nullptr, nullptr, key).Call(k, "release", nullptr, nullptr, key);
    }
  }
  if (refuted_last_too) DoubleGrant(b, "worse");
  return b.Build();
}

LinearizabilityOptions Mutex(size_t threads, bool all_anomalies = false) {
  LinearizabilityOptions options;
  options.model = "mutex";
  options.timeout_s = 600;
  options.search_threads = threads;
  options.all_anomalies = all_anomalies;
  return options;
}

TEST(PartitionSearchTest, TheFirstRefutedPartitionStopsTheOthersAndTheyAreNamed) {
  // On one thread the partitions take turns: "bad" is refuted in its first
  // slice, before any other is begun.
  auto result = CheckLinearizable(OneRefutedAmongValid(12, 50), Mutex(1));
  ASSERT_TRUE(result) << result.error();
  EXPECT_EQ(result->valid, Validity::kFalse);
  ASSERT_EQ(result->anomalies.size(), 1u);
  EXPECT_EQ(result->anomalies[0]["key"], "bad");
  EXPECT_EQ(result->stats["partitions"], 13);
  EXPECT_EQ(result->stats["partitions_invalid"], 1);
  EXPECT_EQ(result->stats["partitions_unknown"], 0);
  EXPECT_EQ(result->stats["partitions_not_searched"], 12);
  ASSERT_EQ(result->stats["keys_not_searched"].size(), 12u);
  EXPECT_EQ(result->stats["keys_not_searched"][0], "k0");
  const std::string verdict = FormatLinearizabilityVerdict(*result);
  EXPECT_NE(verdict.find("12 partition(s) not searched"), std::string::npos) << verdict;
  EXPECT_NE(verdict.find("--all-anomalies"), std::string::npos) << verdict;
}

TEST(PartitionSearchTest, OnThreadsEveryPartitionIsAnsweredOrNamedAsNotSearched) {
  auto result = CheckLinearizable(OneRefutedAmongValid(12, 2000), Mutex(2));
  ASSERT_TRUE(result) << result.error();
  EXPECT_EQ(result->valid, Validity::kFalse);
  ASSERT_EQ(result->anomalies.size(), 1u);
  EXPECT_EQ(result->anomalies[0]["key"], "bad");
  // Which keys were stopped depends on the threads' timing; each one that
  // was is named, and none is reported undecided or hidden.
  EXPECT_EQ(result->stats["partitions_unknown"], 0);
  EXPECT_EQ(result->stats["keys_not_searched"].size(),
            result->stats["partitions_not_searched"].get<size_t>());
}

TEST(PartitionSearchTest, AllAnomaliesSearchesEveryPartition) {
  const History history = OneRefutedAmongValid(6, 50, /*refuted_last_too=*/true);
  for (size_t threads : {1, 2}) {
    auto every = CheckLinearizable(history, Mutex(threads, /*all_anomalies=*/true));
    ASSERT_TRUE(every) << every.error();
    EXPECT_EQ(every->valid, Validity::kFalse);
    ASSERT_EQ(every->anomalies.size(), 2u) << threads << " threads";
    EXPECT_EQ(every->stats["partitions_invalid"], 2);
    EXPECT_EQ(every->stats["partitions_not_searched"], 0);
    EXPECT_TRUE(every->stats["keys_not_searched"].empty());
  }
  auto first = CheckLinearizable(history, Mutex(1));
  ASSERT_TRUE(first) << first.error();
  EXPECT_EQ(first->anomalies.size(), 1u);
  EXPECT_EQ(first->stats["partitions_not_searched"], 7);
}

// states_explored of a whole check of `file`.
uint64_t StatesExplored(const std::string& file, size_t threads, bool all_anomalies) {
  LinearizabilityOptions options;
  options.model = "kv";
  options.timeout_s = 600;  // no key near its budget: no window is tried
  options.search_threads = threads;
  options.all_anomalies = all_anomalies;
  auto result = CheckHistoryFile(kTestdata + "/" + file, options);
  EXPECT_TRUE(result) << result.error();
  return result ? result->stats["states_explored"].get<uint64_t>() : 0;
}

TEST(PartitionSearchTest, TheSameInputExploresTheSameStatesOnEveryRun) {
  // Every key searched to its answer: the count is the keys' searches',
  // each deterministic whatever thread ran its slices and however they
  // were cut.
  const std::string valid = "porcupine-kv/c50-ok.txt";
  const uint64_t states = StatesExplored(valid, 1, false);
  EXPECT_GT(states, 100'000u);
  EXPECT_EQ(StatesExplored(valid, 2, false), states);
  const std::string refuted = "porcupine-kv/c10-bad.txt";
  const uint64_t every = StatesExplored(refuted, 1, true);
  EXPECT_EQ(StatesExplored(refuted, 2, true), every);
  EXPECT_EQ(StatesExplored(refuted, 2, true), every);
}

}  // namespace
}  // namespace locksmith
