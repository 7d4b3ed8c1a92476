#include "workloads/blocking_acquire.h"

#include <algorithm>

#include "workloads/acquirer_crash.h"
#include "workloads/op_log.h"
#include "workloads/pacing.h"

namespace locksmith {
namespace {

using Clock = std::chrono::steady_clock;
using std::chrono::milliseconds;

int64_t MsBetween(Clock::time_point from, Clock::time_point to) {
  return std::chrono::duration_cast<milliseconds>(to - from).count();
}

}  // namespace

int64_t DrawMs(std::mt19937_64& rng, MsRange range) {
  return std::uniform_int_distribution<int64_t>(range.min, range.max)(rng);
}

nlohmann::json WaitedAcquireValue(const WaitedAcquire& waited) {
  nlohmann::json value = AcquireCompletionValue(waited.last);
  if (!value.is_object()) value = nlohmann::json::object();
  value["attempts"] = waited.attempts;
  value["waited_ms"] = waited.waited_ms;
  if (waited.last.outcome == Outcome::kFail) {
    value["gave_up"] = waited.last.busy ? "busy" : "unanswered";
  }
  return value;
}

boost::asio::awaitable<std::optional<WaitedAcquire>> AcquireWaiting(
    WorkloadContext& ctx, OpLog& log, LockClient& client, const std::string& key,
    milliseconds lease, bool shared, AcquireWait wait, std::mt19937_64& rng) {
  const Clock::time_point start = ctx.Now();
  const Clock::time_point give_up = start + wait.budget;
  WaitedAcquire waited;
  while (true) {
    ++waited.attempts;
    client.SetAcquireWait(milliseconds(std::max<int64_t>(0, MsBetween(ctx.Now(), give_up))));
    if (shared) {
      waited.last = co_await client.AcquireShared(key, lease);
    } else {
      std::optional<AcquireResult> got = co_await AcquireUnlessCrashed(ctx, log, client, key, lease);
      if (!got) co_return std::nullopt;
      waited.last = std::move(*got);
    }
    // A grant ends the wait, and so does an attempt in doubt: the lock may
    // be ours, and asking again could only stack a second request on it.
    if (waited.last.outcome != Outcome::kFail) break;
    const Clock::time_point now = ctx.Now();
    if (now >= give_up || now >= ctx.deadline || ctx.ShouldStop()) break;
    const int64_t pause = std::min(DrawMs(rng, wait.pause), MsBetween(now, give_up));
    co_await SleepFor(ctx, milliseconds(pause));
    if (ctx.Now() >= ctx.deadline || ctx.ShouldStop()) break;
  }
  waited.waited_ms = MsBetween(start, ctx.Now());
  co_return waited;
}

}  // namespace locksmith
