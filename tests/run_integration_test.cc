// End to end: the locksmith binary against real Redis servers in network
// namespaces (loopback without root). Each test checks the verdict and that
// the run left nothing behind.
#include <signal.h>
#include <sys/stat.h>
#include <unistd.h>

#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <thread>

#include "cluster/net_plan.h"
#include "cluster/net_setup.h"
#include "cluster/run_registry.h"
#include "history/history.h"
#include "tests/locksmith_process.h"

namespace locksmith::testing {
namespace {

using std::chrono::seconds;

// Ops completed, by type, from results.json.
int64_t Count(const nlohmann::json& results, const std::string& type) {
  return results["stats"]["perf"]["stats"]["by_type"].value(type, int64_t{0});
}

TEST(RunIntegrationTest, PlainRunIsValidWithThousandsOfOps) {
  TempDir dir;
  std::string out;
  // One attempt per acquire (--acquire-wait-ms 0): the op count then measures
  // how fast the harness drives the clients, not how long acquires wait.
  int code = RunLocksmith(dir.path(),
                          {"run", "--backend", "redis", "--workload", "mutex", "--concurrency", "10",
                           "--acquire-wait-ms", "0", "--time-limit", "20", "--store", "store"},
                          seconds(120), &out);
  ASSERT_EQ(code, 0) << out;
  const std::string run = LatestRun(dir.path() + "/store");
  auto results = ReadJson(run + "/results.json");
  EXPECT_EQ(results["valid"], true);
  EXPECT_GT(Count(results, "ok") + Count(results, "fail"), 2000) << results["stats"].dump();
  EXPECT_GT(Count(results, "ok"), 500);
  for (const char* file : {"config.json", "history.bin", "report.html", "junit.xml", "locksmith.log",
                           "nodes/n1/redis.log"}) {
    EXPECT_TRUE(std::filesystem::exists(run + "/" + file)) << file;
  }
  EXPECT_TRUE(ReadJson(run + "/config.json")["seed"].is_number_unsigned());
  ExpectNothingLeft(run);
}

// The same seed and faults; only the persistence differs.
std::vector<std::string> KillArgs(const std::string& persistence) {
  return {"run", "--nemesis", "kill", "--nemesis-interval", "3", "--restart-delay", "100",
          "--hold", "200-400", "--lease", "2000", "--time-limit", "15", "--seed", "1",
          "--redis-persistence", persistence, "--store", "store"};
}

TEST(RunIntegrationTest, KillWithoutPersistenceFindsDoubleHolders) {
  TempDir dir;
  std::string out;
  int code = RunLocksmith(dir.path(), KillArgs("none"), seconds(120), &out);
  ASSERT_EQ(code, 1) << out;
  const std::string run = LatestRun(dir.path() + "/store");
  auto results = ReadJson(run + "/results.json");
  EXPECT_EQ(results["valid"], false);
  ASSERT_FALSE(results["anomalies"].empty());
  const auto& anomaly = results["anomalies"][0];
  EXPECT_EQ(anomaly["type"], "double-holder");
  EXPECT_EQ(anomaly["class"], "unsafe-grant");
  // The anomaly names both holders and the ops that prove it.
  EXPECT_NE(anomaly["holders"][0]["process"], anomaly["holders"][1]["process"]);
  EXPECT_GE(anomaly["ops"].size(), 2u);
  EXPECT_NE(out.find("unsafe-grant"), std::string::npos) << out;
  EXPECT_GE(results["nemesis"]["performed"].get<int>(), 6);
  EXPECT_EQ(results["nemesis"]["failed"], 0);
  ExpectNothingLeft(run);
}

// The default chaos scenario from its data file, shortened by flags (flags
// override the file): fsync always keeps every lock across SIGKILL.
TEST(RunIntegrationTest, KillWithFsyncAlwaysStaysValid) {
  TempDir dir;
  std::string out;
  int code = RunLocksmith(dir.path(),
                          {"run", "--config", LOCKSMITH_SOURCE_DIR "/scenarios/redis-kill-fsync-always.json",
                           "--time-limit", "15", "--nemesis-interval", "3", "--seed", "1",
                           "--store", "store"},
                          seconds(120), &out);
  ASSERT_EQ(code, 0) << out;
  const std::string run = LatestRun(dir.path() + "/store");
  auto results = ReadJson(run + "/results.json");
  EXPECT_EQ(results["valid"], true);
  EXPECT_GE(results["nemesis"]["performed"].get<int>(), 6);
  EXPECT_EQ(results["nemesis"]["failed"], 0);
  // The scenario predicts no double holders (row 6, fsync always), and the
  // run says whether it agreed.
  EXPECT_EQ(results["debate"]["predicted"], "N");
  EXPECT_EQ(results["debate"]["matches"], true);
  auto config = ReadJson(run + "/config.json");
  EXPECT_EQ(config["redis_persistence"], "always");  // from the file
  EXPECT_EQ(config["time_limit_s"], 15);             // from the flag
  ExpectNothingLeft(run);
}

// The lines of `text` that start with `prefix`.
std::vector<std::string> LinesStartingWith(const std::string& text, const std::string& prefix) {
  std::vector<std::string> lines;
  std::istringstream in(text);
  for (std::string line; std::getline(in, line);) {
    if (line.rfind(prefix, 0) == 0) lines.push_back(line);
  }
  return lines;
}

std::string SignalName(int sig) { return sig == SIGINT ? "SIGINT" : "SIGTERM"; }

class InterruptTest : public ::testing::TestWithParam<int> {};

// A signal mid-workload stops it: the verdict covers the ops before it, and
// stdout, junit.xml and results.json all say the run was interrupted. A run
// cut short that found no anomaly proves nothing: unknown (2), with one line
// saying how much of the workload and of its faults ran.
TEST_P(InterruptTest, MidWorkloadTearsDownSaysSoAndKeepsACheckableHistory) {
  const int sig = GetParam();
  const std::string name = SignalName(sig);
  TempDir dir;
  const std::string store = dir.path() + "/store";
  // fsync always: the run must stay valid whenever the signal lands.
  LocksmithProcess run_process(dir.path(), {"run", "--time-limit", "120", "--nemesis", "kill",
                                            "--nemesis-interval", "1", "--redis-persistence",
                                            "always", "--store", "store"});
  ASSERT_TRUE(WaitForOps(store + "/latest", 200, seconds(60)))
      << run_process.Stderr();
  run_process.Signal(sig);
  auto code = run_process.Wait(seconds(30));
  ASSERT_TRUE(code.has_value()) << "no exit within 30 s of " << name;
  const std::string out = run_process.Stdout();
  EXPECT_EQ(*code, 2) << out << run_process.Stderr();
  auto interrupted = LinesStartingWith(out, "interrupted: ");
  ASSERT_EQ(interrupted.size(), 1u) << out;
  EXPECT_NE(interrupted[0].find("by " + name + " after "), std::string::npos) << out;
  EXPECT_NE(interrupted[0].find(" s of the 120 s workload; the verdict covers only the ops "
                                "before it, and is unknown unless they show an anomaly"),
            std::string::npos)
      << out;
  auto verdict = LinesStartingWith(out, "verdict: ");
  ASSERT_EQ(verdict.size(), 1u) << out;
  EXPECT_EQ(verdict[0].rfind("verdict: UNKNOWN (interrupted by " + name + " after ", 0), 0u)
      << out;
  EXPECT_NE(verdict[0].find(" s of the 120 s workload, "), std::string::npos) << out;
  EXPECT_NE(verdict[0].find(" planned faults ran)"), std::string::npos) << out;

  const std::string run = LatestRun(store);
  auto results = ReadJson(run + "/results.json");
  EXPECT_EQ(results["interrupted"], true);
  EXPECT_EQ(results["interruption"]["signal"], name);
  EXPECT_EQ(results["interruption"]["phase"], "workload");
  EXPECT_GT(results["interruption"]["after_s"].get<double>(), 0);
  EXPECT_EQ("interrupted: " + results["interruption"]["message"].get<std::string>(),
            interrupted[0]);
  EXPECT_EQ(results["valid"], "unknown");
  EXPECT_EQ("verdict: UNKNOWN (" + results["unfulfilled"].get<std::string>() + ")", verdict[0]);
  EXPECT_TRUE(results["anomalies"].empty()) << results["anomalies"];
  const std::string junit = ReadText(run + "/junit.xml");
  EXPECT_NE(junit.find("<property name=\"interrupted\" value=\"by " + name + " after "),
            std::string::npos)
      << junit;
  EXPECT_NE(junit.find("<system-out>" + interrupted[0] + "</system-out>"), std::string::npos)
      << junit;
  ExpectNothingLeft(run);
  // Every record written is a whole op, and the run can be judged again.
  auto log = HistoryLogStream::Open(RunHistoryFile(run), /*allow_truncated_tail=*/false);
  ASSERT_TRUE(log.ok()) << log.error();
  auto history = ReadAll(**log);
  ASSERT_TRUE(history.ok()) << history.error();
  EXPECT_GT(history->size(), 200u);
  // Judged again, it is still a run cut short.
  EXPECT_EQ(RunLocksmith(dir.path(), {"check", run}, seconds(60)), 2);
  EXPECT_EQ(ReadJson(run + "/results.json")["unfulfilled"], results["unfulfilled"]);
}

// A signal while the servers start: no op ran, so the run is unknown (2),
// not a crash (255), and still tears down and writes its reports. The
// signal is sent as soon as the run logs that servers are starting; if it
// landed just after the start instead, the attempt is repeated (the start
// takes some tens of milliseconds).
TEST_P(InterruptTest, WhileServersStartIsUnknownNotACrash) {
  const int sig = GetParam();
  const std::string name = SignalName(sig);
  bool landed_in_start = false;
  for (int attempt = 0; attempt < 10 && !landed_in_start; ++attempt) {
    TempDir dir;
    const std::string store = dir.path() + "/store";
    LocksmithProcess run_process(dir.path(), {"run", "--time-limit", "60", "--store", "store"});
    if (!WaitForText(dir.path() + "/stderr.txt", "starting servers", seconds(30))) {
      run_process.Signal(SIGTERM);  // a run that cannot be cleaned up by its own teardown is
      run_process.Wait(seconds(60));  // a cleanup job for someone else
      FAIL() << "no \"starting servers\" line: " << run_process.Stderr();
    }
    run_process.Signal(sig);
    auto code = run_process.Wait(seconds(60));
    ASSERT_TRUE(code.has_value()) << "no exit within 60 s of " << name;
    const std::string err = run_process.Stderr();
    if (err.find("signal " + name + " while the servers start") == std::string::npos) {
      // Landed after the start: another test's business. Clean up and retry.
      ExpectNothingLeft(LatestRun(store));
      continue;
    }
    landed_in_start = true;
    const std::string out = run_process.Stdout();
    EXPECT_EQ(*code, 2) << out << err;
    EXPECT_EQ(err.find("servers did not start"), std::string::npos) << err;
    EXPECT_NE(err.find("teardown (interrupted before the workload)"), std::string::npos) << err;
    EXPECT_EQ(LinesStartingWith(out, "interrupted: "),
              std::vector<std::string>{"interrupted: by " + name +
                                       " while the servers were starting, before the workload "
                                       "started; no op ran, so the verdict is unknown"})
        << out;
    EXPECT_EQ(LinesStartingWith(out, "verdict: UNKNOWN").size(), 1u) << out;
    const std::string run = LatestRun(store);
    auto results = ReadJson(run + "/results.json");
    EXPECT_EQ(results["valid"], "unknown");
    EXPECT_EQ(results["interrupted"], true);
    EXPECT_EQ(results["interruption"]["phase"], "servers");
    EXPECT_EQ(HistoryJsonl(run), "");
    // No op, and the closing record saying why.
    auto log = HistoryLogStream::Open(RunHistoryFile(run));
    ASSERT_TRUE(log) << log.error();
    ASSERT_TRUE(ReadAll(**log));
    const HistoryEnd* end = (*log)->end();
    ASSERT_TRUE(end->closing.has_value());
    EXPECT_EQ(*end->closing,
              (HistoryClosing{kEndedInterrupted, "before the workload started", 0, 0}));
    EXPECT_TRUE(std::filesystem::exists(run + "/report.html"));
    const std::string junit = ReadText(run + "/junit.xml");
    EXPECT_NE(
        junit.find("<property name=\"interrupted\" value=\"by " + name + " while the servers"),
        std::string::npos)
        << junit;
    EXPECT_NE(junit.find("<system-out>interrupted: by " + name), std::string::npos) << junit;
    ExpectNothingLeft(run);
  }
  EXPECT_TRUE(landed_in_start) << "in 10 attempts the signal never arrived while servers started";
}

INSTANTIATE_TEST_SUITE_P(Signals, InterruptTest, ::testing::Values(SIGINT, SIGTERM),
                         [](const auto& info) { return SignalName(info.param); });

TEST(RunIntegrationTest, SigkillThenCleanupRemovesEverything) {
  TempDir dir;
  const std::string store = dir.path() + "/store";
  LocksmithProcess run_process(dir.path(), {"run", "--time-limit", "120", "--store", "store"});
  ASSERT_TRUE(WaitForOps(store + "/latest", 200, seconds(60)))
      << run_process.Stderr();
  const std::string run = LatestRun(store);
  const std::string tag = RunTag(run);
  run_process.Signal(SIGKILL);
  ASSERT_TRUE(run_process.Wait(seconds(10)).has_value());
  if (geteuid() == 0) {
    // The killed run could not tear down: its namespace is still there.
    ASSERT_FALSE(tag.empty());
    EXPECT_FALSE(Leftovers(tag, run).empty()) << "nothing to clean up: the test proves nothing";
  }
  // Only this run: on a shared machine a global cleanup would also act on
  // (and report) other runs' leftovers.
  std::string out;
  EXPECT_EQ(RunLocksmith(dir.path(), {"cleanup", "--tag", tag}, seconds(60), &out), 0) << out;
  auto left = Leftovers(tag, run);
  EXPECT_TRUE(left.empty()) << "left behind: " << left.front();
  // The history written before the kill is still checkable: what it holds is
  // judged, and the verdict is unknown, since the kill left it without its
  // closing record.
  EXPECT_EQ(RunLocksmith(dir.path(), {"check", run}, seconds(60), &out), 2) << out;
  EXPECT_NE(out.find("cut short"), std::string::npos) << out;
}

// A SIGKILLed run whose registry record is gone: cleanup finds its objects
// by name, leaves them and says so with a non-zero exit, and removes them
// all with --remove-unregistered. The record is the run's own, in the
// shared registry: a private state directory would hand out address slices
// already used by other runs on this machine.
TEST(RunIntegrationTest, CleanupOfAnUnregisteredRunNeedsTheFlag) {
  if (geteuid() != 0) GTEST_SKIP() << "needs root: a loopback run leaves no namespaces";
  TempDir dir;
  const std::string store = dir.path() + "/store";
  LocksmithProcess run_process(dir.path(), {"run", "--time-limit", "120", "--store", "store"});
  ASSERT_TRUE(WaitForOps(store + "/latest", 200, seconds(60)))
      << run_process.Stderr();
  const std::string run = LatestRun(store);
  const std::string tag = RunTag(run);
  ASSERT_FALSE(tag.empty());
  run_process.Signal(SIGKILL);
  ASSERT_TRUE(run_process.Wait(seconds(10)).has_value());
  const std::string record = RunRegistry::DefaultDir() + "/runs/" + tag + ".json";
  ASSERT_TRUE(std::filesystem::remove(record)) << record;
  // Unregistered objects hold an address slice no record protects: the next
  // run on this machine would reuse it and collide. Remove them whatever
  // the test's outcome.
  struct RemoveAtEnd {
    const TempDir& dir;
    std::string tag;
    ~RemoveAtEnd() {
      RunLocksmith(dir.path(), {"cleanup", "--tag", tag, "--remove-unregistered"}, seconds(60));
    }
  } remove_at_end{dir, tag};
  // Names only: a link's state (carrier, ...) may change as its peer's
  // processes die.
  auto objects = [&] {
    std::vector<std::string> names;
    for (const auto& ns : ListNetns()) {
      if (TagFromNetnsName(ns) == tag) names.push_back(ns);
    }
    for (const auto& link : ListLinks()) {
      if (TagFromLinkName(link) == tag) names.push_back(link);
    }
    return names;
  };
  const auto before = objects();
  // The namespace, the host-side veth and the bridge.
  ASSERT_EQ(before.size(), 3u) << "nothing to clean up: the test proves nothing";

  std::string out;
  EXPECT_EQ(RunLocksmith(dir.path(), {"cleanup", "--tag", tag}, seconds(60), &out), 1) << out;
  EXPECT_NE(out.find("--remove-unregistered"), std::string::npos) << out;
  EXPECT_EQ(objects(), before);

  EXPECT_EQ(RunLocksmith(dir.path(), {"cleanup", "--tag", tag, "--remove-unregistered"},
                         seconds(60), &out),
            0)
      << out;
  auto left = Leftovers(tag, run);
  EXPECT_TRUE(left.empty()) << "left behind: " << left.front();
  EXPECT_EQ(RunLocksmith(dir.path(), {"cleanup", "--tag", tag}, seconds(60), &out), 0) << out;
}

// Too short for any op (under a millisecond after the clients connect): the
// run must end at once and say it proves nothing.
TEST(RunIntegrationTest, ARunWithNoSuccessfulOpIsUnknown) {
  TempDir dir;
  std::string out;
  int code = RunLocksmith(dir.path(),
                          {"run", "--time-limit", "0.0001", "--concurrency", "50", "--store", "store"},
                          seconds(60), &out);
  ASSERT_EQ(code, 2) << out;
  const std::string run = LatestRun(dir.path() + "/store");
  auto results = ReadJson(run + "/results.json");
  EXPECT_EQ(results["valid"], "unknown");
  EXPECT_NE(results.value("reason", "").find("no client operation succeeded"), std::string::npos);
  ExpectNothingLeft(run);
}

// A full-speed run's history grows past what is judged whole: the run
// judges it as it records it, and `check` of the finished run gives the
// same judgement. The run goes on until its history passes 23 MiB (past
// where the judgement alongside begins, however fast or loaded the machine),
// then is interrupted: a run cut short is unknown (2), and its judgement
// covers every op it recorded, whoever judges it.
TEST(RunIntegrationTest, ALongHistoryIsJudgedWhileItIsRecorded) {
  TempDir dir;
  const std::string store = dir.path() + "/store";
  LocksmithProcess run_process(dir.path(), {"run", "--backend", "redis", "--concurrency", "50",
                                            "--hold", "0-0", "--backoff", "0-0", "--keys", "50",
                                            "--time-limit", "600", "--store", "store"});
  const auto until = std::chrono::steady_clock::now() + seconds(400);
  std::error_code ec;
  while (std::chrono::steady_clock::now() < until &&
         !(std::filesystem::file_size(store + "/latest/history.bin", ec) > (uint64_t{23} << 20) &&
           !ec)) {
    std::this_thread::sleep_for(std::chrono::milliseconds(100));
  }
  run_process.Signal(SIGINT);
  auto code = run_process.Wait(seconds(180));
  ASSERT_TRUE(code.has_value()) << "no exit within 180 s of SIGINT";
  const std::string out = run_process.Stdout();
  EXPECT_EQ(*code, 2) << out << run_process.Stderr();
  const std::string run = LatestRun(store);
  ASSERT_GT(std::filesystem::file_size(run + "/history.bin"), uint64_t{23} << 20)
      << "the history did not pass 23 MiB in 400 s";
  EXPECT_NE(ReadText(run + "/locksmith.log")
                .find("finishing the judgement begun as the history grew"),
            std::string::npos);
  auto during = ReadJson(run + "/results.json");
  EXPECT_EQ(during["valid"], "unknown");
  EXPECT_TRUE(during["anomalies"].empty()) << during["anomalies"];
  ASSERT_TRUE(during["history"].contains("report_sample")) << during["history"].dump();
  std::string check_out;
  EXPECT_EQ(RunLocksmith(dir.path(), {"check", run}, seconds(120), &check_out), 2) << check_out;
  auto after = ReadJson(run + "/results.json");
  for (auto* results : {&during, &after}) {
    for (auto& [name, checker] : (*results)["stats"].items()) {
      for (const char* timing : {"time_s", "peak_memory_bytes"}) checker["stats"].erase(timing);
    }
  }
  EXPECT_EQ(after["stats"], during["stats"]);
  EXPECT_EQ(after["history"], during["history"]);
  ExpectNothingLeft(run);
}

TEST(RunIntegrationTest, BadInputIsOneLineAndExit254) {
  TempDir dir;
  const std::string fifo = dir.path() + "/fifo.json";
  ASSERT_EQ(mkfifo(fifo.c_str(), 0600), 0);
  const std::string big = dir.path() + "/big.json";
  { std::ofstream(big) << "{\"description\": \"" << std::string(2 << 20, 'x') << "\"}"; }
  const std::string long_text = dir.path() + "/long.json";
  { std::ofstream(long_text) << "{\"description\": \"" << std::string(5000, 'x') << "\"}"; }
  const std::string overflow = dir.path() + "/overflow.json";
  { std::ofstream(overflow) << "{\"concurrency\": 1e400}"; }
  // A config file a buggy CLI would accept must not start a long run: the
  // short time limit (checked after the file) keeps it brief.
  auto config = [](const std::string& path) {
    return std::vector<std::string>{"run", "--config", path, "--time-limit", "0.001"};
  };
  for (std::vector<std::string> args : {std::vector<std::string>{"run", "--concurrency", "0"},
                                        {"run", "--no-such-flag"},
                                        {"run", "--hold", "9-1"},
                                        {"run", "--redis-persistence", "sometimes"},
                                        {"run", "--nemesis", "meteor"},
                                        {"run", "--restart-delay", "500"},
                                        config(fifo),
                                        config(big),
                                        config(long_text),
                                        config(overflow),
                                        {"frobnicate"},
                                        {"frob\nnicate"},
                                        {},
                                        {"cleanup", "--tag", "NOT-A-TAG"},
                                        {"check", dir.path() + "/missing"},
                                        {"check", "/etc/hostname", "--model", "no-such-model"}}) {
    std::string out;
    std::string what;
    for (const auto& a : args) what += " " + a;
    EXPECT_EQ(RunLocksmith(dir.path(), args, seconds(30), &out), 254) << what << ": " << out;
    EXPECT_EQ(std::count(out.begin(), out.end(), '\n'), 1) << out;
    EXPECT_LT(out.size(), 300u) << what;
  }
  // Each says what is wrong.
  std::string out;
  RunLocksmith(dir.path(), {"frobnicate"}, seconds(30), &out);
  EXPECT_NE(out.find("unknown subcommand \"frobnicate\" (known: run, check, cleanup, suite, merge, debate, report, export, scenarios, trend, compare, store, shrink)"),
            std::string::npos)
      << out;
  RunLocksmith(dir.path(), config(fifo), seconds(30), &out);
  EXPECT_NE(out.find("not a regular file"), std::string::npos) << out;
  RunLocksmith(dir.path(), config(big), seconds(30), &out);
  EXPECT_NE(out.find("at most 1048576"), std::string::npos) << out;
  RunLocksmith(dir.path(), config(long_text), seconds(30), &out);
  EXPECT_NE(out.find("\"description\" is 5000 bytes; at most 4096"), std::string::npos) << out;
  RunLocksmith(dir.path(), config(overflow), seconds(30), &out);
  EXPECT_NE(out.find("\"concurrency\": the number 1e400 is out of range"), std::string::npos)
      << out;
}

// A kill or pause target by a role the backend does not declare is one line
// naming the backend's roles and exit 254 before the workload: `replicas`
// on a lone Redis (its only role is primary) and another backend's role.
// Under --nemesis all the family is left out instead, its reason in the
// run's log, and no kill strikes.
TEST(RunIntegrationTest, ATargetByARoleTheBackendLacksIsOneLineAndExit254) {
  TempDir dir;
  const std::vector<std::pair<std::vector<std::string>, std::string>> cases = {
      {{"--nemesis", "kill", "--kill-target", "replicas"},
       "--kill-target: target replicas: backend redis has no replica nodes (its roles: primary)"},
      {{"--nemesis", "pause", "--pause-target", "role:sentinel"},
       "--pause-target: target role:sentinel: backend redis has no sentinel nodes (its roles: "
       "primary)"}};
  for (const auto& [flags, message] : cases) {
    std::vector<std::string> args = {"run", "--store", "store", "--time-limit", "3"};
    args.insert(args.end(), flags.begin(), flags.end());
    std::string out;
    EXPECT_EQ(RunLocksmith(dir.path(), args, seconds(60), &out), 254) << out;
    // The message is the run's error line, whole (stderr adds the log).
    EXPECT_NE(out.find("error:   " + message + "\n"), std::string::npos) << out;
    ExpectNothingLeft(LatestRun(dir.path() + "/store"));
  }
  FinishedRun all = RunAndLoad({"--time-limit", "4", "--nemesis", "all", "--nemesis-interval",
                                "1", "--kill-target", "role:sentinel"},
                               seconds(60));
  EXPECT_NE(all.code, 254) << all.out;
  EXPECT_NE(all.log.find("--nemesis all: leaves out kill: --kill-target: target role:sentinel: "
                         "backend redis has no sentinel nodes"),
            std::string::npos)
      << all.log;
  EXPECT_TRUE(NemesisDone(all.history, "kill").empty());
  EXPECT_FALSE(FamiliesStruck(all.history).empty()) << all.out;
}

}  // namespace
}  // namespace locksmith::testing
