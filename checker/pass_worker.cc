#include "checker/pass_worker.h"

namespace locksmith {

PassWorker::~PassWorker() {
  {
    std::lock_guard<std::mutex> lock(mu_);
    stop_ = true;
  }
  changed_.notify_all();
  if (thread_.joinable()) thread_.join();
}

void PassWorker::Start(const std::vector<Op>* ops, size_t n) {
  {
    std::lock_guard<std::mutex> lock(mu_);
    ops_ = ops;
    n_ = n;
    busy_ = true;
  }
  if (!thread_.joinable()) thread_ = std::thread([this] { Loop(); });
  changed_.notify_all();
}

void PassWorker::Wait() {
  std::unique_lock<std::mutex> lock(mu_);
  changed_.wait(lock, [&] { return !busy_; });
}

void PassWorker::Loop() {
  std::unique_lock<std::mutex> lock(mu_);
  for (;;) {
    changed_.wait(lock, [&] { return stop_ || busy_; });
    if (!busy_) return;  // stopped with nothing to observe
    const std::vector<Op>& ops = *ops_;
    const size_t n = n_;
    lock.unlock();
    for (size_t i = 0; i < n; ++i) {
      for (CheckPass* pass : passes_) pass->Observe(ops[i]);
    }
    lock.lock();
    busy_ = false;
    changed_.notify_all();
  }
}

}  // namespace locksmith
