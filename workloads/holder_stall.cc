#include "workloads/holder_stall.h"

#include "backends/lock_client.h"
#include "workloads/op_log.h"
#include "workloads/pacing.h"

namespace locksmith {

boost::asio::awaitable<void> StallIfAsked(WorkloadContext& ctx, OpLog& log, LockClient& client,
                                          const std::string& key) {
  if (ctx.pauses == nullptr) co_return;
  const auto stall = ctx.pauses->Take(log.process(), key);
  if (!stall) co_return;
  const auto began = ctx.Now();
  log.Invoke("pause", key, {{"ms", stall->count()}});
  client.SetPaused(true);
  co_await SleepFor(ctx, *stall);
  client.SetPaused(false);
  const auto stalled =
      std::chrono::duration_cast<std::chrono::milliseconds>(ctx.Now() - began).count();
  log.Complete(Outcome::kOk, {{"ms", stall->count()}, {"stalled_ms", stalled}}, "");
}

}  // namespace locksmith
