#include "workloads/mutex_workload.h"

#include <gtest/gtest.h>

#include <functional>
#include <map>
#include <set>

#include <boost/asio/co_spawn.hpp>
#include <boost/asio/detached.hpp>

#include "backends/client_pauses.h"
#include "backends/testing/fake_lock_service.h"
#include "history/testing/memory_recorder.h"
#include "workloads/testing/fake_clock.h"
#include "workloads/workload_registry.h"

namespace locksmith {
namespace {

using testing::FakeClock;
using testing::FakeLockService;
using testing::MemoryRecorder;

using Clock = std::chrono::steady_clock;
using std::chrono::milliseconds;
using std::chrono::seconds;

// Runs stop by op counts, not by wall-clock windows: this recorder sets the
// run's interrupt flag once `stop_after` recorded ops satisfy `counts`
// (everything runs on the test's one io_context thread, so the stop point is
// exact). The deadline is only a safety net.
class StoppingRecorder : public OpRecorder {
 public:
  StoppingRecorder(MemoryRecorder::Now now, std::atomic<bool>& interrupted, int stop_after,
                   std::function<bool(const Op&)> counts)
      : memory_(std::move(now)),
        interrupted_(interrupted),
        stop_after_(stop_after),
        counts_(std::move(counts)) {}

  OpStamp Record(Op op) override {
    const bool counted = !counts_ || counts_(op);
    const OpStamp stamped = memory_.Record(std::move(op));
    if (stop_after_ >= 0 && counted && ++seen_ >= stop_after_) interrupted_ = true;
    return stamped;
  }
  History history() const { return memory_.history(); }

 private:
  MemoryRecorder memory_;
  std::atomic<bool>& interrupted_;
  int stop_after_;
  std::function<bool(const Op&)> counts_;
  int seen_ = 0;
};

std::function<bool(const Op&)> Is(const std::string& f, OpType type) {
  return [=](const Op& op) { return op.f == f && op.type == type; };
}

struct Spec {
  int stop_after = -1;                      // interrupt after this many counted ops (-1: never)
  std::function<bool(const Op&)> counts;    // which ops count (empty: all)
  Clock::duration deadline_in = seconds(30);  // from the start of the run; negative: already past
  bool interrupted_at_start = false;
  // Wall time: if the workload has not returned by then, the test fails
  // (instead of hanging).
  Clock::duration safety = seconds(60);
  std::function<void()> on_connected = {};
  const ClientFaults* client_faults = nullptr;
  std::function<std::string(int)> client_address = {};
};

struct Outcome3 {
  bool finished = false;  // Run() returned
  Status status = OkStatus();
  History history;
  Validity validity = Validity::kTrue;
  nlohmann::json results;
};

// The run's options and the workload's own, set side by side in a test.
struct TestOptions : WorkloadOptions, MutexOptions {};

// Runs a MutexWorkload made from `o`, or `built` when given, in virtual
// time: the service's leases, the recorder's op times and the workload's
// sleeps all read one FakeClock.
Outcome3 RunWorkload(FakeLockService& service, const TestOptions& o, const Spec& spec,
                     Workload* built = nullptr) {
  FakeClock clock;
  const auto now = [&clock] { return clock.Now(); };
  service.state.now = now;
  std::atomic<bool> interrupted{spec.interrupted_at_start};
  StoppingRecorder recorder(now, interrupted, spec.stop_after, spec.counts);
  MutexWorkload own(o);
  Workload& workload = built != nullptr ? *built : own;
  const WorkloadOptions& options = o;
  Outcome3 out;
  {
    // Declared after everything the workload's coroutines use, so it is
    // destroyed (with any coroutine still pending) first.
    boost::asio::io_context io;
    WorkloadContext ctx{io, service, recorder, options, clock.Now() + spec.deadline_in, interrupted,
                        spec.on_connected};
    ctx.client_faults = spec.client_faults;
    ctx.clock = &clock;
    ctx.client_address = spec.client_address;
    boost::asio::co_spawn(
        io,
        [&]() -> boost::asio::awaitable<void> {
          out.status = co_await workload.Run(ctx);
          out.finished = true;
        },
        boost::asio::detached);
    const auto finished = [&] { return out.finished; };
    if (!clock.Run(io, finished, spec.safety)) {
      ADD_FAILURE() << "the workload did not return within the safety net";
      interrupted = true;
      clock.Run(io, finished, seconds(2));
    }
  }
  service.state.now = Clock::now;  // the fake clock is going away
  out.history = recorder.history();
  CompositeChecker checker(workload.Checkers());
  CheckResult r = checker.Check(out.history);
  out.validity = r.valid;
  out.results = r.ToJson();
  return out;
}

TestOptions Options() {
  TestOptions o;
  o.concurrency = 5;
  o.keys = 2;
  o.hold = {1, 3};
  o.backoff = {0, 1};
  o.lease_ms = 60000;  // never expires during a test, however loaded the machine
  o.seed = 42;
  return o;
}

int Count(const History& h, const std::string& f, OpType type) {
  int n = 0;
  for (const Op& op : h) n += op.f == f && op.type == type;
  return n;
}

// Every acquire ok is followed, in its process, by a release invoke (and,
// with a correct lock, an ok release): holders release, also when their hold
// was cut short.
void ExpectEveryHoldReleased(const History& h, bool correct_lock = true) {
  std::map<int64_t, int> open;  // process -> acquires ok not yet released
  for (const Op& op : h) {
    if (op.f == "acquire" && op.type == OpType::kOk) ++open[op.process];
    if (op.f == "release" && op.type == OpType::kInvoke) --open[op.process];
  }
  for (const auto& [process, n] : open) EXPECT_EQ(n, 0) << "process " << process;
  if (correct_lock) {
    EXPECT_EQ(Count(h, "release", OpType::kOk), Count(h, "acquire", OpType::kOk));
  }
}

TEST(MutexOptionsTest, ParseAndValidateNamingTheFlag) {
  OptionsOf<MutexOptions> options;
  ASSERT_TRUE(options.set().Validate().ok());
  ASSERT_TRUE(options.set().Merge({{"keys", 2}, {"hold", "5-9"}, {"backoff", 3}, {"lease_ms", 70}})
                  .ok());
  EXPECT_EQ(options.value().keys, 2);
  EXPECT_EQ(options.value().hold, (MsRange{5, 9}));
  EXPECT_EQ(options.value().backoff, (MsRange{3, 3}));
  EXPECT_EQ(options.value().lease_ms, 70);
  EXPECT_EQ(options.set().ToJson(),
            nlohmann::json({{"keys", 2}, {"hold", "5-9"}, {"backoff", "3"},
                            {"acquire_wait_ms", 2000}, {"lease_ms", 70}, {"reentry", 0.0}, {"read_fraction", 0.0}, {"stuck_leases", 3},
                            {"hold_within_validity_ms", -1}}));
  ASSERT_TRUE(options.set().Merge({{"keys", 0}}).ok());
  EXPECT_EQ(options.set().Validate().error(), "--keys must be 1 to 1000000");
  EXPECT_EQ(options.set().Merge({{"hold", "x"}}).error(),
            "\"hold\": \"x\" is not a whole number of milliseconds");
}

TEST(MutexWorkloadTest, TheRegistryBuildsItFromItsOwnOptions) {
  auto options = (*FindWorkload("mutex"))->options();
  ASSERT_TRUE(options->set().Merge({{"keys", 1}, {"lease_ms", 4321}}).ok());
  auto workload = MakeWorkload("mutex", *options);
  ASSERT_TRUE(workload.ok());
  FakeLockService service;
  Spec spec;
  spec.stop_after = 5;
  spec.counts = Is("acquire", OpType::kOk);
  auto out = RunWorkload(service, Options(), spec, workload->get());
  ASSERT_TRUE(out.finished);
  int acquires = 0;
  for (const Op& op : out.history) {
    EXPECT_EQ(op.key, "lock-0");
    if (op.type == OpType::kInvoke && op.f == "acquire") {
      EXPECT_EQ(op.value["lease_ms"], 4321);
      ++acquires;
    }
  }
  EXPECT_GE(acquires, 5);
}

TEST(MutexWorkloadTest, CorrectLockGivesAValidHistoryOfPairedOps) {
  FakeLockService service;
  Spec spec;
  spec.stop_after = 20;
  spec.counts = Is("acquire", OpType::kOk);
  auto out = RunWorkload(service, Options(), spec);
  ASSERT_TRUE(out.finished);
  ASSERT_TRUE(out.status.ok()) << out.status.error();
  EXPECT_EQ(out.validity, Validity::kTrue) << out.results.dump();
  const auto& by_f = out.results["stats"]["perf"]["stats"]["by_f"];
  EXPECT_GE(by_f["acquire"]["ok"].get<int>(), 20);
  EXPECT_GE(by_f["release"]["ok"].get<int>(), 20);
  ExpectEveryHoldReleased(out.history);
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
      EXPECT_EQ(op.value["lease_ms"], 60000);
    }
  }
}

// The completions of the logical acquires, in order.
std::vector<Op> AcquireCompletions(const History& h) {
  std::vector<Op> done;
  for (const Op& op : h) {
    if (op.f == "acquire" && op.type != OpType::kInvoke) done.push_back(op);
  }
  return done;
}

// One acquire waits for a lock another holds: a try-lock client is asked
// again until it gets the lock, and the one op says how many attempts and
// how long it took.
TEST(MutexWorkloadTest, AnAcquireRetriesWithinItsWaitAndSaysAttemptsAndWait) {
  FakeLockService service;
  TestOptions o = Options();
  o.concurrency = 2;
  o.keys = 1;
  o.hold = {40, 40};
  o.backoff = {5, 5};
  o.acquire_wait_ms = 1000;
  const Outcome3 out = RunWorkload(service, o, {.stop_after = 10,
                                                .counts = Is("acquire", OpType::kOk)});
  ASSERT_TRUE(out.status.ok()) << out.status.error();
  EXPECT_EQ(out.validity, Validity::kTrue) << out.results.dump();
  // Nothing gave up before the interrupt: a wait ends only with the lock,
  // or cut short once the run stops.
  int oks = 0;
  for (const Op& op : AcquireCompletions(out.history)) {
    oks += op.type == OpType::kOk;
    if (op.type == OpType::kFail) {
      EXPECT_GE(oks, 10) << op.value.dump();
    }
  }
  int attempts = 0, waited = 0;
  for (const Op& op : AcquireCompletions(out.history)) {
    ASSERT_TRUE(op.value.contains("attempts")) << op.value.dump();
    attempts += op.value["attempts"].get<int>();
    if (op.value["attempts"].get<int>() > 1) {
      ++waited;
      EXPECT_GE(op.value["waited_ms"].get<int64_t>(), 5) << op.value.dump();
    }
  }
  EXPECT_GT(waited, 0);
  // Every call the clients made is an attempt of some recorded acquire.
  EXPECT_EQ(attempts, service.state.acquires);
  const nlohmann::json invoke = out.history.front().value;
  EXPECT_EQ(invoke["wait_ms"], 1000);
}

// A lock held past the whole wait: the acquire gives up after its budget,
// a fail that says the lock stayed busy.
TEST(MutexWorkloadTest, AnAcquireGivesUpWhenItsWaitEndsAndSaysTheLockWasBusy) {
  FakeLockService service;
  TestOptions o = Options();
  o.concurrency = 2;
  o.keys = 1;
  o.hold = {500, 500};
  o.backoff = {10, 10};
  o.acquire_wait_ms = 100;
  const Outcome3 out = RunWorkload(service, o, {.stop_after = 2,
                                                .counts = Is("acquire", OpType::kFail)});
  ASSERT_TRUE(out.status.ok()) << out.status.error();
  int fails = 0;
  for (const Op& op : AcquireCompletions(out.history)) {
    if (op.type != OpType::kFail) continue;
    ++fails;
    EXPECT_EQ(op.value["gave_up"], "busy") << op.value.dump();
    EXPECT_GE(op.value["waited_ms"].get<int64_t>(), 100) << op.value.dump();
    EXPECT_GE(op.value["attempts"].get<int>(), 5) << op.value.dump();  // 100 ms / 10 ms pauses
  }
  EXPECT_GE(fails, 2);
}

// A wait of 0 is the single try of a try-lock: one attempt an acquire.
TEST(MutexWorkloadTest, NoWaitMeansOneAttemptAnAcquire) {
  FakeLockService service;
  TestOptions o = Options();
  o.keys = 1;
  o.acquire_wait_ms = 0;
  const Outcome3 out = RunWorkload(service, o, {.stop_after = 20,
                                                .counts = Is("acquire", OpType::kFail)});
  ASSERT_TRUE(out.status.ok()) << out.status.error();
  for (const Op& op : AcquireCompletions(out.history)) EXPECT_EQ(op.value["attempts"], 1);
  EXPECT_GE(Count(out.history, "acquire", OpType::kFail), 20);
}

TEST(MutexWorkloadTest, AClientThatCannotConnectStopsTheRunAndEveryClientIsClosed) {
  FakeLockService service;
  service.state.connect_limit = 2;
  auto out = RunWorkload(service, Options(), Spec{});
  ASSERT_TRUE(out.finished);
  ASSERT_FALSE(out.status.ok());
  EXPECT_NE(out.status.error().find("client 2"), std::string::npos) << out.status.error();
  EXPECT_TRUE(out.history.empty());
  // Open connections would keep the io_context running.
  EXPECT_EQ(service.state.open_clients, 0);
}

// Workers used to be spawned detached: the exception vanished, the running
// count never reached zero and the workload waited forever.
TEST(MutexWorkloadTest, AWorkerThatThrowsEndsTheRunWithItsErrorAndTheOthersStop) {
  FakeLockService service;
  service.state.throw_on_acquire = 20;
  Spec spec;
  spec.deadline_in = std::chrono::hours(1);  // only the failure can end this run
  auto out = RunWorkload(service, Options(), spec);
  ASSERT_TRUE(out.finished);
  ASSERT_FALSE(out.status.ok());
  EXPECT_NE(out.status.error().find("client bug"), std::string::npos) << out.status.error();
  EXPECT_EQ(out.status.error().rfind("worker ", 0), 0u) << out.status.error();
  EXPECT_EQ(service.state.open_clients, 0);
  // The other workers stopped at their next attempt: each finished at most
  // the call it had in flight when the 20th threw.
  EXPECT_GE(service.state.acquires, 20);
  EXPECT_LE(service.state.acquires, 20 + Options().concurrency - 1);
}

TEST(MutexWorkloadTest, EveryClientIsClosedAfterARun) {
  FakeLockService service;
  Spec spec;
  spec.stop_after = 10;
  auto out = RunWorkload(service, Options(), spec);
  ASSERT_TRUE(out.finished);
  ASSERT_TRUE(out.status.ok());
  EXPECT_EQ(service.state.connects, 5);
  EXPECT_EQ(service.state.open_clients, 0);
}

TEST(MutexWorkloadTest, EachClientGetsItsOwnSlotSeedAndSourceAddress) {
  FakeLockService service;
  Spec spec;
  spec.stop_after = 10;
  spec.client_address = [](int i) { return "198.19.0." + std::to_string(i + 1); };
  auto out = RunWorkload(service, Options(), spec);
  ASSERT_TRUE(out.finished);
  ASSERT_EQ(service.slots.size(), 5u);
  std::set<uint64_t> seeds;
  for (int i = 0; i < 5; ++i) {
    EXPECT_EQ(service.slots[i].index, i);
    EXPECT_EQ(service.slots[i].source_address, "198.19.0." + std::to_string(i + 1));
    seeds.insert(service.slots[i].seed);
  }
  EXPECT_EQ(seeds.size(), 5u);
}

TEST(MutexWorkloadTest, OnConnectedRunsOnceBeforeTheFirstOpAndNotWhenAConnectFails) {
  FakeLockService service;
  int calls = 0;
  size_t connects_at_call = 0;
  Spec spec;
  spec.stop_after = 20;
  spec.on_connected = [&] {
    ++calls;
    connects_at_call = static_cast<size_t>(service.state.connects);
  };
  auto out = RunWorkload(service, Options(), spec);
  ASSERT_TRUE(out.status.ok());
  EXPECT_EQ(calls, 1);
  EXPECT_EQ(connects_at_call, 5u);  // every client, before any worker started
  EXPECT_FALSE(out.history.empty());

  FakeLockService refusing;
  refusing.state.connect_limit = 2;
  calls = 0;
  auto failed = RunWorkload(refusing, Options(), spec);
  EXPECT_FALSE(failed.status.ok());
  EXPECT_EQ(calls, 0);
}

TEST(MutexWorkloadTest, BrokenLockIsCaughtAsDoubleHolders) {
  FakeLockService service;
  service.state.grant_everything = true;
  auto o = Options();
  // Holds end only at the interrupt, which comes after all 5 workers hold:
  // 5 holders on 2 keys overlap, whatever the scheduling.
  o.hold = {60000, 60000};
  Spec spec;
  spec.stop_after = 5;
  spec.counts = Is("acquire", OpType::kOk);
  auto out = RunWorkload(service, o, spec);
  ASSERT_TRUE(out.finished);
  ASSERT_TRUE(out.status.ok());
  EXPECT_EQ(out.validity, Validity::kFalse);
  EXPECT_EQ(out.results["anomalies"][0]["class"], "unsafe-grant") << out.results.dump();
  ExpectEveryHoldReleased(out.history, /*correct_lock=*/false);
}

TEST(MutexWorkloadTest, ReadersTakeSharedLocksAndEachAcquireSaysItsMode) {
  FakeLockService service;
  service.state.shared_locks = true;
  auto o = Options();
  o.keys = 1;
  o.read_fraction = 0.7;
  o.hold = {5, 20};
  Spec spec;
  spec.stop_after = 60;
  spec.counts = Is("acquire", OpType::kOk);
  auto out = RunWorkload(service, o, spec);
  ASSERT_TRUE(out.finished);
  ASSERT_TRUE(out.status.ok()) << out.status.error();
  EXPECT_EQ(out.validity, Validity::kTrue) << out.results.dump();
  int reads = 0, writes = 0;
  for (const Op& op : out.history) {
    if (op.type != OpType::kInvoke || (op.f != "acquire" && op.f != "release")) continue;
    ASSERT_TRUE(op.value.contains("mode")) << op.value.dump();
    (op.value["mode"] == "read" ? reads : writes) += op.f == "acquire";
  }
  EXPECT_GT(reads, 0);
  EXPECT_GT(writes, 0);
  // Judged as a read-write lock: five workers on one key, mostly readers,
  // holding 5-20 ms, share it.
  const auto& rw = out.results["stats"]["rw-lock"]["stats"];
  EXPECT_GT(rw["reader_overlaps"].get<int>(), 0) << out.results.dump();
  EXPECT_EQ(rw["double_holders"], 0);
  EXPECT_FALSE(out.results["stats"].contains("double-holder"));
  ExpectEveryHoldReleased(out.history);
}

TEST(MutexWorkloadTest, AWriterGrantedBesideReadersIsCaught) {
  FakeLockService service;
  service.state.shared_locks = true;
  service.state.grant_everything = true;
  auto o = Options();
  o.read_fraction = 0.5;
  o.hold = {60000, 60000};
  Spec spec;
  spec.stop_after = 5;
  spec.counts = Is("acquire", OpType::kOk);
  auto out = RunWorkload(service, o, spec);
  ASSERT_TRUE(out.finished);
  EXPECT_EQ(out.validity, Validity::kFalse) << out.results.dump();
  EXPECT_GT(out.results["stats"]["rw-lock"]["stats"]["double_holders"].get<int>(), 0);
}

TEST(MutexWorkloadTest, AClientWithoutSharedLocksIsRefusedBeforeTheFirstOp) {
  FakeLockService service;  // shared_locks = false
  auto o = Options();
  o.read_fraction = 0.5;
  MutexWorkload workload(o);
  EXPECT_EQ(workload.SharedAcquiresBy(), "--read-fraction 0.5");
  EXPECT_EQ(MutexWorkload(Options()).SharedAcquiresBy(), "");
  auto out = RunWorkload(service, o, Spec{});
  ASSERT_TRUE(out.finished);
  ASSERT_FALSE(out.status.ok());
  EXPECT_EQ(out.status.error(),
            "--read-fraction 0.5 takes shared (read) locks, which this lock client does not have");
  EXPECT_TRUE(out.history.empty());
  EXPECT_EQ(service.state.open_clients, 0);
}

TEST(MutexWorkloadTest, WithoutReadersAcquiresCarryNoMode) {
  FakeLockService service;
  Spec spec;
  spec.stop_after = 5;
  spec.counts = Is("acquire", OpType::kOk);
  auto out = RunWorkload(service, Options(), spec);
  ASSERT_GE(Count(out.history, "acquire", OpType::kOk), 5);
  for (const Op& op : out.history) EXPECT_FALSE(op.value.contains("mode")) << op.value.dump();
  EXPECT_TRUE(out.results["stats"].contains("double-holder"));
}

// The history's ops of `process` on `key`, in order.
std::vector<std::string> OpsOf(const History& history, int64_t process) {
  std::vector<std::string> ops;
  for (const Op& op : history) {
    if (op.process == process) ops.push_back(op.f + ":" + std::string(OpTypeName(op.type)));
  }
  return ops;
}

TEST(MutexWorkloadTest, AClientPauseStallsAHolderInsideItsCriticalSection) {
  FakeLockService service;
  ClientFaults faults;
  ClientPauses& pauses = faults.Add(std::make_shared<ClientPauses>());
  pauses.Request(std::chrono::milliseconds(20));
  Spec spec;
  spec.client_faults = &faults;
  spec.stop_after = 40;
  auto out = RunWorkload(service, Options(), spec);
  auto taken = pauses.AwaitTaken(std::chrono::milliseconds(0));
  ASSERT_TRUE(taken.has_value());
  // The stall sits between the holder's acquire ok and its release.
  const auto ops = OpsOf(out.history, taken->process);
  auto pause = std::find(ops.begin(), ops.end(), "pause:invoke");
  ASSERT_NE(pause, ops.end());
  ASSERT_GE(pause - ops.begin(), 2);
  EXPECT_EQ(*(pause - 1), "acquire:ok");
  ASSERT_LT(pause + 2, ops.end());
  EXPECT_EQ(*(pause + 1), "pause:ok");
  EXPECT_EQ(*(pause + 2), "release:invoke");
  EXPECT_EQ(out.validity, Validity::kTrue);  // a pause within the lease is safe
}

TEST(MutexWorkloadTest, AClientPauseLongerThanTheLeaseMakesAnExpiredLeaseDoubleHolder) {
  FakeLockService service;
  ClientFaults faults;
  ClientPauses& pauses = faults.Add(std::make_shared<ClientPauses>());
  pauses.Request(std::chrono::milliseconds(300));
  TestOptions options = Options();
  options.keys = 1;
  options.lease_ms = 50;
  Spec spec;
  spec.client_faults = &faults;
  spec.deadline_in = std::chrono::seconds(2);
  auto out = RunWorkload(service, options, spec);
  ASSERT_TRUE(pauses.AwaitTaken(std::chrono::milliseconds(0)).has_value());
  EXPECT_EQ(out.validity, Validity::kFalse);
  const auto& anomalies = out.results["stats"]["double-holder"]["stats"];
  EXPECT_GE(anomalies.value("expired_lease_uses", 0), 1) << out.results.dump();
  EXPECT_EQ(anomalies.value("unsafe_grants", 0), 0) << out.results.dump();
}

TEST(MutexWorkloadTest, AnInFlightPauseStallsAnAcquireAndIsRecordedAsLonePauseOps) {
  FakeLockService service;
  ClientFaults faults;
  ClientPauses& pauses = faults.Add(std::make_shared<ClientPauses>());
  pauses.RequestAt(PausePoint::kInFlight,
                   {std::chrono::milliseconds(20), std::chrono::milliseconds(-20)});
  Spec spec;
  spec.client_faults = &faults;
  spec.stop_after = 40;
  auto out = RunWorkload(service, Options(), spec);
  auto taken = pauses.AwaitTaken(std::chrono::milliseconds(0));
  ASSERT_TRUE(taken.has_value());
  EXPECT_EQ(taken->point, PausePoint::kInFlight);
  // Inside the acquire: its invoke, the stall's begin and end, its ok.
  const auto ops = OpsOf(out.history, taken->process);
  auto pause = std::find(ops.begin(), ops.end(), "pause:ok");
  ASSERT_NE(pause, ops.end());
  ASSERT_GE(pause - ops.begin(), 1);
  EXPECT_EQ(*(pause - 1), "acquire:invoke");
  ASSERT_LT(pause + 2, ops.end());
  EXPECT_EQ(*(pause + 1), "pause:ok");
  EXPECT_EQ(*(pause + 2), "acquire:ok");
  std::vector<nlohmann::json> values;  // from the stall's begin on
  for (const Op& op : out.history) {
    if (op.process != taken->process || op.type == OpType::kInvoke) continue;
    if (op.f == "pause" || !values.empty()) values.push_back(op.value);
  }
  ASSERT_GE(values.size(), 3u);
  EXPECT_EQ(values[0]["at"], "in-flight");
  EXPECT_EQ(values[0]["phase"], "begin");
  EXPECT_EQ(values[1]["phase"], "end");
  EXPECT_EQ(values[1]["clock_step_ms"], -20);
  EXPECT_EQ(values[2]["clock_step_ms"], -20) << "the client got the step";
  EXPECT_EQ(out.validity, Validity::kTrue) << "lone pause ops leave the acquire paired";
}

// --hold-within-validity: each hold ends the margin before the validity
// the acquire reported (the fake's: the whole lease), when that comes
// before the hold drawn; -1 leaves the drawn hold.
TEST(MutexWorkloadTest, HoldsWithinValidityEndTheMarginBeforeTheReportedValidity) {
  auto hold_lengths = [](int64_t margin_ms) {
    FakeLockService service;
    TestOptions options = Options();
    options.keys = 1;
    options.concurrency = 2;
    options.hold = {300, 300};
    options.lease_ms = 100;
    options.hold_within_validity_ms = margin_ms;
    Spec spec;
    spec.stop_after = 6;
    spec.counts = Is("release", OpType::kInvoke);
    auto out = RunWorkload(service, options, spec);
    std::map<int64_t, int64_t> granted;  // process -> its acquire's ok time
    std::set<int64_t> lengths_ms;
    for (const Op& op : out.history) {
      if (op.f == "acquire" && op.type == OpType::kOk) granted[op.process] = op.time;
      if (op.f == "release" && op.type == OpType::kInvoke) {
        lengths_ms.insert((op.time - granted.at(op.process)) / 1'000'000);
      }
    }
    return std::make_pair(lengths_ms, out.validity);
  };
  // The interrupt that ends the test may cut the last holds short.
  const auto [within, within_valid] = hold_lengths(20);
  EXPECT_EQ(*within.rbegin(), 80) << "each hold ends 20 ms before the 100 ms validity";
  EXPECT_EQ(within_valid, Validity::kTrue);
  EXPECT_EQ(hold_lengths(200).first, (std::set<int64_t>{0})) << "never below nothing";
  const auto [drawn, drawn_valid] = hold_lengths(-1);
  EXPECT_EQ(*drawn.rbegin(), 300) << "the hold drawn, past the lease";
  EXPECT_EQ(drawn_valid, Validity::kFalse) << "holds past the lease overlap the next grant";
}

TEST(MutexWorkloadTest, AfterAnInfoAWorkerNeverReusesItsProcess) {
  FakeLockService service;
  service.state.unknown_every = 7;
  Spec spec;
  spec.stop_after = 5;
  spec.counts = [](const Op& op) { return op.type == OpType::kInfo; };
  auto out = RunWorkload(service, Options(), spec);
  ASSERT_TRUE(out.finished);
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
  EXPECT_GE(infos, 5);
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
  Spec spec;
  spec.stop_after = 5;
  spec.counts = [](const Op& op) {
    return op.type == OpType::kInvoke && op.f == "acquire" && op.process == 0;
  };
  FakeLockService a, b;
  auto first = RunWorkload(a, Options(), spec);
  auto second = RunWorkload(b, Options(), spec);
  ASSERT_TRUE(first.finished && second.finished);
  ASSERT_EQ(keys_of(first.history).size(), 5u);
  EXPECT_EQ(keys_of(first.history), keys_of(second.history));
}

// --- The run ends however early it must (it used to hang: co_spawn ran every
// worker to its end before the wait for them was posted).

TEST(MutexWorkloadTest, ADeadlineAlreadyPastEndsTheRunAtOnce) {
  FakeLockService service;
  auto o = Options();
  o.concurrency = 50;
  Spec spec;
  spec.deadline_in = -seconds(1);
  spec.safety = seconds(10);
  auto out = RunWorkload(service, o, spec);
  ASSERT_TRUE(out.finished);
  ASSERT_TRUE(out.status.ok()) << out.status.error();
  EXPECT_TRUE(out.history.empty());
  EXPECT_EQ(service.state.connects, 50);
  EXPECT_EQ(service.state.open_clients, 0);
}

TEST(MutexWorkloadTest, AnInterruptAlreadySetEndsTheRunAtOnce) {
  FakeLockService service;
  auto o = Options();
  o.concurrency = 50;
  Spec spec;
  spec.interrupted_at_start = true;
  spec.safety = seconds(10);
  auto out = RunWorkload(service, o, spec);
  ASSERT_TRUE(out.finished);
  ASSERT_TRUE(out.status.ok()) << out.status.error();
  EXPECT_TRUE(out.history.empty());
  EXPECT_EQ(service.state.open_clients, 0);
}

// --- Sleeps (hold, backoff, --rate) end at the deadline and on an interrupt.

TEST(MutexWorkloadTest, AnInterruptEndsHoldsAndBackoffsAndHoldersStillRelease) {
  FakeLockService service;
  auto o = Options();
  o.concurrency = 3;
  o.keys = 1;  // one holder; the others fail and back off
  o.hold = {60000, 60000};
  o.backoff = {60000, 60000};
  Spec spec;
  spec.stop_after = 3;  // once every worker's first acquire has completed
  spec.counts = [](const Op& op) { return op.f == "acquire" && op.type != OpType::kInvoke; };
  spec.safety = seconds(10);
  auto out = RunWorkload(service, o, spec);
  ASSERT_TRUE(out.finished);
  ASSERT_TRUE(out.status.ok());
  EXPECT_EQ(Count(out.history, "acquire", OpType::kOk), 1);
  EXPECT_EQ(Count(out.history, "acquire", OpType::kFail), 2);
  ExpectEveryHoldReleased(out.history);
  EXPECT_EQ(out.validity, Validity::kTrue) << out.results.dump();
}

TEST(MutexWorkloadTest, TheDeadlineEndsHoldsAndHoldersStillRelease) {
  FakeLockService service;
  auto o = Options();
  o.concurrency = 3;
  o.keys = 1;
  o.hold = {60000, 60000};
  o.backoff = {60000, 60000};
  Spec spec;
  spec.deadline_in = milliseconds(200);
  spec.safety = seconds(10);
  auto out = RunWorkload(service, o, spec);
  ASSERT_TRUE(out.finished);
  ASSERT_TRUE(out.status.ok());
  EXPECT_EQ(Count(out.history, "acquire", OpType::kOk), 1);
  ExpectEveryHoldReleased(out.history);
  // The hold lasted until the deadline exactly (virtual time; the
  // recorder's time zero is the run's start).
  for (const Op& op : out.history) {
    if (op.f == "release" && op.type == OpType::kInvoke) {
      EXPECT_EQ(op.time, 200'000'000);
    }
  }
}

// --- --rate

// Invoke times of each worker's acquires.
std::map<int64_t, std::vector<int64_t>> AttemptsByWorker(const History& h, int concurrency) {
  std::map<int64_t, std::vector<int64_t>> attempts;
  for (const Op& op : h) {
    if (op.type == OpType::kInvoke && op.f == "acquire") {
      attempts[op.process % concurrency].push_back(op.time);
    }
  }
  return attempts;
}

TEST(MutexWorkloadTest, RateSpreadsAndSpacesEachWorkersAttempts) {
  FakeLockService service;
  auto o = Options();
  o.rate = 50;  // over 5 workers: worker w at w * 20 ms, then every 100 ms
  Spec spec;
  spec.stop_after = 2;  // stop at the last worker's second attempt
  spec.counts = [](const Op& op) {
    return op.type == OpType::kInvoke && op.f == "acquire" && op.process == 4;
  };
  auto out = RunWorkload(service, o, spec);
  ASSERT_TRUE(out.finished);
  // A worker's k-th attempt (from 0) is at its slot, start + w * 20 ms +
  // k * 100 ms (virtual time; the run starts at the recorder's time zero,
  // and holds and backoffs of a few ms never push an attempt past a slot).
  auto attempts = AttemptsByWorker(out.history, o.concurrency);
  // Earlier slots come first: every worker made its first attempt.
  ASSERT_EQ(attempts.size(), 5u);
  EXPECT_GE(attempts[4].size(), 2u);
  for (const auto& [worker, times] : attempts) {
    for (size_t k = 0; k < times.size(); ++k) {
      EXPECT_EQ(times[k], worker * 20'000'000 + static_cast<int64_t>(k) * 100'000'000)
          << "worker " << worker << " attempt " << k;
    }
  }
}

TEST(MutexWorkloadTest, RateSlotsPastTheDeadlineAreNotWaitedFor) {
  // 1 attempt/s over 20 workers with a 300 ms limit: worker 0 attempts at 0;
  // every other slot is past the deadline, so the run ends after that one
  // attempt (it used to make all 20 at once, then sleep 20 s).
  FakeLockService service;
  auto o = Options();
  o.concurrency = 20;
  o.rate = 1;
  Spec spec;
  spec.deadline_in = milliseconds(300);
  spec.safety = seconds(10);
  auto out = RunWorkload(service, o, spec);
  ASSERT_TRUE(out.finished);
  auto attempts = AttemptsByWorker(out.history, o.concurrency);
  ASSERT_EQ(attempts.size(), 1u);
  EXPECT_EQ(attempts.begin()->first, 0);
  EXPECT_EQ(attempts.begin()->second.size(), 1u);
  ExpectEveryHoldReleased(out.history);
}

TEST(MutexWorkloadTest, ATinyRateMeansAtMostOneAttempt) {
  FakeLockService service;
  auto o = Options();
  o.concurrency = 3;
  o.rate = 1e-300;  // spacing 3e300 s: must not overflow the clock
  Spec spec;
  spec.safety = seconds(10);
  auto out = RunWorkload(service, o, spec);
  ASSERT_TRUE(out.finished);
  auto attempts = AttemptsByWorker(out.history, o.concurrency);
  ASSERT_EQ(attempts.size(), 1u);
  EXPECT_EQ(attempts.begin()->second.size(), 1u);
}

TEST(MutexWorkloadTest, AnInterruptEndsTheWaitForARateSlot) {
  // 0.1 attempts/s over 2 workers: worker 1's first slot is at 10 s, worker
  // 0's second at 20 s; the interrupt after worker 0's first acquire ends both
  // waits.
  FakeLockService service;
  auto o = Options();
  o.concurrency = 2;
  o.rate = 0.1;
  Spec spec;
  spec.stop_after = 1;
  spec.counts = [](const Op& op) { return op.f == "acquire" && op.type != OpType::kInvoke; };
  spec.safety = seconds(8);
  auto out = RunWorkload(service, o, spec);
  ASSERT_TRUE(out.finished);
  auto attempts = AttemptsByWorker(out.history, o.concurrency);
  ASSERT_EQ(attempts.size(), 1u);
  EXPECT_EQ(attempts.begin()->first, 0);
  ExpectEveryHoldReleased(out.history);
}


namespace events {

TEST(MutexWorkloadEventsTest, LockEventsAreLoneOpsOfTheHolderAndALostHoldIsNotReleased) {
  FakeLockService service;
  service.state.lose_every = 3;
  TestOptions options = Options();
  options.hold = {5, 10};
  // Single tries: a waiter retrying at once would take a lost lock in the
  // very instant it was lost, which the fake clock stamps alike.
  options.acquire_wait_ms = 0;
  Spec spec;
  spec.stop_after = 500;
  auto out = RunWorkload(service, options, spec);
  ASSERT_TRUE(out.finished);
  ASSERT_TRUE(out.status.ok()) << out.status.error();
  EXPECT_GE(Count(out.history, "lock-lost", OpType::kOk), 3);
  EXPECT_GE(Count(out.history, "renew", OpType::kOk), 3);
  // Each lock-lost follows its process's ok acquire of the same token, and
  // that process issues no release for it.
  std::map<int64_t, std::string> held;  // process -> token of its open hold
  for (const Op& op : out.history) {
    if (op.f == "acquire" && op.type == OpType::kOk) held[op.process] = op.value["token"];
    if (op.f == "lock-lost") {
      ASSERT_EQ(held[op.process], op.value["token"]) << op.index;
      held.erase(op.process);
    }
    if (op.f == "release" && op.type == OpType::kInvoke) {
      EXPECT_EQ(held[op.process], op.value["token"]) << "released a lost hold at " << op.index;
      held.erase(op.process);
    }
  }
  EXPECT_EQ(out.validity, Validity::kTrue) << out.results.dump();
}

TEST(MutexWorkloadEventsTest, ReentriesAreNestedPairsInTheOuterHold) {
  FakeLockService service;
  service.state.reentrant = true;
  TestOptions options = Options();
  options.reentry = 0.5;
  options.hold = {4, 10};
  Spec spec;
  spec.stop_after = 800;
  auto out = RunWorkload(service, options, spec);
  ASSERT_TRUE(out.finished);
  int nested = 0;
  std::map<int64_t, int> depth;       // process -> holds it is in
  std::map<int64_t, const Op*> open;  // process -> its open invoke
  for (const Op& op : out.history) {
    if (op.type == OpType::kInvoke) {
      open[op.process] = &op;
      const bool reentry = op.value.is_object() && op.value.value("reentry", false);
      if (op.f == "acquire") {
        EXPECT_EQ(depth[op.process], reentry ? 1 : 0) << op.index;
      }
      if (op.f == "release") --depth[op.process];
      continue;
    }
    if (op.f == "acquire" && op.type == OpType::kOk) {
      ++depth[op.process];
      nested += open[op.process]->value.value("reentry", false) ? 1 : 0;
    }
  }
  EXPECT_GE(nested, 5);
  EXPECT_EQ(out.validity, Validity::kTrue) << out.results.dump();
}

}  // namespace events

}  // namespace
}  // namespace locksmith
