#include "workloads/resource_workload.h"

#include "backends/task_group.h"
#include "checker/client_stats.h"
#include "checker/fencing_checker.h"
#include "checker/foreign_release_checker.h"
#include "checker/perf_stats.h"
#include "checker/stuck_lock_checker.h"
#include "workloads/acquirer_crash.h"
#include "workloads/hold_events.h"
#include "workloads/op_log.h"
#include "workloads/pacing.h"
#include "workloads/resource_client.h"
#include "workloads/resource_store.h"
#include "workloads/worker_fault_points.h"

namespace locksmith {
namespace asio = boost::asio;
using Clock = std::chrono::steady_clock;

// One worker's log and the lock events of its client (both on the io
// thread).
struct ResourceWorkload::WorkerState {
  WorkerState(OpRecorder& recorder, int worker, int concurrency)
      : log(recorder, worker, concurrency), events(log) {}
  OpLog log;
  HoldEvents events;
};

std::vector<std::string> PausePoints() { return {"write", "release"}; }

void ResourceHoldOptions::DeclareHold(OptionSet& set, const char* work_help,
                                      const char* pause_help) {
  set.Range("work", "--work", &work, 0, 3'600'000, work_help)
      .Range("backoff", "--backoff", &backoff, 0, 3'600'000,
             "ms a worker waits after a failed acquire, MIN-MAX or N")
      .Integer("lease_ms", "--lease", &lease_ms, int64_t{1}, int64_t{86'400'000},
               "lock lease (TTL) asked for on every acquire, ms")
      .Choice("pause_at", "--pause-at", &pause_at, PausePoints(), pause_help);
  DeclareStuckLeases(set, &stuck_leases);
}

ResourcePlan ResourceHoldOptions::Plan(std::string prefix, int keys, int64_t initial,
                                       bool sells) const {
  return ResourcePlan{std::move(prefix), keys, initial, sells, work, backoff,
                      lease_ms,          pause_at, stuck_leases};
}

std::chrono::milliseconds ResourceWorkload::Draw(std::mt19937_64& rng, MsRange range) {
  return std::chrono::milliseconds(
      std::uniform_int_distribution<int64_t>(range.min, range.max)(rng));
}

nlohmann::json ResourceWorkload::Rejection(const ResourceReply& r,
                                           const std::optional<Fence>& fence) {
  if (!r.rejected) return nullptr;
  return {{"rejected", true}, {"fence", fence ? fence->value : 0}, {"highest", r.highest}};
}

ResourceWorkload::HoldPlan ResourceWorkload::PlanHold(std::mt19937_64& rng,
                                                      bool client_shares) const {
  (void)rng;
  (void)client_shares;
  return {};
}

asio::awaitable<Status> ResourceWorkload::Run(WorkloadContext& ctx) {
  if (ctx.resource == nullptr) {
    co_return Error{"the " + Name() + " workload needs its resource store"};
  }
  const int n = ctx.options.concurrency;
  std::vector<std::unique_ptr<WorkerState>> states;
  std::vector<std::unique_ptr<LockClient>> clients;
  std::vector<std::unique_ptr<ResourceClient>> stores;
  struct CloseAll {
    std::vector<std::unique_ptr<LockClient>>& clients;
    std::vector<std::unique_ptr<ResourceClient>>& stores;
    ~CloseAll() {
      for (auto& c : clients) c->Close();
      for (auto& s : stores) s->Close();
    }
  } close_all{clients, stores};

  // The resource's initial state, recorded.
  {
    std::unique_ptr<ResourceClient> setup =
        ctx.resource->NewClient(ctx.io.get_executor(), kStoreTimeout);
    OpLog log(ctx.recorder, kResourceProcess, 1);
    for (int k = 0; k < plan_.keys; ++k) {
      log.Invoke("init", Key(k), {{"value", plan_.initial}});
      ResourceReply r = co_await setup->Init(Key(k), plan_.initial);
      log.Complete(r.outcome, nullptr, r.error);
      if (r.outcome != Outcome::kOk) {
        setup->Close();
        co_return Error{"resource store: init of " + Key(k) + ": " + r.error};
      }
    }
    setup->Close();
  }
  for (int i = 0; i < n; ++i) {
    states.push_back(std::make_unique<WorkerState>(ctx.recorder, i, n));
    clients.push_back(ctx.NewClient(i));
    clients.back()->SetEventSink(states.back()->events.Sink());
    Status connected = co_await clients.back()->Connect();
    if (!connected) {
      co_return Error{"client " + std::to_string(i) + " could not connect: " + connected.error()};
    }
    stores.push_back(ctx.resource->NewClient(ctx.io.get_executor(), kStoreTimeout));
    if (Status s = co_await stores.back()->Connect(); !s) co_return s;
  }
  if (ctx.on_connected) ctx.on_connected();

  TaskGroup workers(ctx.io.get_executor(), [&ctx](const std::string&) { ctx.failed = true; });
  const Clock::time_point start = ctx.Now();
  for (int i = 0; i < n; ++i) {
    workers.Spawn("worker " + std::to_string(i),
                  Worker(ctx, i, *clients[i], *stores[i], *states[i], start));
  }
  co_return co_await workers.Wait();
}

asio::awaitable<void> ResourceWorkload::Worker(WorkloadContext& ctx, int worker, LockClient& client,
                                               ResourceClient& store, WorkerState& state,
                                               Clock::time_point start) {
  const WorkloadOptions& o = ctx.options;
  std::mt19937_64 rng(SubSeed(o.seed, 1'000'000 + worker));
  std::uniform_int_distribution<int> pick_key(0, plan_.keys - 1);
  OpLog& log = state.log;
  GiveClientItsFaultPoints(ctx, log, client);
  AttemptPacer pacer(o.rate, o.concurrency, worker, start, ctx.deadline);
  const bool client_shares = client.SupportsShared();
  int64_t writes = 0;
  while (!ctx.ShouldStop()) {
    std::optional<Clock::time_point> slot = pacer.Next(ctx.Now());
    if (!slot) break;
    co_await SleepUntil(ctx, *slot);
    if (ctx.ShouldStop() || ctx.Now() >= ctx.deadline) break;

    const std::string key = Key(pick_key(rng));
    const HoldPlan hold = PlanHold(rng, client_shares);
    nlohmann::json invoke = {{"lease_ms", plan_.lease_ms}};
    if (hold.tags.is_object()) invoke.update(hold.tags);
    log.Invoke("acquire", key, std::move(invoke));
    const std::chrono::milliseconds lease(plan_.lease_ms);
    AcquireResult acquired;
    if (hold.shared) {
      acquired = co_await client.AcquireShared(key, lease);
    } else {
      std::optional<AcquireResult> got =
          co_await AcquireUnlessCrashed(ctx, log, client, key, lease);
      if (!got) {  // crashed mid-acquire: the worker is gone, the others go on
        store.Close();
        co_return;
      }
      acquired = std::move(*got);
    }
    log.Complete(acquired.outcome, AcquireCompletionValue(acquired), acquired.error);
    if (acquired.outcome == Outcome::kFail) {
      co_await SleepFor(ctx, Draw(rng, plan_.backoff));
      continue;
    }
    if (acquired.outcome == Outcome::kUnknown) continue;

    std::optional<Fence> fence;
    if (o.fencing && acquired.fence) fence = Fence{*acquired.fence, acquired.token};
    Holder holder{ctx, log, client, store, key, fence, rng, worker, writes, hold};
    co_await Critical(holder);
    if (plan_.pause_at == "release") {
      co_await PassFaultPoint(ctx, log, client, ClientFaultPoint::kBeforeRelease, key);
    }
    nlohmann::json release = {{"token", acquired.token}};
    if (hold.tags.is_object()) release.update(hold.tags);
    log.Invoke("release", key, std::move(release));
    ReleaseResult released = co_await client.Release(key, acquired.token);
    log.Complete(released.outcome, ReleaseCompletionValue(released), released.error);
  }
  if (const auto counters = client.Counters(); !counters.empty()) {
    log.Invoke("client-stats", "", nullptr);
    log.Complete(Outcome::kOk, counters, "");
  }
}

asio::awaitable<void> ResourceWorkload::Critical(Holder& h) {
  WorkloadContext& ctx = h.ctx;
  OpLog& log = h.log;
  const std::string& key = h.key;
  const std::optional<Fence>& fence = h.fence;
  nlohmann::json fenced = fence ? nlohmann::json{{"fence", fence->value}} : nlohmann::json(nullptr);
  log.Invoke("read", key, fenced);
  const ResourceReply read = co_await h.store.Read(key, fence);
  log.Complete(read.outcome,
               read.outcome == Outcome::kOk ? nlohmann::json{{"value", read.value}}
                                            : Rejection(read, fence),
               read.error);
  if (read.outcome != Outcome::kOk) co_return;
  co_await SleepFor(ctx, Draw(h.rng, plan_.work));
  if (plan_.pause_at == "write") {
    co_await PassFaultPoint(ctx, log, h.client, ClientFaultPoint::kCriticalSection, key);
  }
  if (ctx.ShouldStop()) co_return;
  if (plan_.sells && read.value <= 0) co_return;  // sold out: nothing to write
  const int64_t next = plan_.sells ? read.value - 1 : read.value + 1;
  std::string order;
  nlohmann::json w = {{"value", next}, {"read", read.value}};
  if (plan_.sells) {
    order = "o-" + std::to_string(h.worker) + "-" + std::to_string(++h.writes);
    w["order"] = order;
  }
  if (fence) w["fence"] = fence->value;
  log.Invoke("write", key, std::move(w));
  const ResourceReply wrote = co_await h.store.Write(key, next, order, fence);
  log.Complete(wrote.outcome, Rejection(wrote, fence), wrote.error);
}

asio::awaitable<ResourceWorkload::FinalRead> ResourceWorkload::ReadFinal(ResourceClient& reader,
                                                                         const std::string& key) {
  ResourceReply r = co_await reader.Final(key);
  FinalRead read{r.outcome, nullptr, r.error};
  if (r.outcome == Outcome::kOk) {
    read.value = {{"value", r.value}};
    if (plan_.sells) read.value["orders"] = r.orders;
  }
  co_return read;
}

asio::awaitable<Status> ResourceWorkload::FinalReads(WorkloadContext& ctx) {
  if (ctx.resource == nullptr) co_return OkStatus();
  std::unique_ptr<ResourceClient> reader =
      ctx.resource->NewClient(ctx.io.get_executor(), kStoreTimeout);
  OpLog log(ctx.recorder, kResourceProcess, 1);
  Status status = OkStatus();
  for (int k = 0; k < plan_.keys; ++k) {
    log.Invoke("final", Key(k), nullptr);
    FinalRead r = co_await ReadFinal(*reader, Key(k));
    log.Complete(r.outcome, std::move(r.value), r.error);
    if (r.outcome != Outcome::kOk && status) {
      status = Error{"final read of " + Key(k) + ": " + r.error};
    }
  }
  reader->Close();
  co_return status;
}

std::vector<std::unique_ptr<Checker>> ResourceWorkload::WithLockCheckers(
    std::vector<std::unique_ptr<Checker>> own) const {
  own.push_back(std::make_unique<FencingChecker>());
  own.push_back(std::make_unique<ForeignReleaseChecker>());
  own.push_back(std::make_unique<StuckLockChecker>(plan_.stuck_leases));
  own.push_back(std::make_unique<PerfStatsChecker>());
  own.push_back(std::make_unique<ClientStatsChecker>());
  return own;
}

}  // namespace locksmith
