#include "backends/client_pauses.h"

namespace locksmith {

const char* PausePointName(PausePoint point) {
  switch (point) {
    case PausePoint::kInFlight:
      return "in-flight";
    case PausePoint::kReleaseInFlight:
      return "release-in-flight";
    case PausePoint::kHolder:
      break;
  }
  return "holder";
}

void ClientPauses::Request(std::chrono::milliseconds duration, std::string key,
                           std::optional<int64_t> process) {
  RequestAt(PausePoint::kHolder, {duration, std::chrono::milliseconds(0)}, std::move(key),
            process);
}

void ClientPauses::RequestAt(PausePoint point, Stall stall, std::string key,
                             std::optional<int64_t> process) {
  std::lock_guard lock(mu_);
  requested_ = stall;
  requested_point_ = point;
  requested_key_ = std::move(key);
  requested_process_ = process;
  ++generation_;
  taken_.reset();
}

std::optional<ClientPauses::Taken> ClientPauses::AwaitTaken(std::chrono::milliseconds wait) {
  std::unique_lock lock(mu_);
  const uint64_t generation = generation_;
  taken_cv_.wait_for(lock, wait,
                     [&] { return taken_generation_ == generation && taken_.has_value(); });
  if (taken_generation_ == generation && taken_) return taken_;
  if (generation_ == generation) requested_.reset();  // nobody held a lock: drop it
  return std::nullopt;
}

void ClientPauses::Cancel() {
  std::lock_guard lock(mu_);
  requested_.reset();
}

std::optional<std::chrono::milliseconds> ClientPauses::Take(int64_t process,
                                                            const std::string& key) {
  const auto stall = TakeAt(PausePoint::kHolder, process, key);
  if (!stall) return std::nullopt;
  return stall->duration;
}

std::optional<ClientPauses::Stall> ClientPauses::TakeAt(PausePoint point, int64_t process,
                                                        const std::string& key) {
  std::lock_guard lock(mu_);
  if (!requested_ || requested_point_ != point ||
      (!requested_key_.empty() && requested_key_ != key) ||
      (requested_process_ && *requested_process_ != process)) {
    return std::nullopt;
  }
  const Stall stall = *requested_;
  requested_.reset();
  taken_ = Taken{process, key, stall.duration, point, stall.clock_step};
  taken_generation_ = generation_;
  taken_cv_.notify_all();
  return stall;
}

namespace {

// The pause point a worker's fault point stands for; nothing where no
// client pause strikes.
std::optional<PausePoint> PausePointAt(ClientFaultPoint point) {
  switch (point) {
    case ClientFaultPoint::kCriticalSection:
    case ClientFaultPoint::kBeforeRelease:
      return PausePoint::kHolder;
    case ClientFaultPoint::kAcquireInFlight:
      return PausePoint::kInFlight;
    case ClientFaultPoint::kReleaseInFlight:
      return PausePoint::kReleaseInFlight;
    case ClientFaultPoint::kBeforeAcquire:
    case ClientFaultPoint::kAcquireAnswered:
      break;
  }
  return std::nullopt;
}

int64_t StalledMsSince(const ClientFaultTarget& target,
                       std::chrono::steady_clock::time_point began) {
  return std::chrono::duration_cast<std::chrono::milliseconds>(target.Now() - began).count();
}

// The stall itself: the client stops as a GC pause would stop it, then goes
// on as if nothing happened; only the end of the run cuts it short.
boost::asio::awaitable<int64_t> StallClient(ClientFaultTarget& target,
                                            std::chrono::milliseconds duration) {
  const auto began = target.Now();
  target.client().SetPaused(true);
  co_await target.Sleep(duration);
  target.client().SetPaused(false);
  co_return StalledMsSince(target, began);
}

}  // namespace

boost::asio::awaitable<ClientFaultEffect> ClientPauses::At(ClientFaultPoint point,
                                                          ClientFaultTarget& target,
                                                          const std::string& key) {
  const std::optional<PausePoint> pause_point = PausePointAt(point);
  if (!pause_point) co_return ClientFaultEffect{};
  const std::optional<Stall> stall = TakeAt(*pause_point, target.process(), key);
  if (!stall) co_return ClientFaultEffect{};
  const int64_t ms = stall->duration.count();
  if (*pause_point == PausePoint::kHolder) {
    // A holder has no op open: the stall is an op pair of its own.
    target.Invoke("pause", key, {{"ms", ms}});
    const int64_t stalled = co_await StallClient(target, stall->duration);
    target.Complete(Outcome::kOk, {{"ms", ms}, {"stalled_ms", stalled}}, "");
    co_return ClientFaultEffect{};
  }
  // The acquire or release is the op in flight: two lone ops.
  const char* at = PausePointName(*pause_point);
  target.Note("pause", key, {{"at", at}, {"phase", "begin"}, {"ms", ms}});
  const int64_t stalled = co_await StallClient(target, stall->duration);
  target.Note("pause", key,
              {{"at", at},
               {"phase", "end"},
               {"ms", ms},
               {"stalled_ms", stalled},
               {"clock_step_ms", stall->clock_step.count()}});
  co_return ClientFaultEffect{false, stall->clock_step};
}

}  // namespace locksmith
