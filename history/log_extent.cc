#include "history/log_extent.h"

#include <algorithm>

namespace locksmith {

void LogExtent::Publish(uint64_t bytes) {
  {
    std::lock_guard lock(mu_);
    state_.bytes = std::max(state_.bytes, bytes);
  }
  changed_.notify_all();
}

void LogExtent::Seal() {
  {
    std::lock_guard lock(mu_);
    state_.sealed = true;
  }
  changed_.notify_all();
}

LogExtent::State LogExtent::Now() const {
  std::lock_guard lock(mu_);
  return state_;
}

LogExtent::State LogExtent::WaitBeyond(uint64_t offset) const {
  std::unique_lock lock(mu_);
  changed_.wait(lock, [&] { return state_.bytes > offset || state_.sealed; });
  return state_;
}

}  // namespace locksmith
