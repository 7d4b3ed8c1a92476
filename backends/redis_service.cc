#include "backends/redis_service.h"

#include <sstream>
#include <thread>

#include "backends/redis_admin.h"
#include "backends/redis_clients.h"
#include "backends/redis_lock_client.h"
#include "backends/redis_lock_token.h"
#include "backends/redis_node_process.h"
#include "backends/server_signals.h"

namespace locksmith {
namespace {

constexpr char kConfigFile[] = "redis.conf";
constexpr char kLogFile[] = "redis.log";
constexpr char kDataDir[] = "data";
// One readiness probe; a refused connection answers at once.
constexpr std::chrono::milliseconds kProbeTimeout{300};
constexpr std::chrono::milliseconds kProbeInterval{20};

}  // namespace

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
  // Independent masters (no replication): every node leads its own data.
  NodeTable table;
  for (int i = 0; i < nodes && i < static_cast<int>(hosts.size()); ++i) {
    Host* host = hosts[i];
    table.push_back({host->Name(), NodeRole::kPrimary, host->Name(), "redis-server",
                     host->Address(), host->ServicePort(6379)});
  }
  return table;
}

std::vector<std::string> PersistenceModes() { return {"none", "everysec", "always"}; }

void RedisServiceOptions::Declare(OptionSet& set) {
  set.Choice("redis_persistence", "--redis-persistence", &persistence, PersistenceModes(),
             "AOF fsync policy: what a SIGKILLed node remembers when started again");
}

Result<std::unique_ptr<LockService>> MakeRedisService(const ModuleOptions& options,
                                                      const BackendContext& context) {
  RedisServiceOptions r = OptionsAs<RedisServiceOptions>(options);
  r.nodes = 1;
  r.password = "ls-" + LockTokenGenerator(context.seed).Next();
  r.client_timeout = context.client_timeout;
  if (!context.client.empty()) r.client = context.client;
  r.fencing = context.fencing;
  return std::unique_ptr<LockService>(new RedisService(context.cluster, r));
}

RedisService::RedisService(Cluster& cluster, RedisServiceOptions options)
    : options_(std::move(options)) {
  auto hosts = cluster.Hosts();
  table_ = RedisNodeTable(hosts, options_.nodes);
  for (const auto& info : table_) {
    Node node;
    node.info = info;
    node.host = cluster.FindHost(info.host);
    nodes_.push_back(std::move(node));
  }
}

nlohmann::json RedisService::Settings() const { return {{"persistence", options_.persistence}}; }

RedisEndpoint RedisService::EndpointOf(const ServiceNode& node) const {
  return {node.address, static_cast<uint16_t>(node.port), options_.password};
}

RedisService::Node* RedisService::FindNode(const std::string& name) {
  for (auto& n : nodes_) {
    if (n.info.name == name) return &n;
  }
  return nullptr;
}

Result<RedisService::Node*> RedisService::FindNodeOrError(const std::string& name) {
  Node* node = FindNode(name);
  if (node == nullptr) {
    return Error{"no redis node " + name + " (nodes: " + JoinNames(NodeNames(table_)) + ")"};
  }
  return node;
}

Result<int> RedisService::SpawnLocked(Node& node) {
  Host& host = *node.host;
  if (Status s = host.MakeDirectory(kDataDir); !s) return Error{node.info.name + ": " + s.error()};
  const std::string config = RedisConfigText(node.info.address, node.info.port, options_.password,
                                             options_.persistence, host.PathOf(kDataDir));
  if (Status s = host.WriteFile(kConfigFile, config); !s) {
    return Error{node.info.name + ": " + s.error()};
  }
  auto pid = host.Spawn(ProcessSpec{
      {"redis-server", host.PathOf(kConfigFile)}, {}, host.PathOf(kLogFile), host.Directory()});
  if (!pid) return Error{node.info.name + ": cannot start redis-server: " + pid.error()};
  return *pid;
}

Status RedisService::Launch(Node& node) {
  int pid = -1;
  {
    std::lock_guard lock(mu_);
    if (node.starting) return Error{node.info.name + " is already starting"};
    if (node.pid > 0 && node.host->Alive(node.pid)) {
      return Error{node.info.name + " is already running"};
    }
    auto spawned = SpawnLocked(node);
    if (!spawned) return Error{spawned.error()};
    pid = node.pid = *spawned;
    node.paused = false;
    node.starting = true;
  }
  Status ready = AwaitReady(node, pid);
  std::lock_guard lock(mu_);
  node.starting = false;
  return ready;
}

Status RedisService::AwaitReady(Node& node, int pid) {
  const RedisEndpoint endpoint = EndpointOf(node.info);
  const auto give_up = std::chrono::steady_clock::now() + options_.ready_timeout;
  Status last = Error{"not tried"};
  while (std::chrono::steady_clock::now() < give_up) {
    if (!node.host->Alive(pid)) {
      std::lock_guard lock(mu_);
      if (node.pid != pid) {
        return Error{node.info.name + ": redis-server was stopped while starting"};
      }
      node.pid = -1;
      return Error{node.info.name + ": redis-server exited at start: " +
                   LastLogLines(*node.host, kLogFile, 3)};
    }
    last = RedisPing(endpoint, kProbeTimeout);
    if (last) return OkStatus();
    std::this_thread::sleep_for(kProbeInterval);
  }
  return Error{node.info.name + ": redis-server did not answer within " +
               std::to_string(options_.ready_timeout.count()) + " ms: " + last.error()};
}

Status RedisService::Start() {
  if (nodes_.size() < static_cast<size_t>(options_.nodes)) {
    return Error{"the " + options_.backend + " backend needs " + std::to_string(options_.nodes) +
                 " hosts, the cluster has " + std::to_string(nodes_.size())};
  }
  for (const auto& node : nodes_) {
    if (node.info.port == 0) return Error{node.info.name + ": its host has no free port left"};
  }
  for (auto& node : nodes_) {
    if (Status s = Launch(node); !s) return s;
  }
  return OkStatus();
}

void RedisService::Stop() {
  std::lock_guard lock(mu_);
  for (auto& node : nodes_) {
    if (node.pid > 0) (void)node.host->Kill(node.pid);
    node.pid = -1;
    node.paused = false;
  }
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
  const auto primaries = NodesWithRole(table_, NodeRole::kPrimary);
  if (!primaries.empty()) {
    o.endpoint = EndpointOf(*FindServiceNode(table_, primaries.front()));
  }
  o.endpoint.source_address = slot.source_address;
  o.timeout = options_.client_timeout;
  o.connect_timeout = options_.client_timeout;
  o.fencing = options_.fencing;
  return WrapRedisClient(options_.client, executor,
                         MakeRedisMasterClient(options_.client, executor, std::move(o), slot.seed));
}

Status RedisService::KillNode(const std::string& name) {
  auto node = FindNodeOrError(name);
  if (!node) return Error{node.error()};
  std::lock_guard lock(mu_);
  Status s = KillServer(name, *(*node)->host, (*node)->pid, (*node)->paused);
  return s;
}

Status RedisService::StartNode(const std::string& name) {
  auto node = FindNodeOrError(name);
  if (!node) return Error{node.error()};
  return Launch(**node);
}

std::optional<NodeProcess> RedisService::ProcessOf(const std::string& name) {
  auto node = FindNodeOrError(name);
  if (!node) return std::nullopt;
  std::lock_guard lock(mu_);
  if ((*node)->pid <= 0) return std::nullopt;
  return NodeProcess{(*node)->host, (*node)->pid};
}

bool RedisService::IsUp(const std::string& name) {
  auto node = FindNodeOrError(name);
  if (!node) return false;
  std::lock_guard lock(mu_);
  return (*node)->pid > 0 && (*node)->host->Alive((*node)->pid);
}

Status RedisService::PauseNode(const std::string& name) {
  auto node = FindNodeOrError(name);
  if (!node) return Error{node.error()};
  std::lock_guard lock(mu_);
  return PauseServer(name, *(*node)->host, (*node)->pid, (*node)->paused);
}

Status RedisService::ResumeNode(const std::string& name) {
  auto node = FindNodeOrError(name);
  if (!node) return Error{node.error()};
  std::lock_guard lock(mu_);
  return ResumeServer(name, *(*node)->host, (*node)->pid, (*node)->paused);
}

Result<std::string> RedisService::Primary() {
  const auto primaries = NodesWithRole(table_, NodeRole::kPrimary);
  if (primaries.empty()) return Error{"the redis service has no node"};
  if (primaries.size() > 1) {
    return Error{std::to_string(primaries.size()) + " independent masters: none leads"};
  }
  return primaries.front();
}

Host* RedisService::NodeHost(const std::string& name) {
  Node* node = FindNode(name);
  return node == nullptr ? nullptr : node->host;
}

Result<int64_t> RedisService::WallClockNs(const std::string& name) {
  auto node = FindNodeOrError(name);
  if (!node) return Error{node.error()};
  auto time = RedisTimeNs(EndpointOf((*node)->info), options_.client_timeout);
  if (!time) return Error{name + ": " + time.error()};
  return *time;
}

}  // namespace locksmith
