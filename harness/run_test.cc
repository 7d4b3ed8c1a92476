// The run lifecycle on fakes (no root, no servers): whatever a run meets (a
// workload or a worker that throws, servers that will not start, a clean
// run), its scopes tear down what was set up, heal the nemesis, keep the
// history and end with the exit code and error the user must see.
#include "harness/recheck_run.h"
#include "harness/run.h"

#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <sstream>
#include <stdexcept>

#include <boost/asio/steady_timer.hpp>
#include <boost/asio/use_awaitable.hpp>

#include "backends/testing/fake_lock_service.h"
#include "base/exit_codes.h"
#include "base/testing/file_text.h"
#include "base/testing/temp_dir.h"
#include "cluster/testing/fake_cluster.h"
#include "harness/signal_watcher.h"
#include "history/history_file.h"
#include "history/history_log.h"
#include "nemesis/nemesis_registry.h"
#include "workloads/mutex_workload.h"

namespace locksmith {
namespace {

using testing::FakeCluster;
using testing::FakeLockService;
using testing::FileText;
using testing::TempDir;

// A FakeLockService that counts starts and stops and can refuse to start.
class CountingService : public FakeLockService {
 public:
  Status Start() override {
    ++starts;
    return start_status;
  }
  void Stop() override { ++stops; }

  Status start_status = OkStatus();
  int starts = 0;
  int stops = 0;
};

// Counts heals; performs nothing.
class CountingNemesis : public Nemesis {
 public:
  explicit CountingNemesis(int* teardowns) : teardowns_(teardowns) {}
  std::vector<std::string> Faults() const override { return {}; }
  FaultResult Invoke(const FaultOp&) override { return {}; }
  std::vector<HealFailure> Teardown() override {
    ++*teardowns_;
    return {};
  }

 private:
  int* teardowns_;
};

// Records one acquire, then throws (as a workload with a bug would).
class ThrowingWorkload : public Workload {
 public:
  std::string Name() const override { return "throwing"; }
  boost::asio::awaitable<Status> Run(WorkloadContext& ctx) override {
    Op op;
    op.process = 0;
    op.f = "acquire";
    op.key = "lock-0";
    ctx.recorder.Record(op);
    throw std::runtime_error("workload bug");
    co_return OkStatus();
  }
  std::vector<std::unique_ptr<Checker>> Checkers() const override {
    return MutexWorkload().Checkers();
  }
};

// Connects, records worker 1's acquire, then waits on it forever: a client
// call without a deadline, or a client program that keeps the event loop busy.
class HangingWorkload : public Workload {
 public:
  std::string Name() const override { return "hanging"; }
  boost::asio::awaitable<Status> Run(WorkloadContext& ctx) override {
    if (ctx.on_connected) ctx.on_connected();
    ctx.recorder.Record(Op{.process = 1, .type = OpType::kInvoke, .f = "acquire", .key = "lock-0"});
    boost::asio::steady_timer never(ctx.io, std::chrono::hours(1));
    co_await never.async_wait(boost::asio::use_awaitable);
    co_return OkStatus();
  }
  std::vector<std::unique_ptr<Checker>> Checkers() const override {
    return MutexWorkload().Checkers();
  }
};

// The mutex workload, counting its final reads.
class CountingMutexWorkload : public MutexWorkload {
 public:
  explicit CountingMutexWorkload(int* final_reads) : final_reads_(final_reads) {}
  boost::asio::awaitable<Status> FinalReads(WorkloadContext&) override {
    ++*final_reads_;
    co_return OkStatus();
  }

 private:
  int* final_reads_;
};

// One run on fakes, and what each fake saw.
class RunLifecycleTest : public ::testing::Test {
 protected:
  RunLifecycleTest() {
    config_.store = store_.path();
    config_.test_name = "lifecycle";
    config_.seed = 7;
    config_.time_limit_s = 0.3;
    config_.concurrency = 3;
    modules_.make_cluster = [this](const RunConfig&, const std::string&) {
      return Result<std::unique_ptr<Cluster>>(std::make_unique<ClusterProbe>(this));
    };
    modules_.make_service = [this](const RunConfig&, Cluster&) {
      auto service = std::make_unique<ServiceProbe>(this);
      service->start_status = start_status_;
      service->state.throw_on_acquire = throw_on_acquire_;
      service->state.throw_in_background_on_acquire = throw_in_background_on_acquire_;
      return Result<std::unique_ptr<LockService>>(std::move(service));
    };
    modules_.make_workload = [this](const RunConfig&) -> Result<std::unique_ptr<Workload>> {
      if (workload_throws_) return std::unique_ptr<Workload>(new ThrowingWorkload());
      if (workload_hangs_) return std::unique_ptr<Workload>(new HangingWorkload());
      return std::unique_ptr<Workload>(new CountingMutexWorkload(&final_reads_));
    };
    modules_.make_nemesis = [this](const RunConfig&, const NemesisContext&) {
      return Result<std::unique_ptr<Nemesis>>(std::make_unique<CountingNemesis>(&heals_));
    };
    modules_.make_schedule = [](const RunConfig&, LockService&) {
      return std::vector<ScheduledFault>{};
    };
  }

  // The fakes report to the test when they are torn down or stopped, after
  // the run has destroyed them.
  class ClusterProbe : public FakeCluster {
   public:
    explicit ClusterProbe(RunLifecycleTest* test) : FakeCluster({"n1"}), test_(test) {}
    Status Teardown() override {
      ++test_->cluster_teardowns_;
      if (!test_->full_disk_history_.empty()) {
        // What the judge reads instead of /dev/full: nothing was written.
        std::filesystem::remove(test_->full_disk_history_);
        std::ofstream(test_->full_disk_history_).close();
      }
      return FakeCluster::Teardown();
    }

   private:
    RunLifecycleTest* test_;
  };
  class ServiceProbe : public CountingService {
   public:
    explicit ServiceProbe(RunLifecycleTest* test) : test_(test) {}
    ~ServiceProbe() override { test_->service_stops_ += stops; }

   private:
    RunLifecycleTest* test_;
  };

  RunOutcome Run() { return ExecuteRun(config_, signals_, modules_); }

  History StoredHistory(const RunOutcome& outcome) {
    auto history = LoadHistoryFile(RunHistoryFile(outcome.run_dir), "jsonl", nullptr);
    EXPECT_TRUE(history.ok()) << history.error();
    return history.ok() ? *history : History{};
  }

  nlohmann::json StoredResults(const RunOutcome& outcome) {
    std::ifstream in(outcome.run_dir + "/results.json");
    std::stringstream text;
    text << in.rdbuf();
    return nlohmann::json::parse(text.str(), nullptr, /*allow_exceptions=*/false);
  }

  TempDir store_;
  SignalWatcher signals_;
  RunConfig config_;
  RunModules modules_;
  Status start_status_ = OkStatus();
  int throw_on_acquire_ = 0;
  int throw_in_background_on_acquire_ = 0;
  bool workload_throws_ = false;
  bool workload_hangs_ = false;
  int cluster_teardowns_ = 0;
  int service_stops_ = 0;
  int heals_ = 0;
  int final_reads_ = 0;
  std::string full_disk_history_;  // history.bin, made a link to /dev/full
};

TEST_F(RunLifecycleTest, ACleanRunHealsReadsTearsDownAndIsJudged) {
  RunOutcome outcome = Run();
  EXPECT_EQ(outcome.exit_code, ExitCodeFor(Validity::kTrue)) << outcome.error;
  EXPECT_TRUE(outcome.error.empty()) << outcome.error;
  ASSERT_TRUE(outcome.result.has_value());
  EXPECT_EQ(outcome.result->valid, Validity::kTrue);
  EXPECT_EQ(heals_, 1);
  EXPECT_EQ(final_reads_, 1);
  EXPECT_EQ(service_stops_, 1);
  EXPECT_EQ(cluster_teardowns_, 1);
  EXPECT_FALSE(StoredHistory(outcome).empty());
  EXPECT_EQ(StoredResults(outcome)["valid"], true);
}

// What the run's history.bin says at its end.
HistoryEnd StoredEnd(const RunOutcome& outcome) {
  auto stream = HistoryLogStream::Open(outcome.run_dir + "/" + kRunHistoryLog);
  EXPECT_TRUE(stream) << stream.error();
  if (!stream) return {};
  EXPECT_TRUE(ReadAll(**stream));
  return *(*stream)->end();
}

TEST_F(RunLifecycleTest, ACleanRunClosesItsHistorySayingItReachedItsTimeLimit) {
  RunOutcome outcome = Run();
  const HistoryEnd end = StoredEnd(outcome);
  ASSERT_TRUE(end.closing.has_value());
  EXPECT_EQ(end.closing->ended, kEndedTimeLimit);
  EXPECT_EQ(end.closing->ops, static_cast<int64_t>(StoredHistory(outcome).size()));
  EXPECT_EQ(StoredResults(outcome)["history"]["whole"], true);
}

// A workload still in an op a grace past its time limit is ended: the run
// tears down, and its verdict is unknown with the line naming what hung.
TEST_F(RunLifecycleTest, AWorkloadThatHangsPastItsLimitIsEndedAndJudgedUnknown) {
  workload_hangs_ = true;
  config_.client_timeout_ms = 100;  // grace: 2 x 100 ms + 1 s
  RunOutcome outcome = Run();
  EXPECT_EQ(outcome.exit_code, ExitCodeFor(Validity::kUnknown)) << outcome.error;
  ASSERT_TRUE(outcome.result.has_value()) << outcome.error;
  EXPECT_EQ(outcome.result->valid, Validity::kUnknown);
  const std::string& reason = outcome.result->reason;
  EXPECT_EQ(reason.rfind("workload hung: still running ", 0), 0u) << reason;
  EXPECT_NE(reason.find(" after its time limit (grace 1.2 s): worker 1 (process 1) in acquire "
                        "lock-0 for "),
            std::string::npos)
      << reason;
  const HistoryEnd end = StoredEnd(outcome);
  ASSERT_TRUE(end.closing.has_value());
  EXPECT_EQ(end.closing->ended, kEndedHung);
  EXPECT_EQ(reason.rfind(end.closing->detail, 0), 0u) << reason;  // the line comes first
  EXPECT_EQ(final_reads_, 0);
  EXPECT_EQ(heals_, 1);
  EXPECT_EQ(service_stops_, 1);
  EXPECT_EQ(cluster_teardowns_, 1);
  // A re-check says the same: the closing record keeps it.
  std::filesystem::remove(outcome.run_dir + "/controller.json");
  std::ostringstream summary;
  EXPECT_EQ(RecheckRun(outcome.run_dir, summary), ExitCodeFor(Validity::kUnknown));
  EXPECT_NE(summary.str().find("workload hung: still running"), std::string::npos)
      << summary.str();
}

// Every op it performs took effect, and a check saw it.
class ObservedNemesis : public Nemesis {
 public:
  std::vector<std::string> Faults() const override { return {"kill", "restart"}; }
  FaultResult Invoke(const FaultOp&) override {
    FaultResult r{true, {{"nodes", {"n1"}}}, ""};
    r.observed = true;
    return r;
  }
  std::vector<HealFailure> Teardown() override { return {}; }
};

// One scripted kill of n1: at once, or after an acquire of `key`.
std::vector<ScheduledFault> KillStep(const std::string& key = "") {
  ScheduledFault kill{0, {"kill", {{"node", "n1"}}}, {0, "kill", true}};
  if (!key.empty()) kill.after = StepTrigger{"acquire", key};
  kill.step = 1;
  return {kill};
}

// A step whose event never comes: the run found nothing, but it did not
// do what it was asked, so it vouches for nothing.
TEST_F(RunLifecycleTest, AScriptedStepThatNeverFiresMakesACleanRunUnknown) {
  modules_.make_schedule = [](const RunConfig&, LockService&) {
    return KillStep("no-such-key");
  };
  RunOutcome outcome = Run();
  EXPECT_EQ(outcome.exit_code, 2) << outcome.error;
  ASSERT_TRUE(outcome.result.has_value());
  EXPECT_EQ(outcome.result->valid, Validity::kUnknown);
  const std::string line = "step 1 (kill n1 after acquire of no-such-key) never fired";
  EXPECT_EQ(outcome.result->reason, line);
  const nlohmann::json results = StoredResults(outcome);
  EXPECT_EQ(results["valid"], "unknown");
  EXPECT_EQ(results["unfulfilled"], line);
  EXPECT_EQ(results["faults"]["rows"][0]["fired"], false);
  EXPECT_EQ(results["faults"]["families"][0]["planned"], 1);
  EXPECT_EQ(outcome.faults, results["faults"]);
}

TEST_F(RunLifecycleTest, AStepThatRanAndWasObservedLeavesTheVerdictToTheCheckers) {
  modules_.make_nemesis = [](const RunConfig&, const NemesisContext&) {
    return Result<std::unique_ptr<Nemesis>>(std::make_unique<ObservedNemesis>());
  };
  modules_.make_schedule = [](const RunConfig&, LockService&) { return KillStep(); };
  RunOutcome outcome = Run();
  EXPECT_EQ(outcome.exit_code, 0) << outcome.error;
  const nlohmann::json results = StoredResults(outcome);
  EXPECT_EQ(results["valid"], true);
  EXPECT_FALSE(results.contains("unfulfilled"));
  EXPECT_EQ(results["faults"]["rows"][0]["observed"], true);
  EXPECT_EQ(results["faults"]["rows"][0]["done"], "kill n1");
}

// The reports know no fault family: results.json tells them how each looks.
TEST_F(RunLifecycleTest, ResultsJsonDescribesEveryFaultFamily) {
  const nlohmann::json described = StoredResults(Run())["fault_descriptions"];
  ASSERT_TRUE(described.is_object()) << described;
  for (const std::string& family : NemesisNames()) {
    const nlohmann::json& look = described["families"][family];
    EXPECT_EQ(look["lane"], family);
    EXPECT_TRUE(look["color"].is_string()) << family;
  }
  EXPECT_EQ(described["windows"], nlohmann::json::array());  // this run had no faults
}

// A service reporting events of kinds no backend has: it declares them, and
// tells one of each as soon as it is watched.
class EventfulService : public CountingService, public HasEvents {
 public:
  ServiceEventKinds EventKinds() const override {
    return {.source = "witnesses",
            .reporter_field = "witness",
            .kinds = {{"leader-elected", "the witnesses saw a new leader", true},
                      {"member-lost", "a witness lost sight of a member"}}};
  }
  Status WatchEvents(std::function<void(ServiceEvent)> sink) override {
    sink({"leader-elected", {{"from", "m1"}, {"to", "m2"}, {"witness", "w1"}}});
    sink({"member-lost", {{"member", "m1"}, {"witness", "w2"}}});
    return OkStatus();
  }
  void StopEvents() override {}
};

// The service's own events are info ops of the history's service process,
// results.json lists the kinds it declares, and the report draws them from
// that alone: the new leader as a promotion, in a lane named for the reporters.
TEST_F(RunLifecycleTest, AServicesOwnEventsAreRecordedListedAndDrawn) {
  modules_.make_service = [](const RunConfig&, Cluster&) {
    return Result<std::unique_ptr<LockService>>(std::make_unique<EventfulService>());
  };
  RunOutcome outcome = Run();
  ASSERT_EQ(outcome.exit_code, 0) << outcome.error;
  std::vector<std::string> events;
  for (const Op& op : StoredHistory(outcome)) {
    if (!op.is_service_event()) continue;
    EXPECT_EQ(op.type, OpType::kInfo);
    events.push_back(op.f);
  }
  EXPECT_EQ(events, std::vector<std::string>({"leader-elected", "member-lost"}));
  const nlohmann::json results = StoredResults(outcome);
  EXPECT_EQ(results["valid"], true);
  EXPECT_EQ(results["service_events"]["source"], "witnesses");
  EXPECT_EQ(results["service_events"]["kinds"][0],
            nlohmann::json({{"name", "leader-elected"},
                            {"meaning", "the witnesses saw a new leader"},
                            {"new_leader", true}}));
  EXPECT_EQ(results["service_events"]["kinds"][1]["new_leader"], false);
  const std::string page = FileText(outcome.run_dir + "/report.html");
  EXPECT_NE(page.find("promotion m1 \xE2\x86\x92 m2, seen by w1"), std::string::npos);
  // (Clients that start after its last event share its lane: "witnesses +2".)
  EXPECT_NE(page.find("\"witnesses"), std::string::npos);
}

TEST_F(RunLifecycleTest, AWorkloadThatThrowsFailsTheRunAfterTeardownAndKeepsItsHistory) {
  workload_throws_ = true;
  RunOutcome outcome = Run();
  EXPECT_EQ(outcome.exit_code, kExitRunFailed);
  EXPECT_NE(outcome.error.find("workload bug"), std::string::npos) << outcome.error;
  EXPECT_EQ(heals_, 1);
  EXPECT_EQ(final_reads_, 0);  // nothing to read after a failed workload
  EXPECT_EQ(service_stops_, 1);
  EXPECT_EQ(cluster_teardowns_, 1);
  History history = StoredHistory(outcome);
  ASSERT_EQ(history.size(), 1u);
  EXPECT_EQ(history[0].f, "acquire");
  nlohmann::json results = StoredResults(outcome);
  EXPECT_NE(results.value("workload_error", "").find("workload bug"), std::string::npos)
      << results.dump();
  // The history says how the workload ended, so a re-check cannot call it valid.
  const HistoryEnd end = StoredEnd(outcome);
  ASSERT_TRUE(end.closing.has_value());
  EXPECT_EQ(end.closing->ended, kEndedError);
  EXPECT_NE(end.closing->detail.find("workload bug"), std::string::npos) << end.closing->detail;
  EXPECT_EQ(results["valid"], "unknown") << results.dump();
  EXPECT_EQ(results.value("reason", "").rfind("the workload ended in an error: ", 0), 0u)
      << results.dump();
}

TEST_F(RunLifecycleTest, AWorkerThatThrowsFailsTheRunInsteadOfHangingIt) {
  config_.time_limit_s = 3600;  // only the failure can end this run
  throw_on_acquire_ = 5;
  RunOutcome outcome = Run();
  EXPECT_EQ(outcome.exit_code, kExitRunFailed);
  EXPECT_NE(outcome.error.find("client bug"), std::string::npos) << outcome.error;
  EXPECT_EQ(heals_, 1);
  EXPECT_EQ(cluster_teardowns_, 1);
  EXPECT_FALSE(StoredHistory(outcome).empty());
}

// A coroutine a client started on its own (a watchdog's renewals, a
// connection's read loop) that throws stops the workers and fails the run
// with its message, as a worker's throw does.
TEST_F(RunLifecycleTest, AClientsOwnCoroutineThatThrowsFailsTheRun) {
  config_.time_limit_s = 3600;  // only the failure can end this run
  throw_in_background_on_acquire_ = 5;
  RunOutcome outcome = Run();
  EXPECT_EQ(outcome.exit_code, kExitRunFailed);
  EXPECT_EQ(outcome.error, "renewals: renewal bug");
  EXPECT_EQ(heals_, 1);
  EXPECT_EQ(final_reads_, 0);
  EXPECT_EQ(cluster_teardowns_, 1);
  EXPECT_FALSE(StoredHistory(outcome).empty());
}

TEST_F(RunLifecycleTest, ServersThatDoNotStartAreStillTornDown) {
  start_status_ = Error{"port in use"};
  RunOutcome outcome = Run();
  EXPECT_EQ(outcome.exit_code, kExitRunFailed);
  EXPECT_EQ(outcome.error, "servers: port in use");
  EXPECT_FALSE(outcome.result.has_value());
  EXPECT_EQ(service_stops_, 1);
  EXPECT_EQ(cluster_teardowns_, 1);
  EXPECT_EQ(heals_, 0);  // no nemesis was made
}

TEST_F(RunLifecycleTest, AnUnknownWorkloadIsBadInputAndTearsDown) {
  modules_.make_workload = [](const RunConfig&) -> Result<std::unique_ptr<Workload>> {
    return Error{"unknown workload \"nope\""};
  };
  RunOutcome outcome = Run();
  EXPECT_EQ(outcome.exit_code, kExitBadInput);
  EXPECT_EQ(outcome.error, "unknown workload \"nope\"");
  EXPECT_EQ(service_stops_, 1);
  EXPECT_EQ(cluster_teardowns_, 1);
}

TEST_F(RunLifecycleTest, AHistoryThatCannotBeWrittenEndsTheWorkloadAndLeavesItUnknown) {
  config_.time_limit_s = 5;  // the failed write, not the limit, must end it
  // /dev/full fails every write with ENOSPC, as a full disk does.
  modules_.make_cluster = [this](const RunConfig&, const std::string& nodes_dir) {
    full_disk_history_ = std::filesystem::path(nodes_dir).parent_path() / "history.bin";
    std::filesystem::create_symlink("/dev/full", full_disk_history_);
    return Result<std::unique_ptr<Cluster>>(std::make_unique<ClusterProbe>(this));
  };
  RunOutcome outcome = Run();
  const std::string line = "history incomplete: cannot write " + outcome.run_dir +
                           "/history.bin: No space left on device";
  EXPECT_EQ(outcome.exit_code, ExitCodeFor(Validity::kUnknown)) << outcome.error;
  ASSERT_TRUE(outcome.result.has_value()) << outcome.error;
  EXPECT_EQ(outcome.result->valid, Validity::kUnknown);
  EXPECT_EQ(outcome.result->reason, line);
  EXPECT_EQ(final_reads_, 0);  // nothing read after it could be recorded
  EXPECT_EQ(heals_, 1);
  EXPECT_EQ(service_stops_, 1);
  EXPECT_EQ(cluster_teardowns_, 1);
  EXPECT_EQ(StoredResults(outcome).value("reason", ""), line);
  // A re-check keeps the verdict: the history on disk is still incomplete.
  // (controller.json names this test, which still runs.)
  std::filesystem::remove(outcome.run_dir + "/controller.json");
  std::ostringstream summary;
  EXPECT_EQ(RecheckRun(outcome.run_dir, summary), ExitCodeFor(Validity::kUnknown));
  EXPECT_NE(summary.str().find(line), std::string::npos) << summary.str();
}

// A stored counter run in which every acquire ended unknown: its resource's
// init and final reads and the client's stats ended ok, but no lock was ever
// granted, so the run proves nothing and must not be called valid.
TEST(RecheckRunTest, ACounterRunThatGrantedNoLockIsUnknown) {
  TempDir dir;
  RunConfig config;
  config.workload = "counter";
  {
    std::ofstream out(dir.path() + "/config.json");
    out << config.ToJson().dump();
  }
  const int64_t resource = 1'000'000'000;  // the workload's resource process
  auto op = [](int64_t i, int64_t process, OpType type, std::string f, nlohmann::json value) {
    Op o;
    o.index = i;
    o.time = i * 1000;
    o.process = process;
    o.type = type;
    o.f = std::move(f);
    o.key = o.f == "client-stats" ? "" : "counter-0";
    o.value = std::move(value);
    return o;
  };
  const History history = {
      op(0, resource, OpType::kInvoke, "init", {{"value", 0}}),
      op(1, resource, OpType::kOk, "init", nullptr),
      op(2, 0, OpType::kInvoke, "acquire", {{"lease_ms", 1000}}),
      op(3, 0, OpType::kInfo, "acquire", nullptr),
      op(4, 0, OpType::kInvoke, "client-stats", nullptr),
      op(5, 0, OpType::kOk, "client-stats", {{"calls", 1}}),
      op(6, resource, OpType::kInvoke, "final", nullptr),
      op(7, resource, OpType::kOk, "final", {{"value", 0}}),
  };
  {
    std::ofstream out(dir.path() + "/history.jsonl");
    for (const Op& o : history) out << OpToJsonLine(o) << "\n";
  }
  std::ostringstream summary;
  EXPECT_EQ(RecheckRun(dir.path(), summary), ExitCodeFor(Validity::kUnknown)) << summary.str();
  std::ifstream in(dir.path() + "/results.json");
  const nlohmann::json results = nlohmann::json::parse(in, nullptr, /*allow_exceptions=*/false);
  EXPECT_EQ(results.value("reason", "").find("no client operation succeeded"), 0u)
      << results.dump();
}

}  // namespace
}  // namespace locksmith
