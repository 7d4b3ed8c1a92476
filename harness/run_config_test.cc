#include "harness/run_config.h"

#include <gtest/gtest.h>

#include <sys/stat.h>

#include <algorithm>
#include <filesystem>
#include <fstream>

#include "base/testing/temp_dir.h"
#include "nemesis/kill_nemesis.h"
#include "workloads/mutex_workload.h"

namespace locksmith {
namespace {

// The error of validating defaults changed by `change`.
std::string ErrorAfter(const std::function<void(RunConfig&)>& change) {
  RunConfig c;
  change(c);
  Status s = ValidateRunConfig(c);
  return s ? "" : s.error();
}

// The error of merging `j` over the defaults and validating.
std::string ErrorOfJson(const nlohmann::json& j) {
  RunConfig c;
  Status s = MergeRunConfigJson(j, c);
  if (s) s = ValidateRunConfig(c);
  return s ? "" : s.error();
}

const MutexOptions& Mutex(const RunConfig& c) {
  return OptionsAs<MutexOptions>(*c.workload_options);
}

TEST(RunConfigTest, DefaultsAreValid) { EXPECT_EQ(ErrorAfter([](RunConfig&) {}), ""); }

TEST(RunConfigTest, EachBadFieldIsNamed) {
  EXPECT_NE(ErrorAfter([](RunConfig& c) { c.concurrency = 0; }).find("--concurrency"),
            std::string::npos);
  EXPECT_NE(ErrorOfJson({{"keys", 0}}).find("--keys"), std::string::npos);
  EXPECT_NE(ErrorOfJson({{"hold", "5-2"}}).find("--hold"), std::string::npos);
  EXPECT_NE(ErrorOfJson({{"backoff", "-1-2"}}).find("--backoff"), std::string::npos);
  EXPECT_NE(ErrorOfJson({{"lease_ms", 0}}).find("--lease"), std::string::npos);
  EXPECT_NE(ErrorOfJson({{"nemesis", "kill"}, {"restart_delay_ms", -1}}).find("--restart-delay"),
            std::string::npos);
  EXPECT_NE(ErrorAfter([](RunConfig& c) { c.rate = -1; }).find("--rate"), std::string::npos);
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
  std::string e = ErrorAfter([](RunConfig& c) { c.backend = "consul"; });
  EXPECT_NE(e.find("\"consul\""), std::string::npos) << e;
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
  e = ErrorOfJson({{"redis_persistence", "sometimes"}});
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

// A scenario predicts its verdict and the kind of anomaly as data; the two
// predictions of a debate row (Y / N and the verdict) must agree.
TEST(RunConfigTest, PredictionsAgreeWithEachOther) {
  EXPECT_EQ(ErrorOfJson({{"prediction", "Y"}, {"predicted_verdict", "invalid"},
                         {"predicted_anomaly", "unsafe-grant"}}),
            "");
  EXPECT_EQ(ErrorOfJson({{"predicted_verdict", "invalid"}, {"predicted_anomaly", "oversold"}}),
            "");
  EXPECT_EQ(ErrorOfJson({{"prediction", "Y"}, {"predicted_verdict", "valid"}}),
            "\"prediction\": Y means a verdict of invalid, but \"predicted_verdict\" is valid");
  EXPECT_EQ(ErrorOfJson({{"prediction", "N"}, {"predicted_anomaly", "unsafe-grant"}}),
            "\"predicted_anomaly\" needs \"predicted_verdict\": \"invalid\"");
  EXPECT_NE(ErrorOfJson({{"predicted_verdict", "maybe"}}).find("\"predicted_verdict\""),
            std::string::npos);
  EXPECT_NE(ErrorOfJson({{"predicted_verdict", "invalid"}, {"predicted_anomaly", "a b"}})
                .find("is a kind such as unsafe-grant"),
            std::string::npos);
}

TEST(RunConfigTest, JsonRoundTripKeepsEveryField) {
  RunConfig a;
  a.test_name = "t";
  a.concurrency = 7;
  a.rate = 12.5;
  a.time_limit_s = 9;
  a.seed = 18446744073709551615ULL;
  a.nemesis = {"kill"};
  a.nemesis_interval_s = 2;
  a.client_timeout_ms = 250;
  a.loopback = true;
  a.scenario = "6";
  a.prediction = "Y";
  a.predicted_verdict = "invalid";
  a.predicted_anomaly = "unsafe-grant";
  a.description = "why";
  ASSERT_TRUE(a.SelectModules().ok());
  ASSERT_TRUE(MergeRunConfigJson({{"keys", 2}, {"hold", "200-400"}, {"backoff", "3-4"},
                                  {"lease_ms", 1500}, {"restart_delay_ms", 50},
                                  {"redis_persistence", "always"}},
                                 a, UnusedKeys::kError)
                  .ok());
  RunConfig b;
  ASSERT_TRUE(MergeRunConfigJson(a.ToJson(), b, UnusedKeys::kError).ok());
  EXPECT_EQ(b.ToJson(), a.ToJson());
  EXPECT_EQ(*b.seed, 18446744073709551615ULL);
  EXPECT_EQ(Mutex(b).hold, (MsRange{200, 400}));
  EXPECT_EQ(OptionsAs<KillOptions>(*b.nemesis_options.at(0)).restart_delay_ms, 50);
  // Copies clone the modules' options.
  RunConfig copy = b;
  ASSERT_TRUE(MergeRunConfigJson({{"keys", 9}}, copy).ok());
  EXPECT_EQ(Mutex(b).keys, 2);
  EXPECT_EQ(Mutex(copy).keys, 9);
}

TEST(RunConfigTest, MergeKeepsAbsentKeysAndNamesBadOnes) {
  RunConfig c;
  ASSERT_TRUE(MergeRunConfigJson({{"concurrency", 3}, {"nemesis", "kill"}}, c).ok());
  EXPECT_EQ(c.concurrency, 3);
  EXPECT_EQ(Mutex(c).keys, Mutex(RunConfig()).keys);
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
  EXPECT_EQ(Mutex(c).hold, (MsRange{1, 2}));
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

TEST(RunConfigTest, DeepNestingIsAnErrorNotACrash) {
  const std::string deep = std::string(100000, '[') + std::string(100000, ']');
  const std::string e = LoadError("// scripted\n{\"steps\": " + deep + "}");
  EXPECT_NE(e.find("config.json: arrays and objects nest more than 200 deep"), std::string::npos)
      << e;
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
  EXPECT_EQ(c.concurrency, 3);
  { std::ofstream(path, std::ios::app) << " "; }
  s = LoadRunConfigFile(path, c);
  ASSERT_FALSE(s.ok());
  EXPECT_NE(s.error().find("at most 1048576"), std::string::npos) << s.error();
}

TEST(RunConfigTest, TextFieldsAreBounded) {
  EXPECT_EQ(ErrorAfter([](RunConfig& c) { c.description.assign(kMaxDescriptionBytes, 'x'); }), "");
  std::string e =
      ErrorAfter([](RunConfig& c) { c.description.assign(kMaxDescriptionBytes + 1, 'x'); });
  EXPECT_NE(e.find("\"description\" is 4097 bytes; at most 4096"), std::string::npos) << e;
  EXPECT_EQ(ErrorAfter([](RunConfig& c) { c.scenario.assign(kMaxScenarioBytes, '6'); }), "");
  e = ErrorAfter([](RunConfig& c) { c.scenario.assign(kMaxScenarioBytes + 1, '6'); });
  EXPECT_NE(e.find("\"scenario\" is 65 bytes; at most 64"), std::string::npos) << e;
  e = ErrorAfter([](RunConfig& c) { c.scenario = "6\nverdict: VALID"; });
  EXPECT_NE(e.find("control characters"), std::string::npos) << e;
  e = ErrorAfter([](RunConfig& c) { c.store.assign(kMaxStoreBytes + 1, 's'); });
  EXPECT_NE(e.find("--store is 4097 bytes; at most 4096"), std::string::npos) << e;
}

TEST(RunConfigTest, ErrorsEchoInputShortAndOnOneLine) {
  // A huge or multi-line name comes back cut and escaped, not verbatim.
  for (auto change : std::vector<std::function<void(RunConfig&)>>{
           [](RunConfig& c) { c.backend = std::string(100000, 'b') + "\n"; },
           [](RunConfig& c) { c.workload = "a\nb" + std::string(100000, 'w'); },
           [](RunConfig& c) { c.nemesis = {std::string(100000, 'n')}; },
           [](RunConfig& c) { c.prediction = std::string(100000, 'y'); }}) {
    const std::string e = ErrorAfter(change);
    ASSERT_NE(e, "");
    EXPECT_LT(e.size(), 200u) << e.substr(0, 300);
    EXPECT_EQ(e.find('\n'), std::string::npos) << e.substr(0, 300);
  }
  const std::string e = ErrorOfJson({{"redis_persistence", std::string(100000, 'p')}});
  EXPECT_LT(e.size(), 200u) << e.substr(0, 300);
  RunConfig c;
  Status s = MergeRunConfigJson({{std::string(100000, 'k') + "\n", 1}}, c);
  ASSERT_FALSE(s.ok());
  EXPECT_LT(s.error().size(), 200u);
  EXPECT_EQ(s.error().find('\n'), std::string::npos);
  EXPECT_NE(LoadError("{\"hold\": \"" + std::string(100000, '9') + "x\"}").size(), 0u);
  EXPECT_LT(LoadError("{\"hold\": \"" + std::string(100000, '9') + "x\"}").size(), 300u);
}

TEST(RunConfigTest, AKeyOfAModuleNotChosenIsAnErrorFromFlagsAndKeptFromFiles) {
  RunConfig c;
  Status s = MergeRunConfigJson({{"restart_delay_ms", 500}}, c, UnusedKeys::kError);
  ASSERT_FALSE(s.ok());
  EXPECT_EQ(s.error(),
            "--restart-delay (restart_delay_ms) applies to nemesis kill, which this run does not "
            "use");
  // A file's is kept aside and warned about...
  ASSERT_TRUE(MergeRunConfigJson({{"restart_delay_ms", 500}}, c).ok());
  ASSERT_TRUE(ValidateRunConfig(c).ok());
  EXPECT_EQ(c.UnusedKeyWarnings(),
            std::vector<std::string>{
                "restart_delay_ms applies to nemesis kill, which this run does not use: ignored"});
  EXPECT_FALSE(c.ToJson().contains("restart_delay_ms"));
  // ... and applies when a later layer (a flag) chooses its module.
  ASSERT_TRUE(MergeRunConfigJson({{"nemesis", "kill"}}, c, UnusedKeys::kError).ok());
  EXPECT_TRUE(c.UnusedKeyWarnings().empty());
  EXPECT_EQ(OptionsAs<KillOptions>(*c.nemesis_options.at(0)).restart_delay_ms, 500);
  EXPECT_EQ(c.ToJson()["restart_delay_ms"], 500);
  // Its type is checked then.
  RunConfig d;
  ASSERT_TRUE(MergeRunConfigJson({{"restart_delay_ms", "soon"}}, d).ok());
  s = MergeRunConfigJson({{"nemesis", "kill"}}, d);
  ASSERT_FALSE(s.ok());
  EXPECT_EQ(s.error(), "\"restart_delay_ms\" must be an integer");
}

TEST(RunConfigTest, OldConfigJsonListingEveryKeyStillLoads) {
  // A config.json as written before options moved into the modules: every
  // key of every module, a run without nemesis.
  const nlohmann::json old = nlohmann::json::parse(R"({
    "backend": "redis", "backoff": "5-50", "client_timeout_ms": 500, "concurrency": 10,
    "description": "", "hold": "10-100", "keys": 3, "lease_ms": 1000, "loopback": false,
    "nemesis": [], "nemesis_interval_s": 10.0, "prediction": "", "rate": 0.0,
    "redis_persistence": "none", "restart_delay_ms": 100, "scenario": "", "seed": 7,
    "store": "store", "test_name": "redis-mutex", "time_limit_s": 30.0, "workload": "mutex"})");
  RunConfig c;
  ASSERT_TRUE(MergeRunConfigJson(old, c).ok());
  ASSERT_TRUE(ValidateRunConfig(c).ok());
  EXPECT_EQ(c.UnusedKeyWarnings().size(), 1u);
  nlohmann::json now = c.ToJson();
  now["restart_delay_ms"] = 100;
  EXPECT_EQ(now["client"], "");  // a key added since: its default, the backend's own client
  now.erase("client");
  EXPECT_EQ(now["read_fraction"], 0.0);  // likewise: no readers
  now.erase("read_fraction");
  EXPECT_EQ(now["fencing"], "off");  // added since, too: off
  now.erase("fencing");
  EXPECT_EQ(now["reentry"], 0.0);  // added since too, with its default
  now.erase("reentry");
  EXPECT_EQ(now["stuck_leases"], 3);  // added since: the stuck-lock checker's default
  now.erase("stuck_leases");
  EXPECT_EQ(now["acquire_wait_ms"], 2000);  // added since: acquires wait by default
  now.erase("acquire_wait_ms");
  EXPECT_EQ(now["hold_within_validity_ms"], -1);  // added since: holds ignore the validity
  now.erase("hold_within_validity_ms");
  EXPECT_EQ(now["redis_release_retries"], 0);  // added since: a release in doubt stays so
  EXPECT_EQ(now["redis_release_retry_delay_ms"], 100);
  now.erase("redis_release_retries");
  now.erase("redis_release_retry_delay_ms");
  // Added since: what a scenario predicts, none by default.
  EXPECT_EQ(now["predicted_verdict"], "");
  EXPECT_EQ(now["predicted_anomaly"], "");
  now.erase("predicted_verdict");
  now.erase("predicted_anomaly");
  EXPECT_EQ(now["provider"], "local");  // added since: the local provider and its defaults
  for (const char* key : {"provider", "nodes", "nodes_file", "ssh_user", "ssh_key", "ssh_port",
                          "ssh_known_hosts"}) {
    now.erase(key);
  }
  EXPECT_EQ(now, old);
}

TEST(RunConfigTest, TheSshProvidersKeysAreCheckedTogether) {
  RunConfig c;
  c.provider = "ssh";
  EXPECT_EQ(ValidateRunConfig(c).error(),
            "--provider ssh needs the nodes: --nodes n1,n2,... or --nodes-file FILE (one)");
  c.nodes = {"198.18.4.2", "-oProxyCommand=x"};
  EXPECT_EQ(ValidateRunConfig(c).error(),
            "--nodes: node \"-oProxyCommand=x\" is not a host name or IPv4 address (letters, "
            "digits, '.' and '-')");
  c.nodes = {"198.18.4.2"};
  EXPECT_TRUE(ValidateRunConfig(c).ok());
  c.loopback = true;
  EXPECT_EQ(ValidateRunConfig(c).error(), "--loopback is for --provider local");
  RunConfig local;
  local.nodes_file = "nodes.txt";
  EXPECT_EQ(ValidateRunConfig(local).error(), "--nodes and --nodes-file need --provider ssh");
}

TEST(RunConfigTest, ChangingAModuleKeepsTheOptionsOfOthersAndOfItsName) {
  RunConfig c;
  ASSERT_TRUE(MergeRunConfigJson({{"nemesis", "kill"}, {"restart_delay_ms", 7}, {"keys", 4}}, c)
                  .ok());
  ASSERT_TRUE(MergeRunConfigJson({{"concurrency", 2}, {"nemesis", "kill"}}, c).ok());
  EXPECT_EQ(OptionsAs<KillOptions>(*c.nemesis_options.at(0)).restart_delay_ms, 7);
  EXPECT_EQ(Mutex(c).keys, 4);
  ASSERT_TRUE(MergeRunConfigJson({{"nemesis", nlohmann::json::array()}}, c).ok());
  EXPECT_TRUE(c.nemesis_options.empty());
  EXPECT_TRUE(c.ChosenNemeses().empty());
}

TEST(RunConfigTest, TheClientIsOneOfTheBackendsOwnOrItsDefault) {
  RunConfig c;
  EXPECT_EQ(c.ResolvedClient(), "redis");
  EXPECT_EQ(ErrorAfter([](RunConfig& c) { c.client = "redis"; }), "");
  EXPECT_EQ(ErrorAfter([](RunConfig& c) { c.client = "zk-fair-ish"; }),
            "--client zk-fair-ish: backend redis has clients redis, redis-watchdog, "
            "redis-reentrant, redis-get-set, redis-setnx-expire, redis-del-unlock");
  EXPECT_NE(ErrorOfJson({{"client", 3}}).find("client"), std::string::npos);
}

TEST(RunConfigTest, AnExecClientIsAProgramOnAnyBackendInEitherForm) {
  RunConfig c;
  ASSERT_TRUE(MergeRunConfigJson(
      {{"backend", "zookeeper"}, {"client", {{"exec", {"/usr/bin/python3", "kazoo_lock.py"}}}},
       {"fencing", "on"}, {"read_fraction", 0.5}},
      c));
  EXPECT_EQ(c.client, "exec:/usr/bin/python3 kazoo_lock.py");
  // Fences and shared locks are the program's to claim at its handshake.
  EXPECT_TRUE(ValidateRunConfig(c));
  EXPECT_EQ(c.ResolvedTestName(), "zookeeper-exec-kazoo_lock.py-mutex");
  EXPECT_EQ(c.ToJson()["client"], "exec:/usr/bin/python3 kazoo_lock.py");
  EXPECT_EQ(ErrorOfJson({{"client", {{"exec", {"has space"}}}}}),
            "\"client\": {\"exec\": [...]} must be a non-empty array of strings without spaces");
  EXPECT_EQ(ErrorOfJson({{"client", "exec:"}}),
            "--client exec: names no program (exec:PROGRAM [ARGS...])");
}

TEST(RunConfigTest, AFileNamesItsExecProgramFromItsOwnDirectory) {
  testing::TempDir dir;
  const std::string path = dir.path() + "/suite.json";
  std::ofstream(path) << R"({"base": {"client": {"exec": ["../adapters/x.py", "a/b"]}},
                             "cells": [{"client": {"exec": ["python3", "y.py"]}}]})";
  auto j = ReadConfigJsonFile(path);
  ASSERT_TRUE(j) << j.error();
  const std::string parent = std::filesystem::path(dir.path()).parent_path().string();
  EXPECT_EQ((*j)["base"]["client"]["exec"],
            nlohmann::json({parent + "/adapters/x.py", "a/b"}));  // arguments stay as given
  EXPECT_EQ((*j)["cells"][0]["client"]["exec"], nlohmann::json({"python3", "y.py"}));
}

TEST(RunConfigTest, ReadersNeedAClientWithSharedLocks) {
  EXPECT_EQ(ErrorOfJson({{"backend", "zookeeper"}, {"client", "zk-rw"}, {"read_fraction", 0.5}}),
            "");
  EXPECT_EQ(ErrorOfJson({{"backend", "zookeeper"}, {"client", "zk-fair"}, {"read_fraction", 0.5}}),
            "--read-fraction 0.5 takes shared (read) locks, which client zk-fair does not have "
            "(on backend zookeeper: --client zk-rw)");
  EXPECT_EQ(ErrorOfJson({{"read_fraction", 0.25}}),
            "--read-fraction 0.25 takes shared (read) locks, which client redis does not have "
            "(backend redis has none; clients that have them: zk-rw (zookeeper))");
  // Without readers every client will do.
  EXPECT_EQ(ErrorOfJson({{"backend", "zookeeper"}, {"client", "zk-fair"}}), "");
}

TEST(RunConfigTest, FencingIsRefusedWhereNoTokenOnlyGrows) {
  EXPECT_EQ(ErrorAfter([](RunConfig& c) { c.fencing = "on"; }), "");
  EXPECT_NE(ErrorOfJson({{"fencing", "on"}, {"backend", "redlock"}})
                .find("redlock has no single counter"),
            std::string::npos);
  EXPECT_NE(ErrorAfter([](RunConfig& c) {
              c.fencing = "on";
              c.client = "redis-get-set";
            }).find("redis-get-set client gives no fencing token"),
            std::string::npos);
  EXPECT_NE(ErrorAfter([](RunConfig& c) {
              c.fencing = "on";
              c.client = "redis-reentrant";
            }).find("gives no fencing token"),
            std::string::npos);
  EXPECT_EQ(ErrorAfter([](RunConfig& c) {
              c.fencing = "on";
              c.client = "redis-watchdog";
            }),
            "");
}

TEST(RunConfigTest, TestNameDerivesFromTheRun) {
  RunConfig c;
  EXPECT_EQ(c.ResolvedTestName(), "redis-mutex");
  c.client = "redis";  // the backend's own name adds nothing
  EXPECT_EQ(c.ResolvedTestName(), "redis-mutex");
  c.nemesis = {"kill"};
  EXPECT_EQ(c.ResolvedTestName(), "redis-mutex-kill");
  c.test_name = "mine";
  EXPECT_EQ(c.ResolvedTestName(), "mine");
}

TEST(RunConfigTest, NemesisAllChoosesEveryFamilyAndStaysAllInConfigJson) {
  RunConfig c;
  ASSERT_TRUE(MergeRunConfigJson({{"nemesis", "all"}}, c).ok());
  EXPECT_TRUE(c.nemesis_all);
  EXPECT_EQ(c.nemesis, AllPresetNemesisNames());
  EXPECT_EQ(c.nemesis_options.size(), AllPresetNemesisNames().size());
  // A crash removes a worker for good: only a run that names it has it.
  EXPECT_EQ(std::count(c.nemesis.begin(), c.nemesis.end(), "client-crash"), 0);
  EXPECT_EQ(c.ResolvedTestName(), "redis-mutex-all");
  const nlohmann::json j = c.ToJson();
  EXPECT_EQ(j["nemesis"], nlohmann::json::array({"all"}));

  // A rerun from config.json chooses again; a later layer's list wins.
  RunConfig again;
  ASSERT_TRUE(MergeRunConfigJson(j, again).ok());
  EXPECT_TRUE(again.nemesis_all);
  EXPECT_EQ(again.nemesis, AllPresetNemesisNames());
  ASSERT_TRUE(MergeRunConfigJson({{"nemesis", "kill"}}, again).ok());
  EXPECT_FALSE(again.nemesis_all);
  EXPECT_EQ(again.ToJson()["nemesis"], nlohmann::json::array({"kill"}));
}

TEST(RunConfigTest, DropNemesisRemovesTheFamilyWithItsOptions) {
  RunConfig c;
  ASSERT_TRUE(MergeRunConfigJson({{"nemesis", "kill,pause"}, {"restart_delay_ms", 70}}, c).ok());
  c.DropNemesis("pause");
  EXPECT_EQ(c.nemesis, std::vector<std::string>{"kill"});
  ASSERT_EQ(c.ChosenNemeses().size(), 1u);
  EXPECT_EQ(c.ChosenNemeses()[0].name, "kill");
  EXPECT_EQ(OptionsAs<KillOptions>(*c.ChosenNemeses()[0].options).restart_delay_ms, 70);
  EXPECT_TRUE(ValidateRunConfig(c).ok());
  c.DropNemesis("meteor");  // not chosen: nothing changes
  EXPECT_EQ(c.nemesis, std::vector<std::string>{"kill"});
}

}  // namespace
}  // namespace locksmith
