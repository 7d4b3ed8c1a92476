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

namespace {

boost::asio::awaitable<std::chrono::milliseconds> StallInFlightIfAsked(WorkloadContext& ctx,
                                                                       OpLog& log,
                                                                       LockClient& client,
                                                                       PausePoint point,
                                                                       std::string key) {
  if (ctx.pauses == nullptr) co_return std::chrono::milliseconds(0);
  const auto stall = ctx.pauses->TakeAt(point, log.process(), key);
  if (!stall) co_return std::chrono::milliseconds(0);
  const char* at = PausePointName(point);
  const auto began = ctx.Now();
  log.Event(Outcome::kOk, "pause", key,
            {{"at", at}, {"phase", "begin"}, {"ms", stall->duration.count()}}, "");
  client.SetPaused(true);
  co_await SleepFor(ctx, stall->duration);
  client.SetPaused(false);
  const auto stalled =
      std::chrono::duration_cast<std::chrono::milliseconds>(ctx.Now() - began).count();
  log.Event(Outcome::kOk, "pause", key,
            {{"at", at},
             {"phase", "end"},
             {"ms", stall->duration.count()},
             {"stalled_ms", stalled},
             {"clock_step_ms", stall->clock_step.count()}},
            "");
  co_return stall->clock_step;
}

}  // namespace

InFlightPausePoint InFlightStalls(WorkloadContext& ctx, OpLog& log, LockClient& client) {
  return [&ctx, &log, &client](const std::string& key) {
    return StallInFlightIfAsked(ctx, log, client, PausePoint::kInFlight, key);
  };
}

InFlightPausePoint ReleaseInFlightStalls(WorkloadContext& ctx, OpLog& log, LockClient& client) {
  return [&ctx, &log, &client](const std::string& key) {
    return StallInFlightIfAsked(ctx, log, client, PausePoint::kReleaseInFlight, key);
  };
}

nlohmann::json ReleaseCompletionValue(const ReleaseResult& released) {
  if (released.attempts <= 1) return nullptr;
  return {{"attempts", released.attempts}};
}

}  // namespace locksmith
