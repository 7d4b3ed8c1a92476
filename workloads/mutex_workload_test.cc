#include "workloads/mutex_workload.h"

#include <gtest/gtest.h>

#include <map>
#include <set>

#include <boost/asio/co_spawn.hpp>
#include <boost/asio/detached.hpp>

#include "workloads/fake_lock_service.h"
#include "checker/memory_recorder.h"

namespace locksmith {
namespace {

// Runs the mutex workload against the fake service for `ms` milliseconds.
struct Outcome3 {
  Status status = OkStatus();
  History history;
  Validity validity = Validity::kTrue;
  nlohmann::json results;
};

Outcome3 RunFor(FakeLockService& service, WorkloadOptions options, int ms) {
  boost::asio::io_context io;
  MemoryRecorder recorder;
  std::atomic<bool> interrupted{false};
  WorkloadContext ctx{io, service, recorder, options,
                      std::chrono::steady_clock::now() + std::chrono::milliseconds(ms),
                      interrupted};
  MutexWorkload workload;
  Outcome3 out;
  boost::asio::co_spawn(
      io, [&]() -> boost::asio::awaitable<void> { out.status = co_await workload.Run(ctx); },
      boost::asio::detached);
  io.run();
  out.history = recorder.history();
  CompositeChecker checker(workload.Checkers());
  CheckResult r = checker.Check(out.history);
  out.validity = r.valid;
  out.results = r.ToJson();
  return out;
}

WorkloadOptions Options() {
  WorkloadOptions o;
  o.concurrency = 5;
  o.keys = 2;
  o.hold = {1, 3};
  o.backoff = {0, 1};
  o.lease_ms = 5000;
  o.seed = 42;
  return o;
}

TEST(MutexWorkloadTest, CorrectLockGivesAValidHistoryOfPairedOps) {
  FakeLockService service;
  auto out = RunFor(service, Options(), 150);
  ASSERT_TRUE(out.status.ok()) << out.status.error();
  EXPECT_EQ(out.validity, Validity::kTrue) << out.results.dump();
  const auto& by_f = out.results["stats"]["perf"]["stats"]["by_f"];
  EXPECT_GT(by_f["acquire"]["ok"].get<int>(), 10);
  EXPECT_GT(by_f["release"]["ok"].get<int>(), 10);
  // Every invoke has a completion: workers finish the op in flight.
  auto completion_of = PairCompletions(out.history);
  for (size_t i = 0; i < out.history.size(); ++i) {
    if (out.history[i].type == OpType::kInvoke) {
      EXPECT_GE(completion_of[i], 0) << i;
    }
  }
  // Acquires ask for the configured lease; keys stay within --keys.
  for (const Op& op : out.history) {
    EXPECT_TRUE(op.key == "lock-0" || op.key == "lock-1") << op.key;
    if (op.type == OpType::kInvoke && op.f == "acquire") {
      EXPECT_EQ(op.value["lease_ms"], 5000);
    }
  }
}

TEST(MutexWorkloadTest, AClientThatCannotConnectStopsTheRunAndEveryClientIsClosed) {
  FakeLockService service;
  service.state.connect_limit = 2;
  auto out = RunFor(service, Options(), 100);
  ASSERT_FALSE(out.status.ok());
  EXPECT_NE(out.status.error().find("client 2"), std::string::npos) << out.status.error();
  EXPECT_TRUE(out.history.empty());
  // Open connections would keep the io_context running.
  EXPECT_EQ(service.state.open_clients, 0);
}

TEST(MutexWorkloadTest, EveryClientIsClosedAfterARun) {
  FakeLockService service;
  auto out = RunFor(service, Options(), 50);
  ASSERT_TRUE(out.status.ok());
  EXPECT_EQ(service.state.connects, 5);
  EXPECT_EQ(service.state.open_clients, 0);
}

TEST(MutexWorkloadTest, BrokenLockIsCaughtAsDoubleHolders) {
  FakeLockService service;
  service.state.grant_everything = true;
  auto out = RunFor(service, Options(), 100);
  ASSERT_TRUE(out.status.ok());
  EXPECT_EQ(out.validity, Validity::kFalse);
  EXPECT_EQ(out.results["anomalies"][0]["class"], "unsafe-grant");
}

TEST(MutexWorkloadTest, AfterAnInfoAWorkerNeverReusesItsProcess) {
  FakeLockService service;
  service.state.unknown_every = 7;
  auto out = RunFor(service, Options(), 100);
  ASSERT_TRUE(out.status.ok());
  std::set<int64_t> dead;
  int infos = 0;
  for (const Op& op : out.history) {
    EXPECT_FALSE(dead.count(op.process)) << "process " << op.process << " reused after info";
    if (op.type == OpType::kInfo) {
      dead.insert(op.process);
      ++infos;
    }
  }
  EXPECT_GT(infos, 0);
  EXPECT_EQ(out.validity, Validity::kTrue) << out.results.dump();
}

TEST(MutexWorkloadTest, SameSeedSameChoices) {
  auto keys_of = [](const History& h) {
    std::vector<std::string> keys;
    for (const Op& op : h) {
      if (op.type == OpType::kInvoke && op.f == "acquire" && op.process == 0) keys.push_back(op.key);
    }
    keys.resize(std::min<size_t>(keys.size(), 5));
    return keys;
  };
  FakeLockService a, b;
  auto first = RunFor(a, Options(), 60);
  auto second = RunFor(b, Options(), 60);
  ASSERT_GE(keys_of(first.history).size(), 5u);
  EXPECT_EQ(keys_of(first.history), keys_of(second.history));
}

TEST(MutexWorkloadTest, RateSpacesEachWorkersAttempts) {
  FakeLockService service;
  auto o = Options();
  o.rate = 50;  // 50 attempts/s over 5 workers: one every 100 ms per worker
  auto out = RunFor(service, o, 350);
  // A worker's k-th attempt (from 0) waits for a timer at its start + k *
  // 100 ms; timers never fire early, and every worker starts after the
  // recorder's time zero, so the attempt's time stamp is at least k * 100 ms.
  std::map<int64_t, std::vector<int64_t>> attempts;  // worker -> invoke times
  for (const Op& op : out.history) {
    if (op.type == OpType::kInvoke && op.f == "acquire") {
      attempts[op.process % o.concurrency].push_back(op.time);
    }
  }
  ASSERT_FALSE(attempts.empty());
  for (const auto& [worker, times] : attempts) {
    for (size_t k = 1; k < times.size(); ++k) {
      EXPECT_GE(times[k], static_cast<int64_t>(k) * 100'000'000)
          << "worker " << worker << " attempt " << k;
    }
  }
}

}  // namespace
}  // namespace locksmith
