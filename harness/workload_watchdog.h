// WorkloadWatchdog: ends a workload that outlives its time limit, so a run
// never outlives it by more than a grace and its teardown. A thread of its
// own wakes every kPoll and fires once `grace` (the longest the op in
// flight at the limit and the release after it may take) has passed since
// the earliest of: the time limit (Arm: set once every client is connected,
// since the limit counts from then), kConnectAllowance after the last
// client began to connect while they still connect (Connecting: a client
// program that starts slowly has that long), the first interrupt (the
// workers were told to stop), and the workload's end (WorkloadEnded:
// whatever it left on the event loop, such as a client program never
// closed, keeps the loop going). Firing composes one
// line saying what hung ("workload hung: ...", with `in_flight`'s account
// of the ops still open) and calls `end`, which stops the run's event loop:
// its coroutines are then destroyed, closing their clients, and the run is
// torn down and judged as usual (unknown, with that line). Thread-safe.
#pragma once

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <functional>
#include <mutex>
#include <optional>
#include <string>
#include <thread>

namespace locksmith {

// How long past its time limit a workload's workers may take to stop: the
// op in flight (a client call of `client_timeout`, or an acquire waiting up
// to `acquire_wait` for the lock inside one) and the release of a hold the
// limit cut short, and a second for the event loop.
std::chrono::milliseconds WorkloadGrace(std::chrono::milliseconds client_timeout,
                                        std::chrono::milliseconds acquire_wait);

class WorkloadWatchdog {
 public:
  using Clock = std::chrono::steady_clock;
  static inline constexpr std::chrono::milliseconds kPoll{50};
  // What one client's connect may take (a client program's start and
  // handshake: a JVM is slow), before the time limit counts.
  static inline constexpr std::chrono::seconds kConnectAllowance{30};

  // `interrupted`: the run's interruption flag. `in_flight(now)`: the ops
  // still open at `now`, in words ("" when none). `end`: stops the event
  // loop (io_context::stop is thread-safe); called on the watchdog's thread.
  WorkloadWatchdog(Clock::duration grace, const std::atomic<bool>& interrupted,
                   std::function<std::string(Clock::time_point now)> in_flight,
                   std::function<void()> end);
  // Stops the thread; it fires no more.
  ~WorkloadWatchdog();
  WorkloadWatchdog(const WorkloadWatchdog&) = delete;
  WorkloadWatchdog& operator=(const WorkloadWatchdog&) = delete;

  // The workload's time limit (every client is connected): called again, it
  // moves it.
  void Arm(Clock::time_point limit);
  // Client `index` begins to connect (the clients before it have).
  void Connecting(int index);
  // The workload's own task has returned.
  void WorkloadEnded();
  // The line saying what hung, once it fired; "" otherwise.
  std::string fired() const;
  // Whether WorkloadEnded was called.
  bool workload_ended() const;

 private:
  void Watch();
  // The moment it fires, and what that moment follows; nullopt: not yet due.
  std::optional<std::string> DueLocked(Clock::time_point now);

  const Clock::duration grace_;
  const std::atomic<bool>& interrupted_;
  const std::function<std::string(Clock::time_point)> in_flight_;
  const std::function<void()> end_;
  mutable std::mutex mu_;
  std::condition_variable wake_;
  bool stop_ = false;
  std::optional<Clock::time_point> limit_;        // guarded by mu_
  std::optional<Clock::time_point> interrupted_at_;  // the watchdog's thread's
  std::optional<Clock::time_point> ended_at_;     // guarded by mu_
  std::optional<Clock::time_point> connecting_at_;  // guarded by mu_
  int connecting_ = 0;                              // guarded by mu_: its client
  std::string fired_;                             // guarded by mu_
  std::thread thread_;
};

}  // namespace locksmith
