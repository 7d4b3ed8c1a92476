// SignalWatcher: turns SIGINT / SIGTERM / SIGHUP into a flag the run polls,
// so teardown always runs on the normal path. Construct it on the main
// thread before any other thread starts: it blocks those signals process-wide
// (threads inherit the mask; spawned servers get a clean mask from the
// process supervisor) and waits for them on its own thread with sigwait.
// The first signal sets interrupted() and calls on_interrupt; a second one
// calls on_force (the run stops waiting for in-flight work). Thread-safe.
#pragma once

#include <atomic>
#include <functional>
#include <thread>

namespace locksmith {

class SignalWatcher {
 public:
  SignalWatcher();
  ~SignalWatcher();
  SignalWatcher(const SignalWatcher&) = delete;
  SignalWatcher& operator=(const SignalWatcher&) = delete;

  // Callbacks run on the watcher thread; set them before a signal can matter.
  void OnInterrupt(std::function<void(int signal)> callback);
  void OnForce(std::function<void()> callback);

  const std::atomic<bool>& interrupted() const { return interrupted_; }
  int signal() const { return signal_; }

 private:
  void Loop();

  std::atomic<bool> interrupted_{false};
  std::atomic<int> signal_{0};
  std::atomic<bool> stopping_{false};
  std::mutex mu_;
  std::function<void(int)> on_interrupt_;
  std::function<void()> on_force_;
  std::thread thread_;
};

}  // namespace locksmith
