// Host and Cluster: where servers run. A Host is one test host (local
// provider: a network namespace on the run's bridge, or plain loopback
// without root; docker provider: a container). Backends and nemeses see only
// these interfaces. Implementations are thread-safe: the nemesis thread and
// the run thread may call them concurrently.
#pragma once

#include <chrono>
#include <string>
#include <vector>

#include "checker/result.h"

namespace locksmith {

struct ProcessSpec {
  std::vector<std::string> argv;  // argv[0] is an absolute path or found in PATH
  std::vector<std::string> env;   // extra "NAME=value" entries, added to a clean base
  std::string log_path;           // stdout and stderr appended here; empty: /dev/null
  std::string cwd;                // empty: the log file's directory
};

struct ExecResult {
  int exit_code = 0;
  std::string output;  // stdout and stderr together
};

class Host {
 public:
  virtual ~Host() = default;
  virtual const std::string& Name() const = 0;
  // Address the controller's clients use to reach servers on this host.
  virtual const std::string& Address() const = 0;
  // The port a server should listen on: `preferred` on a host with its own
  // network namespace, a free distinct port on shared loopback.
  virtual int ServicePort(int preferred) = 0;
  // True when the host has its own network stack (iptables faults possible).
  virtual bool HasOwnNetwork() const = 0;

  // Starts a long-running process inside the host; returns its pid. The
  // cluster remembers it and kills it at teardown if still alive.
  virtual Result<int> Spawn(const ProcessSpec& spec) = 0;
  // Sends a signal to a process this host started (refuses any other pid).
  virtual Status Signal(int pid, int signal) = 0;
  // SIGKILLs a process this host started and reaps it.
  virtual Status Kill(int pid) = 0;
  // True while the process this host started has not exited.
  virtual bool Alive(int pid) = 0;
  // Runs a short command inside the host to completion (iptables, ...).
  virtual Result<ExecResult> Exec(const std::vector<std::string>& argv,
                                  std::chrono::milliseconds timeout) = 0;
};

class Cluster {
 public:
  virtual ~Cluster() = default;
  // The run's tag: every namespace, bridge, veth and chain name carries it.
  virtual const std::string& Tag() const = 0;
  virtual std::vector<Host*> Hosts() = 0;
  virtual Host* FindHost(const std::string& name) = 0;
  // Kills every process the run started, then removes every namespace,
  // bridge, veth and rule it created. Idempotent; safe from any thread.
  virtual Status Teardown() = 0;
};

}  // namespace locksmith
