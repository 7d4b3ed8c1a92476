// ProcessSupervisor: starts, signals, kills and reaps the processes of one
// run, optionally inside a network namespace, and remembers which host
// started each pid so a host can refuse pids that are not its own.
//
// Spawning: fork + execve from argv vectors (never a shell), in the child:
// setns(CLONE_NEWNET) into the namespace file, a process group of its own (so
// a terminal's Ctrl-C reaches only the controller, and signals reach a
// wrapper's children too: Signal/Kill target the group the spawned process
// leads), default signal dispositions and an empty mask, umask 077 (what a
// server writes, a config it rewrites with its password in it included, is
// its owner's only), stdin /dev/null, stdout+stderr appended to the log file
// (created 0600; or stdin and stdout on the pipes ProcessSpec names, stderr
// to the log), every other descriptor closed.
// The pid returned is the exec'd program's own pid (no wrapper).
//
// A contained process (a program not ours: an exec lock client; Spawn's
// `contain`, or every process with SupervisorOptions::contain_all) runs in a
// cgroup of its own under the run's (cluster/process_cgroup.h) and leads a
// session of its own; its stderr (and stdout, unless a pipe of the
// caller's) goes through the supervisor's LogPump, capped. When it is killed,
// or found exited, its cgroup is killed and removed (where there is no
// cgroup: every process of its session), so nothing it started outlives it.
//
// With die_with_controller, children get PR_SET_PDEATHSIG(SIGKILL). That
// signal fires when the forking *thread* exits, so every Spawn forks on one
// spawner thread owned by the supervisor, which lives until the supervisor is
// destroyed (after KillAll).
//
// Thread-safe: any thread may call any method. Pids are never signalled after
// they were reaped (only this class reaps them), so pid reuse cannot make us
// hit a stranger. Do not set SIGCHLD to SIG_IGN or call waitpid(-1) elsewhere
// in the process: that would reap our children behind our back.
#pragma once

#include <sys/types.h>

#include <chrono>
#include <condition_variable>
#include <deque>
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <set>
#include <string>
#include <thread>
#include <vector>

#include "base/result.h"
#include "cluster/host.h"
#include "cluster/log_pump.h"

namespace locksmith {

// Runs a short command to completion with stdout+stderr captured, inside the
// namespace `netns_path` (empty: the controller's own). A non-zero exit is a
// result, not an error; failing to start or overrunning `timeout` (the
// command's process group is then SIGKILLed) is an error naming the command.
Result<ExecResult> RunCommand(const std::vector<std::string>& argv, const std::string& netns_path,
                              std::chrono::milliseconds timeout);

// SIGKILLs the process group of every process any ProcessSupervisor has
// spawned and not yet reaped. Async-signal-safe (atomics and kill(2) only):
// meant for a crash handler; `locksmith cleanup` removes the rest.
void KillAllSpawnedAsyncSignalSafe();

// How contained processes run: their run's cgroup is named from
// `cgroup_tag` (empty: no cgroup, the session fallback).
struct ContainSpec {
  std::string cgroup_tag;
};

struct SupervisorOptions {
  bool die_with_controller = false;
  // Contains every process spawned so (Spawn's own `contain` wins).
  std::optional<ContainSpec> contain_all;
  LogPump::Options log;  // contained processes' logs: the cap and the filter
};

class ProcessSupervisor {
 public:
  explicit ProcessSupervisor(bool die_with_controller);
  explicit ProcessSupervisor(SupervisorOptions options);
  ~ProcessSupervisor();  // KillAll(), then stops the spawner thread
  ProcessSupervisor(const ProcessSupervisor&) = delete;
  ProcessSupervisor& operator=(const ProcessSupervisor&) = delete;

  // Starts spec inside `netns_path` (empty: no namespace change). `owner`
  // names the host; `default_cwd` is used when spec has neither cwd nor log.
  // With `contain` (or options' contain_all), the process is contained.
  Result<int> Spawn(const std::string& owner, const ProcessSpec& spec,
                    const std::string& netns_path, const std::string& default_cwd,
                    const std::optional<ContainSpec>& contain = std::nullopt);
  // Sends `signal` to the process group of a live process `owner` started.
  Status Signal(const std::string& owner, int pid, int signal);
  // SIGKILLs the group and reaps the process; OK if it had already exited.
  Status Kill(const std::string& owner, int pid);
  // True while the process `owner` started has not exited (reaps it if it has).
  bool Alive(const std::string& owner, int pid);
  // Pids started by `owner` (any owner if empty) that have not been reaped.
  std::vector<int> Unreaped(const std::string& owner = "");
  // Refuses further Spawn calls, SIGKILLs every group still alive and reaps
  // the processes. Idempotent.
  Status KillAll();

 private:
  struct Child {
    std::string owner;
    bool reaped = false;
    int wait_status = 0;
    bool contained = false;  // leads a session of its own
    std::string cgroup;      // its own cgroup; "" once removed, or without one
    int cgroup_kill_fd = -1;
  };

  // A contained process's leftovers, before it is reaped: its cgroup killed
  // and removed (waiting up to `wait`), or the rest of its session killed.
  // Requires mu_.
  Status KillContained(int pid, Child& child, std::chrono::milliseconds wait);
  // The descriptor a spawned process writes its log to: the log file, or
  // for a contained one the pump's pipe into it.
  Result<int> OpenLog(const ProcessSpec& spec, bool contained);

  // Reaps `pid` if it has exited, waiting up to `wait` for that; returns true
  // once reaped (by this or an earlier call).
  bool ReapIfExited(int pid, std::chrono::milliseconds wait);
  Status CheckOwner(const std::string& owner, int pid);  // requires mu_
  void SpawnerLoop();
  Result<int> RunOnSpawner(std::function<Result<int>()> fn);

  const SupervisorOptions options_;
  std::mutex mu_;
  std::unique_ptr<LogPump> log_pump_;  // made at the first contained spawn
  std::set<std::string> run_cgroups_;  // removed by KillAll when empty
  std::map<int, Child> children_;
  bool closed_ = false;

  std::mutex queue_mu_;
  std::condition_variable queue_cv_;
  std::deque<std::function<void()>> queue_;
  bool stop_spawner_ = false;
  std::thread spawner_;
};

}  // namespace locksmith
