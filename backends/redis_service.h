// RedisService: the `redis` backend's servers (password-protected
// redis-server masters, one per host, each reachable only on its test host's
// address; the first is the primary the clients use) and its lock clients.
// Persistence none | everysec | always decides what a SIGKILLed node
// remembers when started again. Killable (kill nemesis), Pausable (SIGSTOP /
// SIGCONT through Host::Signal), HasPrimary and HasClocks (TIME shows a
// node's wall clock, faked by the clock shim when its host has it).
//
// A node's files live in its host's directory (Host::Directory()):
// redis.conf, redis.log and data/ (the AOF), all written through the Host.
// The same redis-server (RedisServerLaunch, RedisPingProbe) runs the
// redis-sentinel backend's data nodes and the resource store.
//
// Thread-safe: Start/Stop come from the run thread, the capability calls from
// the nemesis thread, NewClient from the io thread. Each node guards its own
// process state (ServerProcess), never while it is polled for readiness
// (seconds), so a fault on one node never waits for another to come up.
#pragma once

#include <chrono>
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "backends/backend_registry.h"
#include "backends/lock_service.h"
#include "backends/redis_connection.h"
#include "backends/server_process.h"
#include "backends/server_set_service.h"
#include "cluster/host.h"

namespace locksmith {

// One node's name and how a client reaches it.
struct RedisNodeEndpoint {
  std::string name;
  RedisEndpoint endpoint;
};

// Builds one lock client over the service's nodes (table order; each
// endpoint already carries the slot's source address).
using RedisClientFactory = std::function<std::unique_ptr<LockClient>(
    boost::asio::any_io_executor executor, const std::vector<RedisNodeEndpoint>& nodes,
    const ClientSlot& slot)>;

// The user options are `persistence` (config key "redis_persistence") and
// the release retries (`redis_release_retries`, `redis_release_retry_delay_ms`:
// RedisLockClientOptions); the rest is filled in by the backend's maker (MakeRedisService, or another
// backend of independent Redis masters such as redlock) from the run.
struct RedisServiceOptions {
  std::string backend = "redis";  // the name the service reports
  int nodes = 1;
  std::string persistence = "none";  // none | everysec | always
  int release_retries = 0;           // a release in doubt sent again, at most
  int64_t release_retry_delay_ms = 100;
  std::string password;              // required: the server refuses other clients
  std::chrono::milliseconds client_timeout{500};
  std::chrono::milliseconds ready_timeout{20000};
  // The lock client (RedisClientNames(), backends/redis_clients.h) of the
  // primary, unless make_client is set.
  std::string client = "redis";
  bool fencing = false;  // --fencing: the acquire INCRs a fence counter
  // The lock client; unset: `client` of the primary.
  RedisClientFactory make_client;

  void Declare(OptionSet& set);
};

std::vector<std::string> PersistenceModes();

// The `redis` backend from its options (OptionsOf<RedisServiceOptions>): one
// master on n1, with a password of its own (NewServerPassword, base/random_secret.h).
Result<std::unique_ptr<LockService>> MakeRedisService(const ModuleOptions& options,
                                                      const BackendContext& context);

// Quotes a redis.conf / sentinel.conf argument (a password may hold any
// printable text).
std::string RedisConfQuoted(const std::string& s);

// The redis.conf of one node (pure; exposed for tests).
std::string RedisConfigText(const std::string& address, int port, const std::string& password,
                            const std::string& persistence, const std::string& data_dir);

// The table of `options.nodes` single Redis masters on the first hosts of
// `hosts` (pure; exposed for tests): n1 is the primary, every node is a
// redis-server on its host's ServicePort(6379).
NodeTable RedisNodeTable(const std::vector<Host*>& hosts, int nodes);

// The redis-server of `node` on `host`: it logs to redis.log.
ServerProcessOptions RedisServerOptions(ServiceNode node, Host* host,
                                        std::chrono::milliseconds ready_timeout);
// One start of a redis-server with `config` as its redis.conf (its data
// directory, data/, made first): `redis-server <dir>/redis.conf`.
ServerLaunch RedisServerLaunch(const Host& host, std::string config);
// The data directory RedisConfigText gets for a redis-server on `host`.
std::string RedisDataDir(const Host& host);
// Ready once `endpoint` answers an authenticated PING.
ReadinessProbe RedisPingProbe(const RedisEndpoint& endpoint);

class RedisService : public ServerSetService, public HasClocks {
 public:
  RedisService(Cluster& cluster, RedisServiceOptions options);

  nlohmann::json Settings() const override;
  std::string ClientPassword() const override { return options_.password; }
  Status Start() override;
  // A client of the node with the primary role, or options.make_client's.
  std::unique_ptr<LockClient> NewClient(boost::asio::any_io_executor executor,
                                        const ClientSlot& slot) override;

  Host* NodeHost(const std::string& node) override;
  // TIME on the node, within the client timeout.
  Result<int64_t> WallClockNs(const std::string& node) override;

 private:
  Status Relaunch(size_t index) override;
  RedisEndpoint EndpointOf(const ServiceNode& node) const;
  // One start of the node's redis-server: its redis.conf, then the server
  // (ready once it answers PING: RedisPingProbe).
  ServerLaunch LaunchOf(const ServerProcess& node) const;

  const RedisServiceOptions options_;
};

}  // namespace locksmith
