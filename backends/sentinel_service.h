// SentinelService: the `redis-sentinel` backend. One Redis master, --replicas
// asynchronous replicas and --sentinels Redis Sentinels (quorum 2) on
// max(replicas + 1, sentinels) hosts: data node nI (redis-server) and
// sentinel sI (redis-sentinel) on host nI. Every process has the run's
// password (requirepass and masterauth on data nodes; requirepass, auth-pass
// and sentinel-pass on sentinels) and binds its host's test address only.
//
// Ready when the master reports every replica online (INFO replication) and
// every sentinel knows the master, its replicas and the other sentinels
// (SENTINEL master). Who is master after a failover is what the sentinels
// say (SENTINEL get-master-addr-by-name, the most common answer): Primary()
// and Table()'s roles follow it, so `--kill-target primary` hits the current
// master. A data node started again (kill nemesis) is configured as a
// replica of the current master; one that comes up as a stale master is
// turned into a replica by the sentinels, as in production.
//
// Killable and Pausable for every node (data nodes and sentinels), HasPrimary,
// HasClocks for every node (a data node's TIME; a sentinel's INFO server).
//
// Thread-safety: Start/Stop from the run thread, capability calls from the
// nemesis thread, NewClient from the io thread, Table() from any. Each node
// guards its own process state (ServerProcess); mu_ guards the last known
// master.
#pragma once

#include <chrono>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <vector>

#include "backends/backend_registry.h"
#include "backends/lock_service.h"
#include "backends/redis_service.h"
#include "backends/sentinel_event_watcher.h"
#include "backends/server_process.h"
#include "backends/server_set_service.h"

namespace locksmith {

// The name the sentinels monitor the master under.
inline constexpr char kSentinelMasterName[] = "locksmith";
// The role of a Sentinel process in the node table (it holds no data).
inline constexpr char kSentinelRole[] = "sentinel";

struct SentinelServiceOptions {
  int replicas = 2;
  int sentinels = 3;
  int64_t down_after_ms = 1000;        // sentinel down-after-milliseconds
  int64_t failover_timeout_ms = 3000;  // sentinel failover-timeout
  int wait_replicas = 0;               // clients WAIT for this many replicas after acquiring
  RedisServiceOptions redis;           // persistence (its flag), password, timeouts

  void Declare(OptionSet& set);
};

// Hosts the backend needs: max(replicas + 1, sentinels).
int SentinelHostCount(const SentinelServiceOptions& options);
int SentinelHosts(const ModuleOptions& options);

Result<std::unique_ptr<LockService>> MakeSentinelService(const ModuleOptions& options,
                                                         const BackendContext& context);

// Data nodes n1..n<replicas+1> (n1 the master at start) then sentinels
// s1..s<sentinels>, sI on host nI at ServicePort(26379) (pure; for tests).
NodeTable SentinelNodeTable(const std::vector<Host*>& hosts, const SentinelServiceOptions& o);

// The lines a data node's redis.conf adds to RedisConfigText: masterauth and,
// for a replica, replicaof `master_address` `master_port` (pure).
std::string ReplicationConfigText(const std::string& password, const std::string& master_address,
                                  int master_port);
// A sentinel's sentinel.conf monitoring the master at `master` (pure).
std::string SentinelConfigText(const ServiceNode& sentinel, const ServiceNode& master,
                               const SentinelServiceOptions& o, const std::string& dir);

class SentinelService : public ServerSetService, public HasClocks, public HasEvents {
 public:
  SentinelService(Cluster& cluster, SentinelServiceOptions options);

  // Roles as the sentinels see them now (asked when the service runs).
  NodeTable Table() const override;
  std::vector<NodeRoleSpec> Roles() const override;
  nlohmann::json Settings() const override;
  std::string ClientPassword() const override { return options_.redis.password; }
  Status Start() override;
  void Stop() override;
  // A client that finds the master through the sentinels and follows failovers.
  std::unique_ptr<LockClient> NewClient(boost::asio::any_io_executor executor,
                                        const ClientSlot& slot) override;

  // The data node the sentinels name as master (majority of the answers).
  Result<std::string> Primary() override;
  bool Promotes() const override { return true; }
  Host* NodeHost(const std::string& node) override;
  Result<int64_t> WallClockNs(const std::string& node) override;

  // SentinelEventKinds(): every sentinel's events, f the channel (+sdown,
  // +odown, +switch-master, +failover-end, ...), value {"sentinel": "s2",
  // "message": the payload, and the node names it mentions: "node"
  // (+sdown...), "from" / "to" (+switch-master)}.
  ServiceEventKinds EventKinds() const override { return SentinelEventKinds(); }
  Status WatchEvents(std::function<void(ServiceEvent)> sink) override;
  void StopEvents() override;
  // Whether WatchEvents is subscribed to every sentinel right now (run
  // thread; tests wait for it before a fault whose events they expect).
  bool EventsSubscribed() const;

  // The value of one event (pure given the table; exposed for tests).
  nlohmann::json EventValue(const std::string& sentinel, const std::string& channel,
                            const std::string& payload) const;

  // Sentinel endpoints, in table order (for clients and tests).
  std::vector<RedisEndpoint> SentinelEndpoints() const;

 private:
  Status Relaunch(size_t index) override;
  bool IsSentinel(const ServerProcess& node) const;
  RedisEndpoint EndpointOf(const ServerProcess& node) const;
  // Writes a data node's redis.conf (a replica of `master` unless it is
  // `master` or that is null) and launches it.
  Status LaunchData(ServerProcess& node, const ServiceNode* master);
  // Launches a sentinel; with `config`, written as its sentinel.conf first,
  // else with the one it rewrote.
  Status LaunchSentinel(ServerProcess& node, const std::optional<std::string>& config);
  // Polls until the master n1 reports its replicas online.
  Status AwaitReplicas();
  // Polls until the master has its replicas and every sentinel knows all.
  Status AwaitTopology();
  // One look: every sentinel knows the master, its replicas and the other
  // sentinels, or what the first one that does not knows.
  Status TopologyKnown() const;
  // Asks the sentinels who the master is; the data node's name.
  Result<std::string> AskSentinels() const;

  // The data node at address:port, or "".
  std::string NodeAt(const std::string& address, const std::string& port) const;

  const SentinelServiceOptions options_;
  std::unique_ptr<SentinelEventWatcher> watcher_;  // run thread only
  mutable std::mutex mu_;
  mutable std::string master_;  // guarded by mu_: last known master
  bool started_ = false;        // guarded by mu_
};

}  // namespace locksmith
