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

}  // namespace locksmith
