#include "harness/workload_watchdog.h"

#include <cstdio>
#include <utility>

namespace locksmith {
namespace {

std::string Seconds(WorkloadWatchdog::Clock::duration d) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.1f s", std::chrono::duration<double>(d).count());
  return buf;
}

}  // namespace

std::chrono::milliseconds WorkloadGrace(std::chrono::milliseconds client_timeout,
                                        std::chrono::milliseconds acquire_wait) {
  return 2 * client_timeout + acquire_wait + std::chrono::seconds(1);
}

WorkloadWatchdog::WorkloadWatchdog(Clock::duration grace, const std::atomic<bool>& interrupted,
                                   std::function<std::string(Clock::time_point)> in_flight,
                                   std::function<void()> end)
    : grace_(grace),
      interrupted_(interrupted),
      in_flight_(std::move(in_flight)),
      end_(std::move(end)),
      thread_([this] { Watch(); }) {}

WorkloadWatchdog::~WorkloadWatchdog() {
  {
    std::lock_guard lock(mu_);
    stop_ = true;
  }
  wake_.notify_all();
  thread_.join();
}

void WorkloadWatchdog::Arm(Clock::time_point limit) {
  std::lock_guard lock(mu_);
  limit_ = limit;
}

void WorkloadWatchdog::Connecting(int index) {
  std::lock_guard lock(mu_);
  connecting_at_ = Clock::now();
  connecting_ = index;
}

void WorkloadWatchdog::WorkloadEnded() {
  std::lock_guard lock(mu_);
  if (!ended_at_) ended_at_ = Clock::now();
}

bool WorkloadWatchdog::workload_ended() const {
  std::lock_guard lock(mu_);
  return ended_at_.has_value();
}

std::string WorkloadWatchdog::fired() const {
  std::lock_guard lock(mu_);
  return fired_;
}

std::optional<std::string> WorkloadWatchdog::DueLocked(Clock::time_point now) {
  // The earliest moment past which the workers had `grace` to stop.
  struct Due {
    Clock::time_point from;
    std::string what, after;  // what was still going, after what
  };
  std::optional<Due> due;
  auto consider = [&](const std::optional<Clock::time_point>& from, std::string what,
                      std::string after) {
    if (from && (!due || *from < due->from)) due = Due{*from, std::move(what), std::move(after)};
  };
  consider(limit_, "still running", "its time limit");
  if (!limit_ && connecting_at_) {
    consider(*connecting_at_ + kConnectAllowance, "still running",
             "the " + Seconds(kConnectAllowance) + " client " + std::to_string(connecting_) +
                 " had to connect");
  }
  consider(interrupted_at_, "still running", "the interrupt");
  consider(ended_at_, "its event loop still busy", "the workload returned");
  if (!due || now < due->from + grace_) return std::nullopt;
  return "workload hung: " + due->what + " " + Seconds(now - due->from) + " after " + due->after +
         " (grace " + Seconds(grace_) + ")";
}

void WorkloadWatchdog::Watch() {
  std::unique_lock lock(mu_);
  while (!stop_) {
    wake_.wait_for(lock, kPoll, [&] { return stop_; });
    if (stop_) return;
    const Clock::time_point now = Clock::now();
    if (!interrupted_at_ && interrupted_.load()) interrupted_at_ = now;
    std::optional<std::string> line = DueLocked(now);
    if (!line) continue;
    lock.unlock();
    const std::string open = in_flight_(now);
    *line += open.empty() ? "; no op was in flight" : ": " + open;
    lock.lock();
    fired_ = *line;
    lock.unlock();
    end_();
    return;
  }
}

}  // namespace locksmith
