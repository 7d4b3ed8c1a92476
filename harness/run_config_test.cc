#include "harness/run_config.h"

#include <gtest/gtest.h>

#include <sys/stat.h>

#include <fstream>

#include "harness/testing/temp_dir.h"

namespace locksmith {
namespace {

// The error of validating defaults changed by `change`.
std::string ErrorAfter(const std::function<void(RunConfig&)>& change) {
  RunConfig c;
  change(c);
  Status s = ValidateRunConfig(c);
  return s ? "" : s.error();
}

TEST(RunConfigTest, DefaultsAreValid) { EXPECT_EQ(ErrorAfter([](RunConfig&) {}), ""); }

TEST(RunConfigTest, EachBadFieldIsNamed) {
  EXPECT_NE(ErrorAfter([](RunConfig& c) { c.workload_options.concurrency = 0; }).find("--concurrency"),
            std::string::npos);
  EXPECT_NE(ErrorAfter([](RunConfig& c) { c.workload_options.keys = 0; }).find("--keys"),
            std::string::npos);
  EXPECT_NE(ErrorAfter([](RunConfig& c) { c.workload_options.hold = {5, 2}; }).find("--hold"),
            std::string::npos);
  EXPECT_NE(ErrorAfter([](RunConfig& c) { c.workload_options.backoff = {-1, 2}; }).find("--backoff"),
            std::string::npos);
  EXPECT_NE(ErrorAfter([](RunConfig& c) { c.workload_options.lease_ms = 0; }).find("--lease"),
            std::string::npos);
  EXPECT_NE(ErrorAfter([](RunConfig& c) { c.workload_options.rate = -1; }).find("--rate"),
            std::string::npos);
  EXPECT_NE(ErrorAfter([](RunConfig& c) { c.time_limit_s = 0; }).find("--time-limit"),
            std::string::npos);
  EXPECT_NE(ErrorAfter([](RunConfig& c) { c.nemesis_interval_s = -3; }).find("--nemesis-interval"),
            std::string::npos);
  EXPECT_NE(ErrorAfter([](RunConfig& c) { c.nemesis_interval_s = 1e-9; }).find("--nemesis-interval"),
            std::string::npos);
  EXPECT_NE(ErrorAfter([](RunConfig& c) { c.client_timeout_ms = 0; }).find("--client-timeout"),
            std::string::npos);
  EXPECT_NE(ErrorAfter([](RunConfig& c) { c.test_name = "../escape"; }).find("--test-name"),
            std::string::npos);
  EXPECT_NE(ErrorAfter([](RunConfig& c) { c.test_name = ".."; }).find("--test-name"),
            std::string::npos);
  EXPECT_EQ(ErrorAfter([](RunConfig& c) { c.test_name = "redis-1.x_y"; }), "");
}

TEST(RunConfigTest, UnknownNamesListTheKnownOnes) {
  std::string e = ErrorAfter([](RunConfig& c) { c.backend = "etcd"; });
  EXPECT_NE(e.find("\"etcd\""), std::string::npos) << e;
  EXPECT_NE(e.find("redis"), std::string::npos) << e;
  e = ErrorAfter([](RunConfig& c) { c.workload = "bank"; });
  EXPECT_NE(e.find("mutex"), std::string::npos) << e;
  e = ErrorAfter([](RunConfig& c) { c.nemesis = {"kill", "meteor"}; });
  EXPECT_NE(e.find("\"meteor\""), std::string::npos) << e;
  e = ErrorAfter([](RunConfig& c) { c.nemesis = {"kill", "kill"}; });
  EXPECT_NE(e.find("twice"), std::string::npos) << e;
  e = ErrorAfter([](RunConfig& c) { c.prediction = "yes"; });
  EXPECT_NE(e.find("\"prediction\""), std::string::npos) << e;
  e = ErrorAfter([](RunConfig& c) { c.store = "/tmp/x\xff"; });
  EXPECT_NE(e.find("--store"), std::string::npos) << e;
  e = ErrorAfter([](RunConfig& c) { c.redis_persistence = "sometimes"; });
  EXPECT_NE(e.find("none, everysec, always"), std::string::npos) << e;
}

TEST(RunConfigTest, ParsesRanges) {
  auto r = ParseMsRange("100-300");
  ASSERT_TRUE(r.ok());
  EXPECT_EQ(*r, (MsRange{100, 300}));
  r = ParseMsRange("250");
  ASSERT_TRUE(r.ok());
  EXPECT_EQ(*r, (MsRange{250, 250}));
  EXPECT_FALSE(ParseMsRange("").ok());
  EXPECT_FALSE(ParseMsRange("ten").ok());
  EXPECT_FALSE(ParseMsRange("1-").ok());
  EXPECT_FALSE(ParseMsRange("1-2-3").ok());
  EXPECT_FALSE(ParseMsRange("1.5").ok());
  EXPECT_EQ(FormatMsRange({100, 300}), "100-300");
  EXPECT_EQ(FormatMsRange({7, 7}), "7");
}

TEST(RunConfigTest, JsonRoundTripKeepsEveryField) {
  RunConfig a;
  a.test_name = "t";
  a.workload_options.concurrency = 7;
  a.workload_options.keys = 2;
  a.workload_options.hold = {200, 400};
  a.workload_options.backoff = {3, 4};
  a.workload_options.lease_ms = 1500;
  a.workload_options.rate = 12.5;
  a.time_limit_s = 9;
  a.seed = 18446744073709551615ULL;
  a.nemesis = {"kill"};
  a.nemesis_interval_s = 2;
  a.restart_delay_ms = 50;
  a.redis_persistence = "always";
  a.client_timeout_ms = 250;
  a.loopback = true;
  a.scenario = "6";
  a.prediction = "N";
  a.description = "why";
  RunConfig b;
  ASSERT_TRUE(MergeRunConfigJson(a.ToJson(), b).ok());
  EXPECT_EQ(b.ToJson(), a.ToJson());
  EXPECT_EQ(*b.seed, 18446744073709551615ULL);
}

TEST(RunConfigTest, MergeKeepsAbsentKeysAndNamesBadOnes) {
  RunConfig c;
  ASSERT_TRUE(MergeRunConfigJson({{"concurrency", 3}, {"nemesis", "kill"}}, c).ok());
  EXPECT_EQ(c.workload_options.concurrency, 3);
  EXPECT_EQ(c.workload_options.keys, RunConfig().workload_options.keys);
  EXPECT_EQ(c.nemesis, std::vector<std::string>{"kill"});

  Status s = MergeRunConfigJson({{"concurency", 3}}, c);
  ASSERT_FALSE(s.ok());
  EXPECT_NE(s.error().find("\"concurency\""), std::string::npos);
  s = MergeRunConfigJson({{"concurrency", "many"}}, c);
  ASSERT_FALSE(s.ok());
  EXPECT_NE(s.error().find("\"concurrency\""), std::string::npos);
  s = MergeRunConfigJson({{"hold", "a-b"}}, c);
  ASSERT_FALSE(s.ok());
  EXPECT_NE(s.error().find("\"hold\""), std::string::npos);
  s = MergeRunConfigJson({{"concurrency", 1LL << 40}}, c);
  ASSERT_FALSE(s.ok());
  EXPECT_NE(s.error().find("out of range"), std::string::npos);
  EXPECT_FALSE(MergeRunConfigJson({{"seed", -1}}, c).ok());
  EXPECT_FALSE(MergeRunConfigJson(nlohmann::json::array(), c).ok());
}

TEST(RunConfigTest, LoadsFilesAndReportsBadOnes) {
  testing::TempDir dir;
  const std::string path = dir.path() + "/run_config_test.json";
  {
    std::ofstream(path) << "{ // comments are allowed\n \"time_limit_s\": 5, \"hold\": \"1-2\" }";
  }
  RunConfig c;
  ASSERT_TRUE(LoadRunConfigFile(path, c).ok());
  EXPECT_EQ(c.time_limit_s, 5);
  EXPECT_EQ(c.workload_options.hold, (MsRange{1, 2}));
  { std::ofstream(path) << "{ \"time_limit_s\": "; }
  Status s = LoadRunConfigFile(path, c);
  ASSERT_FALSE(s.ok());
  EXPECT_NE(s.error().find(path), std::string::npos);
  EXPECT_FALSE(LoadRunConfigFile(path + ".missing", c).ok());
}

// The error of loading a config file holding `text`.
std::string LoadError(const std::string& text) {
  testing::TempDir dir;
  const std::string path = dir.path() + "/config.json";
  { std::ofstream(path) << text; }
  RunConfig c;
  Status s = LoadRunConfigFile(path, c);
  return s ? "" : s.error();
}

TEST(RunConfigTest, ANumberOutOfRangeIsNamedWithItsKey) {
  std::string e = LoadError("{\"concurrency\": 1e400}");
  EXPECT_NE(e.find("\"concurrency\": the number 1e400 is out of range"), std::string::npos) << e;
  EXPECT_EQ(e.find("not valid JSON"), std::string::npos) << e;
  e = LoadError("{\"hold\": [1, -1e999]}");
  EXPECT_NE(e.find("\"hold[1]\": the number -1e999 is out of range"), std::string::npos) << e;
  // Other syntax errors keep saying so, with the position.
  e = LoadError("{\"concurrency\": 3,");
  EXPECT_NE(e.find("not valid JSON: line 1, column 19"), std::string::npos) << e;
}

TEST(RunConfigTest, OnlyRegularFilesUpToOneMebibyteAreRead) {
  testing::TempDir dir;
  RunConfig c;
  // A FIFO with no writer: opening it the usual way would block forever.
  const std::string fifo = dir.path() + "/fifo";
  ASSERT_EQ(mkfifo(fifo.c_str(), 0600), 0);
  Status s = LoadRunConfigFile(fifo, c);
  ASSERT_FALSE(s.ok());
  EXPECT_NE(s.error().find("not a regular file"), std::string::npos) << s.error();
  s = LoadRunConfigFile(dir.path(), c);
  ASSERT_FALSE(s.ok());
  EXPECT_NE(s.error().find("not a regular file"), std::string::npos) << s.error();

  // Exactly the limit loads; one byte more does not, whatever it holds.
  const std::string path = dir.path() + "/big.json";
  std::string text = "{\"concurrency\": 3}";
  text.resize(kMaxConfigFileBytes, ' ');
  { std::ofstream(path) << text; }
  ASSERT_TRUE(LoadRunConfigFile(path, c).ok());
  EXPECT_EQ(c.workload_options.concurrency, 3);
  { std::ofstream(path, std::ios::app) << " "; }
  s = LoadRunConfigFile(path, c);
  ASSERT_FALSE(s.ok());
  EXPECT_NE(s.error().find("at most 1048576"), std::string::npos) << s.error();
}

TEST(RunConfigTest, TextFieldsAreBounded) {
  EXPECT_EQ(ErrorAfter([](RunConfig& c) { c.description.assign(kMaxDescriptionBytes, 'x'); }), "");
  std::string e =
      ErrorAfter([](RunConfig& c) { c.description.assign(kMaxDescriptionBytes + 1, 'x'); });
  EXPECT_NE(e.find("\"description\" must be at most 4096 bytes"), std::string::npos) << e;
  EXPECT_EQ(ErrorAfter([](RunConfig& c) { c.scenario.assign(kMaxScenarioBytes, '6'); }), "");
  e = ErrorAfter([](RunConfig& c) { c.scenario.assign(kMaxScenarioBytes + 1, '6'); });
  EXPECT_NE(e.find("\"scenario\" must be at most 64 bytes"), std::string::npos) << e;
  e = ErrorAfter([](RunConfig& c) { c.scenario = "6\nverdict: VALID"; });
  EXPECT_NE(e.find("control characters"), std::string::npos) << e;
  e = ErrorAfter([](RunConfig& c) { c.store.assign(kMaxStoreBytes + 1, 's'); });
  EXPECT_NE(e.find("--store must be at most 4096 bytes"), std::string::npos) << e;
}

TEST(RunConfigTest, ErrorsEchoInputShortAndOnOneLine) {
  // A huge or multi-line name comes back cut and escaped, not verbatim.
  for (auto change : std::vector<std::function<void(RunConfig&)>>{
           [](RunConfig& c) { c.backend = std::string(100000, 'b') + "\n"; },
           [](RunConfig& c) { c.workload = "a\nb" + std::string(100000, 'w'); },
           [](RunConfig& c) { c.nemesis = {std::string(100000, 'n')}; },
           [](RunConfig& c) { c.redis_persistence = std::string(100000, 'p'); },
           [](RunConfig& c) { c.prediction = std::string(100000, 'y'); }}) {
    const std::string e = ErrorAfter(change);
    ASSERT_NE(e, "");
    EXPECT_LT(e.size(), 200u) << e.substr(0, 300);
    EXPECT_EQ(e.find('\n'), std::string::npos) << e.substr(0, 300);
  }
  RunConfig c;
  Status s = MergeRunConfigJson({{std::string(100000, 'k') + "\n", 1}}, c);
  ASSERT_FALSE(s.ok());
  EXPECT_LT(s.error().size(), 200u);
  EXPECT_EQ(s.error().find('\n'), std::string::npos);
  EXPECT_NE(LoadError("{\"hold\": \"" + std::string(100000, '9') + "x\"}").size(), 0u);
  EXPECT_LT(LoadError("{\"hold\": \"" + std::string(100000, '9') + "x\"}").size(), 300u);
}

TEST(RunConfigTest, TestNameDerivesFromTheRun) {
  RunConfig c;
  EXPECT_EQ(c.ResolvedTestName(), "redis-mutex");
  c.nemesis = {"kill"};
  EXPECT_EQ(c.ResolvedTestName(), "redis-mutex-kill");
  c.test_name = "mine";
  EXPECT_EQ(c.ResolvedTestName(), "mine");
}

}  // namespace
}  // namespace locksmith
