#include "backends/redis_service.h"

#include <sstream>

#include "backends/redis_admin.h"
#include "backends/redis_clients.h"
#include "backends/redis_lock_client.h"

namespace locksmith {
namespace {

constexpr char kConfigFile[] = "redis.conf";
constexpr char kRedisLogFile[] = "redis.log";
constexpr char kRedisDataDir[] = "data";
// One readiness probe; a refused connection answers at once.
constexpr std::chrono::milliseconds kRedisProbeTimeout{300};
constexpr std::chrono::milliseconds kRedisProbeInterval{20};

}  // namespace

std::string RedisConfQuoted(const std::string& s) {
  std::string out = "\"";
  for (char c : s) {
    if (c == '"' || c == '\\') out.push_back('\\');
    out.push_back(c);
  }
  return out + "\"";
}

std::string RedisConfigText(const std::string& address, int port, const std::string& password,
                            const std::string& persistence, const std::string& data_dir) {
  std::ostringstream c;
  c << "# Written by locksmith for one test node.\n"
    << "bind " << address << "\n"
    << "port " << port << "\n"
    << "protected-mode yes\n"
    << "requirepass " << RedisConfQuoted(password) << "\n"
    << "daemonize no\n"
    << "supervised no\n"
    << "logfile \"\"\n"  // stdout: the supervisor appends it to the node's log
    << "dir " << RedisConfQuoted(data_dir) << "\n"
    << "dbfilename dump.rdb\n"
    << "save \"\"\n";  // no RDB snapshots: persistence is the AOF's alone
  if (persistence == "none") {
    c << "appendonly no\n";
  } else {
    c << "appendonly yes\n"
      << "appendfsync " << persistence << "\n";
  }
  return c.str();
}

NodeTable RedisNodeTable(const std::vector<Host*>& hosts, int nodes) {
  return PrimaryPerHost(hosts, nodes, "redis-server", 6379);
}

ServerProcessOptions RedisServerOptions(ServiceNode node, Host* host,
                                        std::chrono::milliseconds ready_timeout) {
  return {std::move(node), host, "redis-server", kRedisLogFile, ready_timeout};
}

ServerLaunch RedisServerLaunch(const Host& host, std::string config) {
  return {{kRedisDataDir},
          {{kConfigFile, std::move(config)}},
          {"redis-server", host.PathOf(kConfigFile)}};
}

std::string RedisDataDir(const Host& host) { return host.PathOf(kRedisDataDir); }

ReadinessProbe RedisPingProbe(const RedisEndpoint& endpoint) {
  return {[endpoint] { return RedisPing(endpoint, kRedisProbeTimeout); }, kRedisProbeInterval, "answer"};
}

std::vector<std::string> PersistenceModes() { return {"none", "everysec", "always"}; }

void RedisServiceOptions::Declare(OptionSet& set) {
  set.Choice("redis_persistence", "--redis-persistence", &persistence, PersistenceModes(),
             "AOF fsync policy: what a SIGKILLed node remembers when started again")
      .Integer("redis_release_retries", "--redis-release-retries", &release_retries, 0, 100,
               "times a release in doubt (no reply in time) is sent again; what a retry "
               "removes is the client's: redis-del-unlock's DEL, whatever lock is there")
      .Integer("redis_release_retry_delay_ms", "--redis-release-retry-delay",
               &release_retry_delay_ms, int64_t{0}, int64_t{60'000},
               "ms between a release in doubt and its retry");
}

Result<std::unique_ptr<LockService>> MakeRedisService(const ModuleOptions& options,
                                                      const BackendContext& context) {
  RedisServiceOptions r = OptionsAs<RedisServiceOptions>(options);
  r.nodes = 1;
  if (Status s = TakeRunSettings(r, context); !s) return Error{s.error()};
  return std::unique_ptr<LockService>(new RedisService(context.cluster, r));
}

RedisService::RedisService(Cluster& cluster, RedisServiceOptions options)
    : ServerSetService({options.backend, "redis node", "nodes", options.password}),
      options_(std::move(options)) {
  for (const auto& info : RedisNodeTable(cluster.Hosts(), options_.nodes)) {
    AddServer(RedisServerOptions(info, cluster.FindHost(info.host), options_.ready_timeout));
  }
}

nlohmann::json RedisService::Settings() const { return {{"persistence", options_.persistence}}; }

RedisEndpoint RedisService::EndpointOf(const ServiceNode& node) const {
  return {node.address, static_cast<uint16_t>(node.port), options_.password};
}

ServerLaunch RedisService::LaunchOf(const ServerProcess& node) const {
  const ServiceNode& info = node.info();
  return RedisServerLaunch(*node.host(),
                           RedisConfigText(info.address, info.port, options_.password,
                                           options_.persistence, RedisDataDir(*node.host())));
}

Status RedisService::Start() {
  return StartServers(
      {.backend = options_.backend,
       .hosts = options_.nodes,
       .launch_of = [this](size_t i) { return LaunchOf(*servers_.all()[i]); },
       .probe_of =
           [this](size_t i) { return RedisPingProbe(EndpointOf(servers_.all()[i]->info())); },
       .ready_timeout = options_.ready_timeout});
}

std::unique_ptr<LockClient> RedisService::NewClient(boost::asio::any_io_executor executor,
                                                    const ClientSlot& slot) {
  if (options_.make_client) {
    std::vector<RedisNodeEndpoint> nodes;
    for (const auto& node : table_) {
      nodes.push_back({node.name, EndpointOf(node)});
      nodes.back().endpoint.source_address = slot.source_address;
    }
    return options_.make_client(std::move(executor), nodes, slot);
  }
  RedisLockClientOptions o;
  // No primary only when the cluster had no host; Start() failed then, and a
  // client of the default endpoint fails its calls.
  const auto primaries = NodesWithRole(table_, kPrimaryRole);
  if (!primaries.empty()) {
    o.endpoint = EndpointOf(*FindServiceNode(table_, primaries.front()));
  }
  o.endpoint.source_address = slot.source_address;
  o.timeout = options_.client_timeout;
  o.connect_timeout = options_.client_timeout;
  o.fencing = options_.fencing;
  o.release_retries = options_.release_retries;
  o.release_retry_delay = std::chrono::milliseconds(options_.release_retry_delay_ms);
  return WrapRedisClient(options_.client, executor,
                         MakeRedisMasterClient(options_.client, executor, std::move(o), slot.seed));
}

Status RedisService::Relaunch(size_t index) {
  ServerProcess& node = *servers_.all()[index];
  return node.Launch(LaunchOf(node), RedisPingProbe(EndpointOf(node.info())));
}

Host* RedisService::NodeHost(const std::string& name) { return servers_.HostOf(name); }

Result<int64_t> RedisService::WallClockNs(const std::string& name) {
  auto node = servers_.FindOrError(name);
  if (!node) return Error{node.error()};
  auto time = RedisTimeNs(EndpointOf((*node)->info()), options_.client_timeout);
  if (!time) return Error{name + ": " + time.error()};
  return *time;
}

}  // namespace locksmith
