#include "harness/interruption.h"

#include <signal.h>

#include <cstdio>
#include <future>

namespace locksmith {
namespace {

const char* PhaseName(Interruption::Phase phase) {
  switch (phase) {
    case Interruption::Phase::kSetup:
      return "setup";
    case Interruption::Phase::kServers:
      return "servers";
    case Interruption::Phase::kWorkload:
      return "workload";
    case Interruption::Phase::kFinishing:
      return "finishing";
  }
  return "?";
}

std::string Seconds(double s) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.1f", s);
  return buf;
}

// A configured time limit as given: "60", "0.5".
std::string Limit(double s) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%g", s);
  return buf;
}

}  // namespace

std::string SignalName(int signal) {
  switch (signal) {
    case SIGINT:
      return "SIGINT";
    case SIGTERM:
      return "SIGTERM";
    case SIGHUP:
      return "SIGHUP";
  }
  return "signal " + std::to_string(signal);
}

void Interruption::SetPhase(Phase phase) {
  std::lock_guard lock(mu_);
  phase_ = phase;
}

std::string Interruption::Note(int signal, Clock::time_point at) {
  std::lock_guard lock(mu_);
  if (signal_ != 0) return "";
  signal_ = signal;
  signal_phase_ = phase_;
  signal_at_ = at;
  noted_ = true;
  const std::string name = SignalName(signal);
  switch (phase_) {
    case Phase::kSetup:
      return name + " while setting up the cluster: stopping before the workload, teardown follows";
    case Phase::kServers:
      return name + " while the servers start: stopping them, teardown follows";
    case Phase::kWorkload:
      return name + ": stopping the workload (again to force)";
    case Phase::kFinishing:
      return name + " after the workload ended: finishing teardown and the check";
  }
  return name;
}

bool Interruption::StoppedTheRun() const {
  std::lock_guard lock(mu_);
  return signal_ != 0 && signal_phase_ != Phase::kFinishing;
}

bool Interruption::BeforeWorkload() const {
  std::lock_guard lock(mu_);
  return signal_ != 0 && (signal_phase_ == Phase::kSetup || signal_phase_ == Phase::kServers);
}

std::string Interruption::Describe(Clock::time_point workload_start, double time_limit_s) const {
  std::lock_guard lock(mu_);
  return DescribeLocked(workload_start, time_limit_s);
}

std::string Interruption::DescribeLocked(Clock::time_point workload_start,
                                         double time_limit_s) const {
  const std::string by = "by " + SignalName(signal_);
  switch (signal_ == 0 ? Phase::kFinishing : signal_phase_) {
    case Phase::kSetup:
      return by + " while the cluster was being set up, before the workload started; no op ran, "
                  "so the verdict is unknown";
    case Phase::kServers:
      return by + " while the servers were starting, before the workload started; no op ran, "
                  "so the verdict is unknown";
    case Phase::kWorkload: {
      const double after = std::chrono::duration<double>(signal_at_ - workload_start).count();
      return by + " after " + Seconds(std::max(after, 0.0)) + " s of the " +
             Limit(time_limit_s) +
             " s workload; the verdict covers only the ops before it, and is unknown unless "
             "they show an anomaly";
    }
    case Phase::kFinishing:
      return "";
  }
  return "";
}

nlohmann::json Interruption::ToJson(Clock::time_point workload_start, double time_limit_s) const {
  std::lock_guard lock(mu_);
  if (signal_ == 0 || signal_phase_ == Phase::kFinishing) return nullptr;
  nlohmann::json j = {{"signal", SignalName(signal_)}, {"phase", PhaseName(signal_phase_)}};
  if (signal_phase_ == Phase::kWorkload) {
    const double after = std::chrono::duration<double>(signal_at_ - workload_start).count();
    j["after_s"] = std::max(after, 0.0);
  }
  j["message"] = DescribeLocked(workload_start, time_limit_s);
  return j;
}

StartOutcome StartUnlessInterrupted(const std::function<Status()>& start,
                                    const std::atomic<bool>& interrupted,
                                    const std::function<void()>& abort, std::string* error,
                                    std::chrono::milliseconds poll) {
  // std::async: an exception in `start` reaches this thread, and the
  // future's destructor never leaves the helper running.
  std::future<Status> done = std::async(std::launch::async, start);
  while (done.wait_for(poll) != std::future_status::ready) {
    if (interrupted) abort();
  }
  Status status = done.get();
  if (!status && error != nullptr) *error = status.error();
  if (interrupted) return StartOutcome::kInterrupted;
  return status ? StartOutcome::kStarted : StartOutcome::kFailed;
}

}  // namespace locksmith
