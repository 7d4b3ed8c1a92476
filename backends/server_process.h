// ServerProcess: one server process of a service on its host (a
// redis-server, a redis-sentinel, a ZooKeeper peer, the resource store's
// redis-server) and the steps every backend takes on it: make its
// directories, write its files and spawn it through the Host, wait (bounded)
// until its readiness probe passes, SIGKILL it, SIGSTOP / SIGCONT it, stop
// it. The service says only what differs: what one start writes and runs
// (ServerLaunch) and when the server counts as ready (ReadinessProbe). The
// rules are the same for every server: one launch at a time, a node that is
// down cannot be paused, a paused node killed is no longer paused, ...
//
// Thread-safety: every method may be called from any thread; mu_ guards the
// process state and is never held while the server is probed for readiness
// (seconds), so a fault on one node never waits for another to come up.
#pragma once

#include <chrono>
#include <functional>
#include <mutex>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "backends/node_table.h"
#include "base/result.h"
#include "cluster/host.h"

namespace locksmith {

// What stays the same across the starts of one server.
struct ServerProcessOptions {
  ServiceNode info;    // its node in the service's table
  Host* host = nullptr;
  std::string label;   // how messages name it: "redis-server", "the zookeeper peer"
  std::string log;     // its stdout and stderr: a file in the host's directory
  std::chrono::milliseconds ready_timeout{20000};
};

// What one start writes and runs, all in the host's directory.
struct ServerLaunch {
  std::vector<std::string> directories;                   // made first
  std::vector<std::pair<std::string, std::string>> files;  // (path, content), written next
  std::vector<std::string> argv;                          // then spawned
};

// When a started server counts as ready.
struct ReadinessProbe {
  // One bounded try: OK once ready, else why not yet.
  std::function<Status()> ask;
  std::chrono::milliseconds interval{20};  // between tries
  std::string verb = "answer";             // "<label> did not <verb> within N ms"
};

class ServerProcess {
 public:
  explicit ServerProcess(ServerProcessOptions options);

  const ServiceNode& info() const { return options_.info; }
  const std::string& name() const { return options_.info.name; }
  Host* host() const { return options_.host; }

  // Makes the launch's directories, writes its files and spawns its argv;
  // returns the pid. Refuses while the server runs or a launch waits for it.
  Result<int> Spawn(const ServerLaunch& launch);
  // Tries `probe` until it passes, the process `pid` exits (or is stopped),
  // or `give_up` passes.
  Status AwaitReady(int pid, std::chrono::steady_clock::time_point give_up,
                    const ReadinessProbe& probe);
  // Spawn, then AwaitReady within the ready timeout; one launch at a time.
  Status Launch(const ServerLaunch& launch, const ReadinessProbe& probe);

  // SIGKILL; an error when it is down already. Down afterwards whatever the
  // signal's outcome.
  Status Kill();
  // SIGSTOP / SIGCONT of a server that is up.
  Status Pause();
  Status Resume();
  // Kills it if it runs; never fails.
  void Stop();
  // Started, not killed, and its process has not exited (paused counts).
  bool IsUp();
  // Its pid while it runs (started and not killed).
  std::optional<int> Pid();
  // Started and not paused: it can answer.
  bool Responsive();

 private:
  // Requires mu_.
  Status CheckLaunchableLocked();
  Result<int> SpawnLocked(const ServerLaunch& launch);

  const ServerProcessOptions options_;
  std::mutex mu_;
  int pid_ = -1;           // -1 while down
  bool starting_ = false;  // a launch is waiting for it to be ready
  bool paused_ = false;    // SIGSTOPped
};

}  // namespace locksmith
