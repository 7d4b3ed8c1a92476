#include "workloads/rw_cache_workload.h"

#include "checker/double_holder.h"
#include "checker/rw_cache_checker.h"
#include "workloads/op_log.h"
#include "workloads/pacing.h"
#include "workloads/worker_fault_points.h"

namespace locksmith {
namespace asio = boost::asio;

namespace {

nlohmann::json Fenced(nlohmann::json value, const std::optional<Fence>& fence) {
  if (fence) value["fence"] = fence->value;
  return value;
}

}  // namespace

void RwCacheOptions::Declare(OptionSet& set) {
  set.Integer("caches", "--caches", &caches, 1, 100'000, "cached values: cache-0 ..")
      .Number("read_fraction", "--read-fraction", &read_fraction, 0, 1,
              "share of holds that are readers (shared locks where the client has them)");
  DeclareHold(set, "ms a holder works before its write or cache fill, MIN-MAX or N",
              "where a holder takes a client-pause stall: before its write (or cache fill) "
              "or its release");
}

RwCacheWorkload::RwCacheWorkload(RwCacheOptions o)
    : ResourceWorkload(o.Plan("cache", o.caches, 0, /*sells=*/false)),
      read_fraction_(o.read_fraction) {}

int64_t RwCacheWorkload::WriteValue(int worker, int64_t nth, int concurrency) {
  return 1 + worker + (nth - 1) * concurrency;
}

nlohmann::json RwCacheWorkload::HoldTags(bool reader, bool shared) {
  return {{"mode", shared ? "read" : "write"}, {"role", reader ? "reader" : "writer"}};
}

ResourceWorkload::HoldPlan RwCacheWorkload::PlanHold(std::mt19937_64& rng,
                                                     bool client_shares) const {
  const bool reader = std::bernoulli_distribution(read_fraction_)(rng);
  const bool shared = reader && client_shares;
  return {shared, reader, HoldTags(reader, shared)};
}

asio::awaitable<void> RwCacheWorkload::Critical(Holder& h) {
  if (h.plan.reader) {
    co_await Read(h);
  } else {
    co_await Write(h);
  }
}

asio::awaitable<void> RwCacheWorkload::Read(Holder& h) {
  const nlohmann::json fenced = Fenced(nlohmann::json::object(), h.fence);
  h.log.Invoke("read", h.key, fenced.empty() ? nlohmann::json(nullptr) : fenced);
  const ResourceReply cached = co_await h.store.ReadCache(h.key, h.fence);
  nlohmann::json value = Rejection(cached, h.fence);
  if (cached.outcome == Outcome::kOk) {
    value = {{"value", cached.found ? nlohmann::json(cached.value) : nlohmann::json(nullptr)},
             {"hit", cached.found}};
  }
  h.log.Complete(cached.outcome, std::move(value), cached.error);
  if (cached.outcome != Outcome::kOk) co_return;
  if (cached.found) {  // a hit: the reader uses the value a while
    co_await SleepFor(h.ctx, Draw(h.rng, plan().work));
    co_return;
  }
  h.log.Invoke("read-db", h.key, fenced.empty() ? nlohmann::json(nullptr) : fenced);
  const ResourceReply db = co_await h.store.Read(h.key, h.fence);
  h.log.Complete(db.outcome,
                 db.outcome == Outcome::kOk ? nlohmann::json{{"value", db.value}}
                                            : Rejection(db, h.fence),
                 db.error);
  if (db.outcome != Outcome::kOk) co_return;
  co_await SleepFor(h.ctx, Draw(h.rng, plan().work));
  if (plan().pause_at == "write") {
    co_await PassFaultPoint(h.ctx, h.log, h.client, ClientFaultPoint::kCriticalSection, h.key);
  }
  if (h.ctx.ShouldStop()) co_return;
  h.log.Invoke("fill", h.key, Fenced({{"value", db.value}}, h.fence));
  const ResourceReply filled = co_await h.store.FillCache(h.key, db.value, h.fence);
  h.log.Complete(filled.outcome, Rejection(filled, h.fence), filled.error);
}

asio::awaitable<void> RwCacheWorkload::Write(Holder& h) {
  co_await SleepFor(h.ctx, Draw(h.rng, plan().work));
  if (plan().pause_at == "write") {
    co_await PassFaultPoint(h.ctx, h.log, h.client, ClientFaultPoint::kCriticalSection, h.key);
  }
  if (h.ctx.ShouldStop()) co_return;
  const int64_t value = WriteValue(h.worker, ++h.writes, h.ctx.options.concurrency);
  h.log.Invoke("write", h.key, Fenced({{"value", value}}, h.fence));
  const ResourceReply wrote = co_await h.store.WriteInvalidate(h.key, value, h.fence);
  h.log.Complete(wrote.outcome, Rejection(wrote, h.fence), wrote.error);
}

asio::awaitable<ResourceWorkload::FinalRead> RwCacheWorkload::ReadFinal(
    ResourceClient& reader, const std::string& key) {
  const ResourceReply db = co_await reader.Final(key);
  if (db.outcome != Outcome::kOk) co_return FinalRead{db.outcome, nullptr, db.error};
  const ResourceReply cached = co_await reader.ReadCache(key, std::nullopt);
  if (cached.outcome != Outcome::kOk) co_return FinalRead{cached.outcome, nullptr, cached.error};
  co_return FinalRead{
      Outcome::kOk,
      {{"value", db.value},
       {"cache", cached.found ? nlohmann::json(cached.value) : nlohmann::json(nullptr)}},
      ""};
}

std::vector<std::unique_ptr<Checker>> RwCacheWorkload::Checkers() const {
  std::vector<std::unique_ptr<Checker>> checkers;
  checkers.push_back(std::make_unique<RwCacheChecker>());
  // No writer overlaps any holder; readers may share.
  checkers.push_back(std::make_unique<DoubleHolderChecker>(1000, HoldModes::kReadWrite));
  return WithLockCheckers(std::move(checkers));
}

}  // namespace locksmith
