#include "workloads/worker_fault_points.h"

#include "backends/lock_client.h"
#include "workloads/op_log.h"
#include "workloads/pacing.h"

namespace locksmith {
namespace {

// The worker as the families see it at one point.
class WorkerFaultTarget : public ClientFaultTarget {
 public:
  WorkerFaultTarget(WorkloadContext& ctx, OpLog& log, LockClient& client)
      : ctx_(ctx), log_(log), client_(client) {}

  int64_t process() const override { return log_.process(); }
  LockClient& client() override { return client_; }
  void Invoke(const std::string& f, const std::string& key, nlohmann::json value) override {
    log_.Invoke(f, key, std::move(value));
  }
  void Complete(Outcome outcome, nlohmann::json value, const std::string& error) override {
    log_.Complete(outcome, std::move(value), error);
  }
  void Note(const std::string& f, const std::string& key, nlohmann::json value) override {
    log_.Event(Outcome::kOk, f, key, std::move(value), "");
  }
  boost::asio::awaitable<void> Sleep(std::chrono::milliseconds wait) override {
    co_await SleepFor(ctx_, wait);
  }
  std::chrono::steady_clock::time_point Now() const override { return ctx_.Now(); }

 private:
  WorkloadContext& ctx_;
  OpLog& log_;
  LockClient& client_;
};

// A point inside the client's own call on `key` (a copy: the coroutine
// may outlive the caller's string).
boost::asio::awaitable<ClientFaultEffect> PassClientPoint(WorkloadContext& ctx, OpLog& log,
                                                          LockClient& client,
                                                          ClientFaultPoint point,
                                                          std::string key) {
  co_return co_await PassFaultPoint(ctx, log, client, point, key);
}

}  // namespace

boost::asio::awaitable<ClientFaultEffect> PassFaultPoint(WorkloadContext& ctx, OpLog& log,
                                                         LockClient& client, ClientFaultPoint point,
                                                         const std::string& key) {
  if (ctx.client_faults == nullptr) co_return ClientFaultEffect{};
  WorkerFaultTarget target(ctx, log, client);
  co_return co_await ctx.client_faults->At(point, target, key);
}

void GiveClientItsFaultPoints(WorkloadContext& ctx, OpLog& log, LockClient& client) {
  client.SetFaultPointHook([&ctx, &log, &client](ClientFaultPoint point, const std::string& key) {
    return PassClientPoint(ctx, log, client, point, key);
  });
}

nlohmann::json ReleaseCompletionValue(const ReleaseResult& released) {
  if (released.attempts <= 1) return nullptr;
  return {{"attempts", released.attempts}};
}

}  // namespace locksmith
