#include "workloads/acquirer_crash.h"

#include "workloads/op_log.h"
#include "workloads/worker_fault_points.h"

namespace locksmith {

boost::asio::awaitable<std::optional<AcquireResult>> AcquireUnlessCrashed(
    WorkloadContext& ctx, OpLog& log, LockClient& client, const std::string& key,
    std::chrono::milliseconds lease) {
  const ClientFaults* faults = ctx.client_faults;
  if (faults == nullptr) co_return co_await client.Acquire(key, lease);
  const int64_t process = log.process();
  const bool own_point = client.SetCrashPoint(
      [faults, process](const std::string& k) { return faults->DiesInsideAcquire(process, k); });
  const ClientFaultEffect before =
      co_await PassFaultPoint(ctx, log, client, ClientFaultPoint::kBeforeAcquire, key, own_point);
  if (before.crashed) co_return std::nullopt;
  AcquireResult acquired = co_await client.Acquire(key, lease);
  if (acquired.crashed) co_return std::nullopt;
  if (acquired.outcome == Outcome::kFail) co_return acquired;
  const ClientFaultEffect answered =
      co_await PassFaultPoint(ctx, log, client, ClientFaultPoint::kAcquireAnswered, key, own_point);
  if (answered.crashed) co_return std::nullopt;
  co_return acquired;
}

}  // namespace locksmith
