// LocalHost: one host of a LocalCluster. With its own network, a network
// namespace on the run's bridge: servers and Exec'd commands run inside it
// and listen on their preferred ports. Without (no root, or forced),
// loopback: 127.0.0.1, distinct ports leased from the cluster's
// LoopbackPortPool, no firewall faults. Its directory is the run's
// <nodes_dir>/<host>/ on the controller's filesystem (the local host shares
// it), made by the cluster.
// Thread-safe: processes go through the shared ProcessSupervisor; the port
// map and the spawn environment have their own mutex.
#pragma once

#include <functional>
#include <map>
#include <mutex>
#include <optional>
#include <string>
#include <vector>

#include "cluster/host.h"
#include "cluster/loopback_port_pool.h"
#include "cluster/process_supervisor.h"

namespace locksmith {

class LocalHost : public Host {
 public:
  // Called after every successful Spawn so the run record holds the pid; an
  // error makes Spawn kill the process and fail.
  using SpawnHook = std::function<Status(const std::string& host, int pid)>;

  // `netns` empty: a loopback host, whose ports come from `ports` leased to
  // `port_owner` (the cluster releases them at teardown). With `contain` (a
  // client host, whose programs are not ours), every process it spawns is
  // contained so (ProcessSupervisor).
  LocalHost(std::string name, std::string address, std::string netns, std::string dir,
            ProcessSupervisor* supervisor, SpawnHook on_spawn, LoopbackPortPool* ports,
            std::string port_owner, std::optional<ContainSpec> contain = std::nullopt);

  const std::string& Name() const override { return name_; }
  const std::string& Address() const override { return address_; }
  // 0 when the pool has no free port left.
  int ServicePort(int preferred) override;
  bool HasOwnNetwork() const override { return !netns_.empty(); }
  const std::string& Directory() const override { return dir_; }
  Status WriteFile(const std::string& path, std::string_view content) override;
  Status RemoveFile(const std::string& path) override;
  Result<std::string> ReadFile(const std::string& path, size_t max_bytes) override;
  Status MakeDirectory(const std::string& path) override;
  Status SetSpawnEnv(const std::string& entry) override;
  std::vector<std::string> SpawnEnv() const override;
  Result<int> Spawn(const ProcessSpec& spec) override;
  Status Signal(int pid, int signal) override;
  Status Kill(int pid) override;
  bool Alive(int pid) override;
  // Runs in the host's namespace. On a loopback host it would run on the
  // controller's own network, so firewall and link tools are refused there.
  Result<ExecResult> Exec(const std::vector<std::string>& argv,
                          std::chrono::milliseconds timeout) override;
  // In the host's namespace, without a command (cluster/tcp_abort.h); on a
  // loopback host, Host's default.
  Status AbortConnections(const std::set<std::string>& peers,
                          std::chrono::milliseconds timeout) override;
  // Inside the host's namespace; an error on loopback.
  Result<int> OpenTcpSocket() override;
  bool OpensSocketsInside() const override { return !netns_.empty(); }

  // The namespace name (empty on loopback).
  const std::string& NetnsName() const { return netns_; }

 private:
  const std::string name_;
  const std::string address_;
  const std::string netns_;
  const std::string dir_;
  ProcessSupervisor* const supervisor_;
  const SpawnHook on_spawn_;
  LoopbackPortPool* const port_pool_;
  const std::string port_owner_;
  const std::optional<ContainSpec> contain_;
  std::mutex ports_mu_;
  std::map<int, int> ports_;  // preferred -> assigned, stable across restarts
  mutable std::mutex env_mu_;
  std::vector<std::string> spawn_env_;
};

}  // namespace locksmith
