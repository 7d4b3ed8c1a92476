#include "workloads/resource_workload.h"

#include "workloads/acquirer_crash.h"
#include "workloads/holder_stall.h"
#include "workloads/op_log.h"
#include "workloads/pacing.h"
#include "workloads/resource_client.h"
#include "workloads/resource_store.h"
#include "workloads/task_group.h"

namespace locksmith {
namespace asio = boost::asio;
using Clock = std::chrono::steady_clock;

namespace {

int64_t Draw(std::mt19937_64& rng, MsRange range) {
  return std::uniform_int_distribution<int64_t>(range.min, range.max)(rng);
}

// The store is never faulted: a generous deadline for its calls.
constexpr std::chrono::milliseconds kStoreTimeout{2000};

nlohmann::json Reply(const ResourceReply& r, std::optional<int64_t> fence) {
  if (r.rejected) return {{"rejected", true}, {"fence", fence.value_or(0)}, {"highest", r.highest}};
  return nullptr;
}

}  // namespace

std::vector<std::string> PausePoints() { return {"write", "release"}; }

asio::awaitable<Status> ResourceWorkload::Run(WorkloadContext& ctx) {
  if (ctx.resource == nullptr) co_return Error{"the " + Name() + " workload needs its resource store"};
  const int n = ctx.options.concurrency;
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
    ResourceClient setup(ctx.io.get_executor(), ctx.resource->Endpoint(), kStoreTimeout);
    OpLog log(ctx.recorder, kResourceProcess, 1);
    for (int k = 0; k < plan_.keys; ++k) {
      log.Invoke("init", Key(k), {{"value", plan_.initial}});
      ResourceReply r = co_await setup.Init(Key(k), plan_.initial);
      log.Complete(r.outcome, nullptr, r.error);
      if (r.outcome != Outcome::kOk) {
        setup.Close();
        co_return Error{"resource store: init of " + Key(k) + ": " + r.error};
      }
    }
    setup.Close();
  }
  for (int i = 0; i < n; ++i) {
    clients.push_back(ctx.service.NewClient(ctx.io.get_executor(), ctx.Slot(i)));
    Status connected = co_await clients.back()->Connect();
    if (!connected) {
      co_return Error{"client " + std::to_string(i) + " could not connect: " + connected.error()};
    }
    stores.push_back(
        std::make_unique<ResourceClient>(ctx.io.get_executor(), ctx.resource->Endpoint(),
                                         kStoreTimeout));
    if (Status s = co_await stores.back()->Connect(); !s) co_return s;
  }
  if (ctx.on_connected) ctx.on_connected();

  TaskGroup workers(ctx.io.get_executor(), [&ctx](const std::string&) { ctx.failed = true; });
  const Clock::time_point start = ctx.Now();
  for (int i = 0; i < n; ++i) {
    workers.Spawn("worker " + std::to_string(i), Worker(ctx, i, *clients[i], *stores[i], start));
  }
  co_return co_await workers.Wait();
}

asio::awaitable<void> ResourceWorkload::Worker(WorkloadContext& ctx, int worker, LockClient& client,
                                               ResourceClient& store, Clock::time_point start) {
  const WorkloadOptions& o = ctx.options;
  std::mt19937_64 rng(SubSeed(o.seed, 1'000'000 + worker));
  std::uniform_int_distribution<int> pick_key(0, plan_.keys - 1);
  OpLog log(ctx.recorder, worker, o.concurrency);
  client.SetInFlightPausePoint(InFlightStalls(ctx, log, client));
  AttemptPacer pacer(o.rate, o.concurrency, worker, start, ctx.deadline);
  int64_t orders = 0;
  while (!ctx.ShouldStop()) {
    std::optional<Clock::time_point> slot = pacer.Next(ctx.Now());
    if (!slot) break;
    co_await SleepUntil(ctx, *slot);
    if (ctx.ShouldStop() || ctx.Now() >= ctx.deadline) break;

    const std::string key = Key(pick_key(rng));
    log.Invoke("acquire", key, {{"lease_ms", plan_.lease_ms}});
    std::optional<AcquireResult> got = co_await AcquireUnlessCrashed(
        ctx, log, client, key, std::chrono::milliseconds(plan_.lease_ms));
    if (!got) {  // crashed mid-acquire: the worker is gone, the others go on
      store.Close();
      co_return;
    }
    const AcquireResult& acquired = *got;
    log.Complete(acquired.outcome, AcquireCompletionValue(acquired), acquired.error);
    if (acquired.outcome == Outcome::kFail) {
      co_await SleepFor(ctx, std::chrono::milliseconds(Draw(rng, plan_.backoff)));
      continue;
    }
    if (acquired.outcome == Outcome::kUnknown) continue;

    const std::optional<int64_t> fence = o.fencing ? acquired.fence : std::nullopt;
    co_await Update(ctx, log, client, store, key, fence, orders, rng, worker);
    if (plan_.pause_at == "release") co_await StallIfAsked(ctx, log, client, key);
    log.Invoke("release", key, {{"token", acquired.token}});
    ReleaseResult released = co_await client.Release(key, acquired.token);
    log.Complete(released.outcome, nullptr, released.error);
  }
  if (const auto counters = client.Counters(); !counters.empty()) {
    log.Invoke("client-stats", "", nullptr);
    log.Complete(Outcome::kOk, counters, "");
  }
}

asio::awaitable<void> ResourceWorkload::Update(WorkloadContext& ctx, OpLog& log,
                                               LockClient& client, ResourceClient& store,
                                               const std::string& key,
                                               std::optional<int64_t> fence, int64_t& orders,
                                               std::mt19937_64& rng, int worker) {
  nlohmann::json fenced = fence ? nlohmann::json{{"fence", *fence}} : nlohmann::json(nullptr);
  log.Invoke("read", key, fenced);
  const ResourceReply read = co_await store.Read(key, fence);
  log.Complete(read.outcome,
               read.outcome == Outcome::kOk ? nlohmann::json{{"value", read.value}}
                                            : Reply(read, fence),
               read.error);
  if (read.outcome != Outcome::kOk) co_return;
  co_await SleepFor(ctx, std::chrono::milliseconds(Draw(rng, plan_.work)));
  if (plan_.pause_at == "write") co_await StallIfAsked(ctx, log, client, key);
  if (ctx.ShouldStop()) co_return;
  if (plan_.sells && read.value <= 0) co_return;  // sold out: nothing to write
  const int64_t next = plan_.sells ? read.value - 1 : read.value + 1;
  std::string order;
  nlohmann::json w = {{"value", next}, {"read", read.value}};
  if (plan_.sells) {
    order = "o-" + std::to_string(worker) + "-" + std::to_string(++orders);
    w["order"] = order;
  }
  if (fence) w["fence"] = *fence;
  log.Invoke("write", key, std::move(w));
  const ResourceReply wrote = co_await store.Write(key, next, order, fence);
  log.Complete(wrote.outcome, Reply(wrote, fence), wrote.error);
}

asio::awaitable<Status> ResourceWorkload::FinalReads(WorkloadContext& ctx) {
  if (ctx.resource == nullptr) co_return OkStatus();
  ResourceClient reader(ctx.io.get_executor(), ctx.resource->Endpoint(), kStoreTimeout);
  OpLog log(ctx.recorder, kResourceProcess, 1);
  Status status = OkStatus();
  for (int k = 0; k < plan_.keys; ++k) {
    log.Invoke("final", Key(k), nullptr);
    ResourceReply r = co_await reader.Final(Key(k));
    nlohmann::json value = nullptr;
    if (r.outcome == Outcome::kOk) {
      value = {{"value", r.value}};
      if (plan_.sells) value["orders"] = r.orders;
    }
    log.Complete(r.outcome, std::move(value), r.error);
    if (r.outcome != Outcome::kOk && status) status = Error{"final read of " + Key(k) + ": " + r.error};
  }
  reader.Close();
  co_return status;
}

}  // namespace locksmith
