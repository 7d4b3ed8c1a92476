// Data-model histories in testdata/ with known verdicts, through the real
// importer and CheckHistoryFile: Porcupine's published kv histories (1, 10
// and 50 clients, copied from anishathalye/porcupine test_data/kv, verdicts
// asserted by Porcupine's tests) and the 10- and 50-client kv histories of
// generate_kv_histories.py (verdicts checked there by brute force and by
// construction); Knossos's cas-register histories (data/cas-register of
// jepsen-io/knossos, verdicts asserted by Knossos's core_test).
#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>
#include <string>
#include <vector>

#include "checker/check_file.h"

namespace locksmith {
namespace {

const std::string kTestdata = LOCKSMITH_CHECKER_TESTDATA;

struct Fixture {
  const char* file;
  const char* model;
  Validity expected;
};

class DataFixtureTest : public ::testing::TestWithParam<Fixture> {};

TEST_P(DataFixtureTest, HasItsKnownVerdict) {
  const Fixture& fixture = GetParam();
  LinearizabilityOptions options;
  options.model = fixture.model;
  // The verdict is what is tested, not the speed (scripts/bench-checker.sh
  // measures that): a budget no build type reaches, Debug included.
  options.timeout_s = 600;
  auto result = CheckHistoryFile(kTestdata + "/" + fixture.file, options);
  ASSERT_TRUE(result.ok()) << result.error();
  EXPECT_EQ(result->valid, fixture.expected) << FormatLinearizabilityVerdict(*result);
  if (fixture.expected == Validity::kFalse) {
    ASSERT_FALSE(result->anomalies.empty());
    EXPECT_EQ(result->anomalies[0]["op"]["f"], "get");
  }
  // Check time, for the report (no assertion on it).
  RecordProperty("time_s", std::to_string(result->stats["time_s"].get<double>()));
}

INSTANTIATE_TEST_SUITE_P(
    Kv, DataFixtureTest,
    ::testing::Values(Fixture{"porcupine-kv/c01-ok.txt", "kv", Validity::kTrue},
                      Fixture{"porcupine-kv/c01-bad.txt", "kv", Validity::kFalse},
                      Fixture{"porcupine-kv/c10-ok.txt", "kv", Validity::kTrue},
                      Fixture{"porcupine-kv/c10-bad.txt", "kv", Validity::kFalse},
                      Fixture{"porcupine-kv/c50-ok.txt", "kv", Validity::kTrue},
                      Fixture{"porcupine-kv/c50-bad.txt", "kv", Validity::kFalse},
                      Fixture{"kv-c10-ok.txt", "kv", Validity::kTrue},
                      Fixture{"kv-c10-bad.txt", "kv", Validity::kFalse},
                      Fixture{"kv-c50-ok.txt", "kv", Validity::kTrue},
                      Fixture{"kv-c50-bad.txt", "kv", Validity::kFalse}),
    [](const ::testing::TestParamInfo<Fixture>& info) {
      std::string name = info.param.file;
      name = name.substr(0, name.find('.'));
      for (char& c : name) {
        if (c == '-' || c == '/') c = '_';
      }
      return name;
    });

// Every file of good/ is linearizable from 0 and every file of bad/ is not,
// as Knossos's core_test asserts with (cas-register 0); but four of good/
// complete no client op (reads and writes that failed, nemesis ops), which
// Knossos calls valid and locksmith unknown: nothing was judged.
TEST(KnossosHistoriesTest, EveryCasRegisterHistoryHasItsKnownVerdict) {
  const std::string dir = kTestdata + "/knossos-cas-register";
  const std::vector<std::string> nothing_completed = {
      "mongodb-v0-ack-rollback-.edn", "mongodb-v0-ack-rollback-9.edn",
      "mongodb-v0-ack-rollback-10.edn", "mongodb-v0-ack-rollback-11.edn"};
  int files = 0;
  for (const char* sub : {"good", "bad"}) {
    for (const auto& entry : std::filesystem::directory_iterator(dir + "/" + sub)) {
      const std::string name = entry.path().filename().string();
      SCOPED_TRACE(std::string(sub) + "/" + name);
      LinearizabilityOptions options;
      options.model = "cas-register";
      options.initial = 0;
      options.timeout_s = 600;  // the verdict is tested, not the speed
      auto result = CheckHistoryFile(entry.path().string(), options);
      ASSERT_TRUE(result.ok()) << result.error();
      const bool vacuous = std::find(nothing_completed.begin(), nothing_completed.end(), name) !=
                           nothing_completed.end();
      const Validity expected = std::string(sub) == "bad" ? Validity::kFalse
                                : vacuous                  ? Validity::kUnknown
                                                           : Validity::kTrue;
      EXPECT_EQ(result->valid, expected) << FormatLinearizabilityVerdict(*result);
      ++files;
    }
  }
  EXPECT_EQ(files, 120);
}

}  // namespace
}  // namespace locksmith
