#include "harness/signal_watcher.h"

#include <pthread.h>
#include <signal.h>

#include <mutex>

namespace locksmith {
namespace {

sigset_t WatchedSignals() {
  sigset_t set;
  sigemptyset(&set);
  sigaddset(&set, SIGINT);
  sigaddset(&set, SIGTERM);
  sigaddset(&set, SIGHUP);
  // SIGUSR2 only wakes the watcher so the destructor can join it.
  sigaddset(&set, SIGUSR2);
  return set;
}

}  // namespace

SignalWatcher::SignalWatcher() {
  sigset_t set = WatchedSignals();
  pthread_sigmask(SIG_BLOCK, &set, nullptr);
  thread_ = std::thread([this] { Loop(); });
}

SignalWatcher::~SignalWatcher() {
  stopping_ = true;
  pthread_kill(thread_.native_handle(), SIGUSR2);
  thread_.join();
  // Signals stay blocked: a late Ctrl-C must not kill the process halfway
  // through its exit; the process is about to end anyway.
}

void SignalWatcher::OnInterrupt(std::function<void(int)> callback) {
  std::lock_guard lock(mu_);
  on_interrupt_ = std::move(callback);
}

void SignalWatcher::OnForce(std::function<void()> callback) {
  std::lock_guard lock(mu_);
  on_force_ = std::move(callback);
}

void SignalWatcher::Loop() {
  const sigset_t set = WatchedSignals();
  while (true) {
    int sig = 0;
    if (sigwait(&set, &sig) != 0) continue;
    if (stopping_) return;
    if (sig == SIGUSR2) continue;
    std::lock_guard lock(mu_);
    if (!interrupted_.exchange(true)) {
      signal_ = sig;
      if (on_interrupt_) on_interrupt_(sig);
    } else if (on_force_) {
      on_force_();
    }
  }
}

}  // namespace locksmith
