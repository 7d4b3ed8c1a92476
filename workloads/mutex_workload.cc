#include "workloads/mutex_workload.h"

#include <algorithm>
#include <optional>
#include <random>
#include <sstream>

#include "backends/task_group.h"
#include "base/seed.h"
#include "checker/check_file.h"
#include "checker/client_stats.h"
#include "checker/double_holder.h"
#include "checker/foreign_release_checker.h"
#include "checker/leased_lock_checker.h"
#include "checker/perf_stats.h"
#include "workloads/blocking_acquire.h"
#include "workloads/hold_events.h"
#include "workloads/op_log.h"
#include "workloads/pacing.h"
#include "workloads/worker_fault_points.h"

namespace locksmith {
namespace asio = boost::asio;
using Clock = std::chrono::steady_clock;

// One worker's log and the lock events of its client (both on the io
// thread).
struct MutexWorkload::WorkerState {
  WorkerState(OpRecorder& recorder, int worker, int concurrency)
      : log(recorder, worker, concurrency), events(log) {}
  OpLog log;
  HoldEvents events;
};

void MutexOptions::Declare(OptionSet& set) {
  set.Integer("keys", "--keys", &keys, 1, 1'000'000, "lock keys lock-0 ..")
      .Range("hold", "--hold", &hold, 0, 3'600'000,
             "ms a client holds a lock it got, MIN-MAX or N (seeded)")
      .Range("backoff", "--backoff", &backoff, 0, 3'600'000,
             "ms a client waits after a refused attempt or a failed acquire, MIN-MAX or N")
      .Integer("acquire_wait_ms", "--acquire-wait-ms", &acquire_wait_ms, int64_t{0},
               int64_t{3'600'000},
               "ms one acquire waits for the lock (try-lock clients retry, blocking ones "
               "queue); 0: one attempt")
      .Integer("lease_ms", "--lease", &lease_ms, int64_t{1}, int64_t{86'400'000},
               "lock lease (TTL) asked for on every acquire, ms")
      .Number("reentry", "--reentry", &reentry, 0, 1,
              "probability a holder re-enters the lock it holds (reentrant clients)")
      .Number("read_fraction", "--read-fraction", &read_fraction, 0, 1,
              "share of acquires that are shared (read) locks, for read-write lock clients")
      .Integer("hold_within_validity_ms", "--hold-within-validity", &hold_within_validity_ms,
               int64_t{-1}, int64_t{3'600'000},
               "end each hold this many ms before the validity its acquire reported runs out "
               "(a holder that works only while its lease lasts); -1: holds ignore it");
  DeclareStuckLeases(set, &stuck_leases);
}

asio::awaitable<Status> MutexWorkload::Run(WorkloadContext& ctx) {
  const int n = ctx.options.concurrency;
  std::vector<std::unique_ptr<WorkerState>> states;
  std::vector<std::unique_ptr<LockClient>> clients;
  clients.reserve(n);
  // Open connections keep the io_context running: close them on every path.
  struct CloseAll {
    std::vector<std::unique_ptr<LockClient>>& clients;
    ~CloseAll() {
      for (auto& c : clients) c->Close();
    }
  } close_all{clients};
  for (int i = 0; i < n; ++i) {
    states.push_back(std::make_unique<WorkerState>(ctx.recorder, i, n));
    clients.push_back(ctx.NewClient(i));
    clients.back()->SetEventSink(states.back()->events.Sink());
    GiveClientItsFaultPoints(ctx, states.back()->log, *clients.back());
    Status connected = co_await clients.back()->Connect();
    if (!connected) {
      co_return Error{"client " + std::to_string(i) + " could not connect: " + connected.error()};
    }
  }
  if (options_.read_fraction > 0 && !clients.front()->SupportsShared()) {
    co_return Error{SharedAcquiresBy() + " takes shared (read) locks, which this lock client "
                    "does not have"};
  }
  if (ctx.on_connected) ctx.on_connected();

  // A worker that throws ends the workload with its error; the others stop.
  TaskGroup workers(ctx.io.get_executor(), [&ctx](const std::string&) { ctx.failed = true; });
  const Clock::time_point start = ctx.Now();
  for (int i = 0; i < n; ++i) {
    workers.Spawn("worker " + std::to_string(i), Worker(ctx, i, *clients[i], *states[i], start));
  }
  co_return co_await workers.Wait();
}

asio::awaitable<void> MutexWorkload::Worker(WorkloadContext& ctx, int worker, LockClient& client,
                                            WorkerState& state, Clock::time_point start) {
  const WorkloadOptions& o = ctx.options;
  const MutexOptions& m = options_;
  std::mt19937_64 rng(SubSeed(o.seed, 1'000'000 + worker));
  // The pauses between attempts of one acquire: a stream of their own, so
  // that a single attempt (acquire_wait_ms 0) replays older seeds.
  std::mt19937_64 retry_rng(SubSeed(o.seed, 2'000'000 + worker));
  const AcquireWait wait{std::chrono::milliseconds(m.acquire_wait_ms), m.backoff};
  std::uniform_int_distribution<int> pick_key(0, m.keys - 1);
  OpLog& log = state.log;
  std::bernoulli_distribution pick_read(m.read_fraction);
  // --rate: worker w's attempts at start + w / rate + k * concurrency / rate.
  AttemptPacer pacer(o.rate, o.concurrency, worker, start, ctx.deadline);

  // Every sleep below ends at the deadline and soon after an interrupt.
  while (!ctx.ShouldStop()) {
    std::optional<Clock::time_point> slot = pacer.Next(ctx.Now());
    if (!slot) break;  // no attempt left before the deadline
    co_await SleepUntil(ctx, *slot);
    if (ctx.ShouldStop() || ctx.Now() >= ctx.deadline) break;

    const std::string key = "lock-" + std::to_string(pick_key(rng));
    // Without readers nothing is drawn: a mutex run's seed replays as before.
    const bool read_write = m.read_fraction > 0;
    const bool shared = read_write && pick_read(rng);
    nlohmann::json invoke = {{"lease_ms", m.lease_ms}, {"wait_ms", m.acquire_wait_ms}};
    nlohmann::json mode = nullptr;
    if (read_write) mode = {{"mode", shared ? "read" : "write"}};
    if (read_write) invoke.update(mode);
    log.Invoke("acquire", key, invoke);
    const std::chrono::milliseconds lease(m.lease_ms);
    std::optional<WaitedAcquire> waited =
        co_await AcquireWaiting(ctx, log, client, key, lease, shared, wait, retry_rng);
    if (!waited) co_return;  // crashed mid-acquire: the worker is gone, the others go on
    const AcquireResult& acquired = waited->last;
    log.Complete(acquired.outcome, WaitedAcquireValue(*waited), acquired.error);
    if (acquired.outcome == Outcome::kFail) {
      co_await SleepFor(ctx, std::chrono::milliseconds(DrawMs(rng, m.backoff)));
      continue;
    }
    if (acquired.outcome == Outcome::kUnknown) continue;

    // A hold cut short by the deadline or an interrupt still releases; one
    // the client said is lost is over (no stall, no release).
    HoldEvents& hold = state.events;
    hold.Begin(key, acquired.token);
    co_await PassFaultPoint(ctx, log, client, ClientFaultPoint::kCriticalSection, key);
    const int64_t hold_ms = HoldMs(DrawMs(rng, m.hold), acquired.validity_ms);
    if (m.reentry > 0 && std::uniform_real_distribution<double>(0, 1)(rng) < m.reentry) {
      co_await SleepFor(ctx, std::chrono::milliseconds(hold_ms / 2));
      if (!hold.lost()) co_await ReEnter(ctx, log, client, key, hold_ms / 2);
      co_await SleepFor(ctx, std::chrono::milliseconds(hold_ms - hold_ms / 2));
    } else {
      co_await SleepFor(ctx, std::chrono::milliseconds(hold_ms));
    }
    if (!hold.lost()) {
      co_await PassFaultPoint(ctx, log, client, ClientFaultPoint::kBeforeRelease, key);
    }
    if (!hold.lost()) {
      nlohmann::json release = {{"token", acquired.token}};
      if (read_write) release.update(mode);
      log.Invoke("release", key, release);
      ReleaseResult released = co_await client.Release(key, acquired.token);
      log.Complete(released.outcome, ReleaseCompletionValue(released), released.error);
    }
    hold.End();
  }
  if (const auto counters = client.Counters(); !counters.empty()) {
    log.Invoke("client-stats", "", nullptr);
    log.Complete(Outcome::kOk, counters, "");
  }
}

asio::awaitable<void> MutexWorkload::ReEnter(WorkloadContext& ctx, OpLog& log,
                                             LockClient& client, const std::string& key,
                                             int64_t hold_ms) {
  const int64_t lease_ms = options_.lease_ms;
  log.Invoke("acquire", key, {{"lease_ms", lease_ms}, {"reentry", true}});
  AcquireResult acquired = co_await client.Acquire(key, std::chrono::milliseconds(lease_ms));
  log.Complete(acquired.outcome, AcquireCompletionValue(acquired), acquired.error,
               /*nested=*/true);
  // Only a re-entry known to have happened is given back (Redisson's
  // callers unlock only what lock() returned from).
  if (acquired.outcome != Outcome::kOk) co_return;
  co_await SleepFor(ctx, std::chrono::milliseconds(hold_ms));
  log.Invoke("release", key, {{"token", acquired.token}, {"reentry", true}});
  ReleaseResult released = co_await client.Release(key, acquired.token);
  log.Complete(released.outcome, nullptr, released.error, /*nested=*/true);
}

int64_t MutexWorkload::HoldMs(int64_t drawn, int64_t validity_ms) const {
  const int64_t margin = options_.hold_within_validity_ms;
  if (margin < 0) return drawn;
  return std::clamp<int64_t>(validity_ms - margin, 0, drawn);
}

std::string MutexWorkload::SharedAcquiresBy() const {
  if (options_.read_fraction <= 0) return "";
  std::ostringstream flag;
  flag << "--read-fraction " << options_.read_fraction;
  return flag.str();
}

std::vector<std::unique_ptr<Checker>> MutexWorkload::Checkers() const {
  std::vector<std::unique_ptr<Checker>> checkers;
  const bool read_write = options_.read_fraction > 0;
  checkers.push_back(std::make_unique<DoubleHolderChecker>(
      1000, read_write ? HoldModes::kReadWrite : HoldModes::kExclusive));
  // The same question by search: is there a legal order of the lock ops?
  // Release only by the holder; an info acquire may have happened or not; a
  // lock whose release failed frees itself when its lease expires: acquires
  // record lease_ms, so the lease rule's auto decides so, exactly as for
  // `locksmith check history.jsonl --model owner-mutex`.
  LinearizabilityOptions linearizable;
  linearizable.model = read_write ? "rw-lock" : "owner-mutex";
  linearizable.leases = LeaseRule::kAuto;
  checkers.push_back(MakeLinearizabilityChecker(linearizable));
  checkers.push_back(std::make_unique<ForeignReleaseChecker>());
  checkers.push_back(std::make_unique<StuckLockChecker>(options_.stuck_leases));
  checkers.push_back(std::make_unique<PerfStatsChecker>());
  checkers.push_back(std::make_unique<ClientStatsChecker>());
  return checkers;
}

}  // namespace locksmith
