#include "workloads/client_pauses.h"

namespace locksmith {

void ClientPauses::Request(std::chrono::milliseconds duration, std::string key,
                           std::optional<int64_t> process) {
  std::lock_guard lock(mu_);
  requested_ = duration;
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
  std::lock_guard lock(mu_);
  if (!requested_ || (!requested_key_.empty() && requested_key_ != key) ||
      (requested_process_ && *requested_process_ != process)) {
    return std::nullopt;
  }
  const auto duration = *requested_;
  requested_.reset();
  taken_ = Taken{process, key, duration};
  taken_generation_ = generation_;
  taken_cv_.notify_all();
  return duration;
}

}  // namespace locksmith
