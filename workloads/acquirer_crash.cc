#include "workloads/acquirer_crash.h"

#include "backends/client_crashes.h"
#include "workloads/op_log.h"

namespace locksmith {

boost::asio::awaitable<std::optional<AcquireResult>> AcquireUnlessCrashed(
    WorkloadContext& ctx, const OpLog& log, LockClient& client, const std::string& key,
    std::chrono::milliseconds lease) {
  ClientCrashes* crashes = ctx.crashes;
  if (crashes == nullptr) co_return co_await client.Acquire(key, lease);
  const int64_t process = log.process();
  const bool own_point = client.SetCrashPoint(
      [crashes, process](const std::string& k) { return crashes->Take(process, k); });
  AcquireResult acquired = co_await client.Acquire(key, lease);
  if (acquired.crashed) co_return std::nullopt;
  if (!own_point && acquired.outcome != Outcome::kFail && crashes->Take(process, key)) {
    client.Crash();
    co_return std::nullopt;
  }
  co_return acquired;
}

}  // namespace locksmith
