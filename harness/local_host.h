// LocalHost: one host of a LocalCluster. With its own network, a network
// namespace on the run's bridge: servers and Exec'd commands run inside it
// and listen on their preferred ports. Without (no root, or forced),
// loopback: 127.0.0.1, distinct free ports, no firewall faults.
// Thread-safe: processes go through the shared ProcessSupervisor; the port
// map has its own mutex.
#pragma once

#include <functional>
#include <map>
#include <mutex>
#include <string>

#include "harness/host.h"
#include "harness/process_supervisor.h"

namespace locksmith {

class LocalHost : public Host {
 public:
  // Called after every successful Spawn so the run record holds the pid; an
  // error makes Spawn kill the process and fail.
  using SpawnHook = std::function<Status(const std::string& host, int pid)>;

  // `netns` empty: a loopback host.
  LocalHost(std::string name, std::string address, std::string netns, std::string dir,
            ProcessSupervisor* supervisor, SpawnHook on_spawn);

  const std::string& Name() const override { return name_; }
  const std::string& Address() const override { return address_; }
  int ServicePort(int preferred) override;
  bool HasOwnNetwork() const override { return !netns_.empty(); }
  Result<int> Spawn(const ProcessSpec& spec) override;
  Status Signal(int pid, int signal) override;
  Status Kill(int pid) override;
  bool Alive(int pid) override;
  // Runs in the host's namespace. On a loopback host it would run on the
  // controller's own network, so firewall and link tools are refused there.
  Result<ExecResult> Exec(const std::vector<std::string>& argv,
                          std::chrono::milliseconds timeout) override;

  // The namespace name (empty on loopback) and <nodes_dir>/<node>.
  const std::string& NetnsName() const { return netns_; }
  const std::string& Directory() const { return dir_; }

 private:
  const std::string name_;
  const std::string address_;
  const std::string netns_;
  const std::string dir_;
  ProcessSupervisor* const supervisor_;
  const SpawnHook on_spawn_;
  std::mutex ports_mu_;
  std::map<int, int> ports_;  // preferred -> assigned, stable across restarts
};

}  // namespace locksmith
