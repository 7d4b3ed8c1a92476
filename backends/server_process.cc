#include "backends/server_process.h"

#include <signal.h>

#include <thread>

namespace locksmith {

ServerProcess::ServerProcess(ServerProcessOptions options) : options_(std::move(options)) {}

Status ServerProcess::CheckLaunchableLocked() {
  if (starting_) return Error{name() + " is already starting"};
  if (pid_ > 0 && options_.host->Alive(pid_)) return Error{name() + " is already running"};
  return OkStatus();
}

Result<int> ServerProcess::SpawnLocked(const ServerLaunch& launch) {
  Host& host = *options_.host;
  for (const auto& directory : launch.directories) {
    if (Status s = host.MakeDirectory(directory); !s) return Error{name() + ": " + s.error()};
  }
  for (const auto& [path, content] : launch.files) {
    if (Status s = host.WriteFile(path, content); !s) return Error{name() + ": " + s.error()};
  }
  auto pid =
      host.Spawn(ProcessSpec{launch.argv, {}, host.PathOf(options_.log), host.Directory()});
  if (!pid) return Error{name() + ": cannot start " + options_.label + ": " + pid.error()};
  pid_ = *pid;
  paused_ = false;
  return *pid;
}

Result<int> ServerProcess::Spawn(const ServerLaunch& launch) {
  std::lock_guard lock(mu_);
  if (Status s = CheckLaunchableLocked(); !s) return Error{s.error()};
  return SpawnLocked(launch);
}

Status ServerProcess::AwaitReady(int pid, std::chrono::steady_clock::time_point give_up,
                                 const ReadinessProbe& probe) {
  Host& host = *options_.host;
  Status last = Error{"not tried"};
  while (std::chrono::steady_clock::now() < give_up) {
    if (!host.Alive(pid)) {
      std::lock_guard lock(mu_);
      if (pid_ != pid) return Error{name() + ": " + options_.label + " was stopped while starting"};
      pid_ = -1;
      return Error{name() + ": " + options_.label + " exited at start: " +
                   LastLogLines(host, options_.log, 3)};
    }
    last = probe.ask();
    if (last) return OkStatus();
    std::this_thread::sleep_for(probe.interval);
  }
  return Error{name() + ": " + options_.label + " did not " + probe.verb + " within " +
               std::to_string(options_.ready_timeout.count()) + " ms: " + last.error()};
}

Status ServerProcess::Launch(const ServerLaunch& launch, const ReadinessProbe& probe) {
  int pid = -1;
  {
    std::lock_guard lock(mu_);
    if (Status s = CheckLaunchableLocked(); !s) return s;
    auto spawned = SpawnLocked(launch);
    if (!spawned) return Error{spawned.error()};
    pid = *spawned;
    starting_ = true;
  }
  Status ready = AwaitReady(pid, std::chrono::steady_clock::now() + options_.ready_timeout, probe);
  std::lock_guard lock(mu_);
  starting_ = false;
  return ready;
}

Status ServerProcess::Kill() {
  std::lock_guard lock(mu_);
  if (pid_ <= 0) return Error{name() + " is already down"};
  Status s = options_.host->Kill(pid_);
  pid_ = -1;
  paused_ = false;
  return s;
}

Status ServerProcess::Pause() {
  std::lock_guard lock(mu_);
  if (pid_ <= 0) return Error{name() + " is down"};
  if (paused_) return Error{name() + " is already paused"};
  if (Status s = options_.host->Signal(pid_, SIGSTOP); !s) return s;
  paused_ = true;
  return OkStatus();
}

Status ServerProcess::Resume() {
  std::lock_guard lock(mu_);
  if (pid_ <= 0) return Error{name() + " is down"};
  if (!paused_) return Error{name() + " is not paused"};
  if (Status s = options_.host->Signal(pid_, SIGCONT); !s) return s;
  paused_ = false;
  return OkStatus();
}

void ServerProcess::Stop() {
  std::lock_guard lock(mu_);
  if (pid_ > 0) (void)options_.host->Kill(pid_);
  pid_ = -1;
  paused_ = false;
}

std::optional<int> ServerProcess::Pid() {
  std::lock_guard lock(mu_);
  if (pid_ <= 0) return std::nullopt;
  return pid_;
}

bool ServerProcess::IsUp() {
  std::lock_guard lock(mu_);
  return pid_ > 0 && options_.host->Alive(pid_);
}

bool ServerProcess::Responsive() {
  std::lock_guard lock(mu_);
  return pid_ > 0 && !paused_;
}

}  // namespace locksmith
