#include "workloads/acquirer_crash.h"

#include "workloads/op_log.h"
#include "workloads/worker_fault_points.h"

namespace locksmith {
namespace {

// The worker's process died at a point it passed itself: its client drops
// its connections with no goodbye.
std::optional<AcquireResult> CrashedWorker(LockClient& client) {
  client.Crash();
  return std::nullopt;
}

}  // namespace

boost::asio::awaitable<std::optional<AcquireResult>> AcquireUnlessCrashed(
    WorkloadContext& ctx, OpLog& log, LockClient& client, const std::string& key,
    std::chrono::milliseconds lease) {
  if (ctx.client_faults == nullptr) co_return co_await client.Acquire(key, lease);
  const ClientFaultEffect before =
      co_await PassFaultPoint(ctx, log, client, ClientFaultPoint::kBeforeAcquire, key);
  if (before.crashed) co_return CrashedWorker(client);
  // Asked now: a client may find its point only once it found its servers.
  const bool client_passes_answered =
      client.OwnFaultPoints().contains(ClientFaultPoint::kAcquireAnswered);
  AcquireResult acquired = co_await client.Acquire(key, lease);
  if (acquired.crashed) co_return std::nullopt;
  if (acquired.outcome == Outcome::kFail || client_passes_answered) co_return acquired;
  const ClientFaultEffect answered =
      co_await PassFaultPoint(ctx, log, client, ClientFaultPoint::kAcquireAnswered, key);
  if (answered.crashed) co_return CrashedWorker(client);
  co_return acquired;
}

}  // namespace locksmith
