#include "backends/redis_node_process.h"

#include <sstream>
#include <thread>
#include <vector>

#include "backends/redis_admin.h"
#include "backends/server_signals.h"

namespace locksmith {
namespace {

// One readiness probe; a refused connection answers at once.
constexpr std::chrono::milliseconds kProbeTimeout{300};
constexpr std::chrono::milliseconds kProbeInterval{20};

}  // namespace

std::string RedisConfQuoted(const std::string& s) {
  std::string out = "\"";
  for (char c : s) {
    if (c == '"' || c == '\\') out.push_back('\\');
    out.push_back(c);
  }
  return out + "\"";
}

RedisNodeProcess::RedisNodeProcess(ServiceNode info, Host* host, RedisNodeFiles files,
                                   std::string password, std::chrono::milliseconds ready_timeout)
    : info_(std::move(info)),
      host_(host),
      files_(std::move(files)),
      password_(std::move(password)),
      ready_timeout_(ready_timeout) {}

RedisEndpoint RedisNodeProcess::Endpoint() const {
  return {info_.address, static_cast<uint16_t>(info_.port), password_};
}

Status RedisNodeProcess::Launch(const std::optional<std::string>& config) {
  int pid = -1;
  {
    std::lock_guard lock(mu_);
    if (starting_) return Error{info_.name + " is already starting"};
    if (pid_ > 0 && host_->Alive(pid_)) return Error{info_.name + " is already running"};
    if (config) {
      if (Status s = host_->WriteFile(files_.config, *config); !s) {
        return Error{info_.name + ": " + s.error()};
      }
    }
    auto spawned = host_->Spawn(ProcessSpec{{files_.program, host_->PathOf(files_.config)},
                                            {},
                                            host_->PathOf(files_.log),
                                            host_->Directory()});
    if (!spawned) {
      return Error{info_.name + ": cannot start " + files_.program + ": " + spawned.error()};
    }
    pid = pid_ = *spawned;
    paused_ = false;
    starting_ = true;
  }
  Status ready = AwaitReady(pid);
  std::lock_guard lock(mu_);
  starting_ = false;
  return ready;
}

Status RedisNodeProcess::AwaitReady(int pid) {
  const RedisEndpoint endpoint = Endpoint();
  const auto give_up = std::chrono::steady_clock::now() + ready_timeout_;
  Status last = Error{"not tried"};
  while (std::chrono::steady_clock::now() < give_up) {
    if (!host_->Alive(pid)) {
      std::lock_guard lock(mu_);
      if (pid_ != pid) {
        return Error{info_.name + ": " + files_.program + " was stopped while starting"};
      }
      pid_ = -1;
      return Error{info_.name + ": " + files_.program + " exited at start: " +
                   LastLogLines(*host_, files_.log, 3)};
    }
    last = RedisPing(endpoint, kProbeTimeout);
    if (last) return OkStatus();
    std::this_thread::sleep_for(kProbeInterval);
  }
  return Error{info_.name + ": " + files_.program + " did not answer within " +
               std::to_string(ready_timeout_.count()) + " ms: " + last.error()};
}

Status RedisNodeProcess::Kill() {
  std::lock_guard lock(mu_);
  return KillServer(info_.name, *host_, pid_, paused_);
}

Status RedisNodeProcess::Pause() {
  std::lock_guard lock(mu_);
  return PauseServer(info_.name, *host_, pid_, paused_);
}

Status RedisNodeProcess::Resume() {
  std::lock_guard lock(mu_);
  return ResumeServer(info_.name, *host_, pid_, paused_);
}

void RedisNodeProcess::Stop() {
  std::lock_guard lock(mu_);
  if (pid_ > 0) (void)host_->Kill(pid_);
  pid_ = -1;
  paused_ = false;
}

std::optional<int> RedisNodeProcess::Pid() {
  std::lock_guard lock(mu_);
  if (pid_ <= 0) return std::nullopt;
  return pid_;
}

bool RedisNodeProcess::Running() {
  std::lock_guard lock(mu_);
  return pid_ > 0;
}

bool RedisNodeProcess::Paused() {
  std::lock_guard lock(mu_);
  return paused_;
}

}  // namespace locksmith
