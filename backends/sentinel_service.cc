#include "backends/sentinel_service.h"

#include <algorithm>
#include <map>
#include <sstream>
#include <thread>

#include "backends/redis_admin.h"
#include "backends/redis_clients.h"
#include "backends/redis_lock_client.h"
#include "backends/sentinel_lock_client.h"

namespace locksmith {
namespace {

constexpr char kSentinelConfigFile[] = "sentinel.conf";
constexpr char kSentinelLogFile[] = "sentinel.log";
// One question to a sentinel or a data node during readiness or Primary():
// short, so a paused sentinel costs little.
constexpr std::chrono::milliseconds kAskTimeout{300};
constexpr std::chrono::milliseconds kPollInterval{100};
// How long WatchEvents waits for every sentinel to confirm its subscription.
constexpr std::chrono::milliseconds kEventsSubscribeTimeout{5000};

// "field" of a flat [field, value, ...] reply (SENTINEL master); "" if absent.
std::string Field(const RedisReply& reply, const std::string& field) {
  for (size_t i = 0; i + 1 < reply.elements.size(); i += 2) {
    if (reply.elements[i].str == field) return reply.elements[i + 1].str;
  }
  return "";
}

// Replicas a master's INFO replication shows online.
int OnlineReplicas(const std::string& info) {
  int online = 0;
  std::istringstream in(info);
  for (std::string line; std::getline(in, line);) {
    if (line.rfind("slave", 0) == 0 && line.find("state=online") != std::string::npos) ++online;
  }
  return online;
}

}  // namespace

void SentinelServiceOptions::Declare(OptionSet& set) {
  set.Integer("replicas", "--replicas", &replicas, 0, 8, "replicas of the master")
      .Integer("sentinels", "--sentinels", &sentinels, 1, 9, "sentinels (quorum 2)")
      .Integer("sentinel_down_after_ms", "--sentinel-down-after", &down_after_ms, int64_t{100},
               int64_t{600'000}, "down-after-milliseconds of the sentinels")
      .Integer("sentinel_failover_timeout_ms", "--sentinel-failover-timeout", &failover_timeout_ms,
               int64_t{500}, int64_t{3'600'000}, "failover-timeout, ms")
      .Integer("redis_wait", "--redis-wait", &wait_replicas, 0, 8,
               "WAIT for N replicas after acquiring; fewer: released, unknown");
  redis.Declare(set);
}

int SentinelHostCount(const SentinelServiceOptions& options) {
  return std::max(options.replicas + 1, options.sentinels);
}

int SentinelHosts(const ModuleOptions& options) {
  return SentinelHostCount(OptionsAs<SentinelServiceOptions>(options));
}

Result<std::unique_ptr<LockService>> MakeSentinelService(const ModuleOptions& options,
                                                         const BackendContext& context) {
  SentinelServiceOptions s = OptionsAs<SentinelServiceOptions>(options);
  if (s.sentinels < 2) return Error{"--sentinels must be at least 2 (the quorum is 2)"};
  if (Status taken = TakeRunSettings(s.redis, context); !taken) return Error{taken.error()};
  return std::unique_ptr<LockService>(new SentinelService(context.cluster, s));
}

NodeTable SentinelNodeTable(const std::vector<Host*>& hosts, const SentinelServiceOptions& o) {
  NodeTable table;
  const int n = static_cast<int>(hosts.size());
  for (int i = 0; i < o.replicas + 1 && i < n; ++i) {
    Host* h = hosts[i];
    table.push_back({"n" + std::to_string(i + 1), i == 0 ? kPrimaryRole : kReplicaRole,
                     h->Name(), "redis-server", h->Address(), h->ServicePort(6379)});
  }
  for (int i = 0; i < o.sentinels && i < n; ++i) {
    Host* h = hosts[i];
    table.push_back({"s" + std::to_string(i + 1), kSentinelRole, h->Name(), "redis-sentinel",
                     h->Address(), h->ServicePort(26379), /*holds_data=*/false});
  }
  return table;
}

std::string ReplicationConfigText(const std::string& password, const std::string& master_address,
                                  int master_port) {
  std::ostringstream c;
  c << "masterauth " << RedisConfQuoted(password) << "\n"
    << "repl-diskless-sync yes\n"
    << "repl-diskless-sync-delay 0\n";
  if (!master_address.empty()) c << "replicaof " << master_address << " " << master_port << "\n";
  return c.str();
}

std::string SentinelConfigText(const ServiceNode& sentinel, const ServiceNode& master,
                               const SentinelServiceOptions& o, const std::string& dir) {
  const std::string pw = RedisConfQuoted(o.redis.password);
  const std::string m = kSentinelMasterName;
  std::ostringstream c;
  c << "# Written by locksmith; the sentinel rewrites it as it learns.\n"
    << "bind " << sentinel.address << "\n"
    << "port " << sentinel.port << "\n"
    << "protected-mode yes\n"
    << "daemonize no\n"
    << "logfile \"\"\n"
    << "dir " << RedisConfQuoted(dir) << "\n"
    << "requirepass " << pw << "\n"
    << "sentinel sentinel-pass " << pw << "\n"
    << "sentinel resolve-hostnames no\n"
    << "sentinel monitor " << m << " " << master.address << " " << master.port << " 2\n"
    << "sentinel auth-pass " << m << " " << pw << "\n"
    << "sentinel down-after-milliseconds " << m << " " << o.down_after_ms << "\n"
    << "sentinel failover-timeout " << m << " " << o.failover_timeout_ms << "\n"
    << "sentinel parallel-syncs " << m << " 1\n";
  return c.str();
}

SentinelService::SentinelService(Cluster& cluster, SentinelServiceOptions options)
    : ServerSetService({"redis-sentinel", "redis-sentinel node", "nodes", options.redis.password}),
      options_(std::move(options)) {
  for (const auto& info : SentinelNodeTable(cluster.Hosts(), options_)) {
    Host* host = cluster.FindHost(info.host);
    if (info.role == kSentinelRole) {
      AddServer({info, host, "redis-sentinel", kSentinelLogFile, options_.redis.ready_timeout});
    } else {
      AddServer(RedisServerOptions(info, host, options_.redis.ready_timeout));
    }
  }
  master_ = "n1";
}

nlohmann::json SentinelService::Settings() const {
  return {{"persistence", options_.redis.persistence},
          {"master_name", kSentinelMasterName},
          {"replicas", options_.replicas},
          {"sentinels", options_.sentinels},
          {"quorum", 2},
          {"down_after_ms", options_.down_after_ms},
          {"failover_timeout_ms", options_.failover_timeout_ms},
          {"wait_replicas", options_.wait_replicas}};
}

bool SentinelService::IsSentinel(const ServerProcess& node) const {
  return node.info().role == kSentinelRole;
}

RedisEndpoint SentinelService::EndpointOf(const ServerProcess& node) const {
  return {node.info().address, static_cast<uint16_t>(node.info().port), options_.redis.password};
}

Status SentinelService::LaunchData(ServerProcess& node, const ServiceNode* master) {
  const ServiceNode& info = node.info();
  std::string config = RedisConfigText(info.address, info.port, options_.redis.password,
                                       options_.redis.persistence, RedisDataDir(*node.host()));
  const bool replica = master != nullptr && master->name != info.name;
  config += ReplicationConfigText(options_.redis.password, replica ? master->address : "",
                                  replica ? master->port : 0);
  return node.Launch(RedisServerLaunch(*node.host(), std::move(config)),
                     RedisPingProbe(EndpointOf(node)));
}

Status SentinelService::LaunchSentinel(ServerProcess& node,
                                       const std::optional<std::string>& config) {
  ServerLaunch launch;
  if (config) launch.files.emplace_back(kSentinelConfigFile, *config);
  launch.argv = {"redis-sentinel", node.host()->PathOf(kSentinelConfigFile)};
  return node.Launch(launch, RedisPingProbe(EndpointOf(node)));
}

std::vector<NodeRoleSpec> SentinelService::Roles() const {
  return {{kPrimaryRole}, {kReplicaRole}, {kSentinelRole}};
}

NodeTable SentinelService::Table() const {
  bool started;
  {
    std::lock_guard lock(mu_);
    started = started_;
  }
  if (started) (void)AskSentinels();  // refreshes master_ when they answer
  std::string master;
  {
    std::lock_guard lock(mu_);
    master = master_;
  }
  NodeTable table = table_;
  for (auto& node : table) {
    if (node.role == kSentinelRole) continue;
    node.role = node.name == master ? kPrimaryRole : kReplicaRole;
  }
  return table;
}

Status SentinelService::Start() {
  const auto servers = static_cast<size_t>(options_.replicas + 1 + options_.sentinels);
  if (Status s = NeedHosts(Backend(), SentinelHostCount(options_), servers); !s) return s;
  if (Status s = NeedPorts(); !s) return s;
  const ServiceNode& master = table_.front();
  for (const auto& node : servers_.all()) {
    if (IsSentinel(*node)) continue;
    if (Status s = LaunchData(*node, &master); !s) return s;
  }
  // Replicas first, so each sentinel finds them in the master's first INFO.
  if (Status s = AwaitReplicas(); !s) return s;
  for (const auto& node : servers_.all()) {
    if (!IsSentinel(*node)) continue;
    const std::string config =
        SentinelConfigText(node->info(), master, options_, node->host()->Directory());
    if (Status s = LaunchSentinel(*node, config); !s) return s;
  }
  if (Status s = AwaitTopology(); !s) return s;
  std::lock_guard lock(mu_);
  started_ = true;
  return OkStatus();
}

Status SentinelService::AwaitReplicas() {
  const RedisEndpoint master_endpoint = EndpointOf(*servers_.all().front());
  auto online = [&]() -> Status {
    auto info = RedisCommandOnce(master_endpoint, {"INFO", "replication"}, kAskTimeout);
    if (info && OnlineReplicas(info->str) >= options_.replicas) return OkStatus();
    return Error{"not yet"};
  };
  const auto give_up = std::chrono::steady_clock::now() + options_.redis.ready_timeout;
  if (PollUntil(online, give_up, kPollInterval)) return OkStatus();
  return Error{"the master n1 did not see its " + std::to_string(options_.replicas) +
               " replicas online within " + std::to_string(options_.redis.ready_timeout.count()) +
               " ms"};
}

Status SentinelService::TopologyKnown() const {
  for (const auto& node : servers_.all()) {
    if (!IsSentinel(*node)) continue;
    auto r = RedisCommandOnce(EndpointOf(*node), {"SENTINEL", "MASTER", kSentinelMasterName},
                              kAskTimeout);
    if (!r || r->type != RedisReply::Type::kArray) {
      return Error{node->info().name + " does not know the master yet"};
    }
    const std::string replicas = Field(*r, "num-slaves");
    const std::string others = Field(*r, "num-other-sentinels");
    if (replicas != std::to_string(options_.replicas) ||
        others != std::to_string(options_.sentinels - 1)) {
      return Error{node->info().name + " knows " + replicas + " replicas and " + others +
                   " other sentinels"};
    }
  }
  return OkStatus();
}

Status SentinelService::AwaitTopology() {
  const auto give_up = std::chrono::steady_clock::now() + options_.redis.ready_timeout;
  Status known = PollUntil([this] { return TopologyKnown(); }, give_up, kPollInterval);
  if (known) return OkStatus();
  return Error{"the sentinels did not learn the topology within " +
               std::to_string(options_.redis.ready_timeout.count()) + " ms: " + known.error()};
}

void SentinelService::Stop() {
  StopEvents();
  // Sentinels first (started last), so none starts a failover while the
  // data nodes go.
  servers_.StopAll();
  std::lock_guard lock(mu_);
  started_ = false;
}

std::vector<RedisEndpoint> SentinelService::SentinelEndpoints() const {
  std::vector<RedisEndpoint> out;
  for (const auto& node : servers_.all()) {
    if (IsSentinel(*node)) out.push_back(EndpointOf(*node));
  }
  return out;
}

std::unique_ptr<LockClient> SentinelService::NewClient(boost::asio::any_io_executor executor,
                                                       const ClientSlot& slot) {
  SentinelLockClientOptions o;
  // Every connection of the client, to the sentinels and to the master,
  // leaves from its own address: a partition cuts it off as a whole.
  o.sentinels = SentinelEndpoints();
  for (auto& sentinel : o.sentinels) sentinel.source_address = slot.source_address;
  const std::string source = slot.source_address;
  o.master_name = kSentinelMasterName;
  o.password = options_.redis.password;
  o.timeout = options_.redis.client_timeout;
  const auto timeout = options_.redis.client_timeout;
  const int wait = options_.wait_replicas;
  const bool fencing = options_.redis.fencing;
  const std::string client = options_.redis.client;
  const int retries = options_.redis.release_retries;
  const auto retry_delay = std::chrono::milliseconds(options_.redis.release_retry_delay_ms);
  o.make_client = [timeout, wait, source, fencing, client, retries, retry_delay](
                      boost::asio::any_io_executor ex, const RedisEndpoint& master,
                      uint64_t client_seed) -> std::unique_ptr<LockClient> {
    RedisLockClientOptions r;
    r.endpoint = master;
    r.endpoint.source_address = source;
    r.timeout = timeout;
    r.connect_timeout = timeout;
    r.wait_replicas = wait;
    r.wait_timeout = timeout / 2;
    r.fencing = fencing;
    r.release_retries = retries;
    r.release_retry_delay = retry_delay;
    return MakeRedisMasterClient(client, std::move(ex), std::move(r), client_seed);
  };
  return WrapRedisClient(client, executor,
                         std::make_unique<SentinelLockClient>(executor, std::move(o), slot.seed));
}

Status SentinelService::Relaunch(size_t index) {
  ServerProcess* node = servers_.all()[index].get();
  if (IsSentinel(*node)) return LaunchSentinel(*node, std::nullopt);  // its rewritten config
  // A data node comes back as a replica of whoever leads now; when nobody
  // does (mid failover) it comes back as it was, and the sentinels convert it.
  auto master = AskSentinels();
  const ServiceNode* leader = master ? FindServiceNode(table_, *master) : nullptr;
  return LaunchData(*node, leader);
}

Result<std::string> SentinelService::AskSentinels() const {
  std::map<std::string, int> votes;
  std::string last_error = "no sentinel";
  for (const auto& node : servers_.all()) {
    if (!IsSentinel(*node) || !node->Responsive()) continue;
    auto r = RedisCommandOnce(EndpointOf(*node),
                              {"SENTINEL", "GET-MASTER-ADDR-BY-NAME", kSentinelMasterName},
                              kAskTimeout);
    if (!r) {
      last_error = node->info().name + ": " + r.error();
      continue;
    }
    if (r->type != RedisReply::Type::kArray || r->elements.size() != 2) {
      last_error = node->info().name + " answered " + r->Describe();
      continue;
    }
    for (const auto& data : table_) {
      if (data.role != kSentinelRole && data.address == r->elements[0].str &&
          std::to_string(data.port) == r->elements[1].str) {
        ++votes[data.name];
      }
    }
  }
  if (votes.empty()) return Error{"the sentinels name no master: " + last_error};
  auto best = std::max_element(votes.begin(), votes.end(),
                               [](const auto& a, const auto& b) { return a.second < b.second; });
  std::lock_guard lock(mu_);
  master_ = best->first;
  return best->first;
}

std::string SentinelService::NodeAt(const std::string& address, const std::string& port) const {
  for (const auto& data : table_) {
    if (data.role != kSentinelRole && data.address == address &&
        std::to_string(data.port) == port) {
      return data.name;
    }
  }
  return "";
}

nlohmann::json SentinelService::EventValue(const std::string& sentinel, const std::string& channel,
                                           const std::string& payload) const {
  nlohmann::json value{{"sentinel", sentinel}, {"message", payload}};
  std::istringstream in(payload);
  std::vector<std::string> words;
  for (std::string w; in >> w;) words.push_back(w);
  if (channel == "+switch-master" && words.size() >= 5) {
    value["from"] = NodeAt(words[1], words[2]);
    value["to"] = NodeAt(words[3], words[4]);
  } else if (words.size() >= 4 && (words[0] == "master" || words[0] == "slave")) {
    // "<type> <name> <ip> <port> [@ <master> <ip> <port>]"
    const std::string node = NodeAt(words[2], words[3]);
    if (!node.empty()) value["node"] = node;
  }
  return value;
}

Status SentinelService::WatchEvents(std::function<void(ServiceEvent)> sink) {
  StopEvents();
  std::vector<SentinelEventWatcher::Sentinel> sentinels;
  for (const auto& node : servers_.all()) {
    if (IsSentinel(*node)) sentinels.push_back({node->name(), EndpointOf(*node)});
  }
  const size_t sentinels_count = sentinels.size();
  watcher_ = std::make_unique<SentinelEventWatcher>(
      std::move(sentinels), [this, sink = std::move(sink)](const std::string& sentinel,
                                                           const std::string& channel,
                                                           const std::string& payload) {
        sink(ServiceEvent{channel, EventValue(sentinel, channel, payload)});
      });
  watcher_->Start();
  // Every sentinel is up at the start: a few round trips each.
  const auto deadline = std::chrono::steady_clock::now() + kEventsSubscribeTimeout;
  while (!EventsSubscribed()) {
    if (std::chrono::steady_clock::now() >= deadline) {
      return Error{"subscribed to " + std::to_string(watcher_->Subscribed()) + " of " +
                   std::to_string(sentinels_count) + " sentinels within " +
                   std::to_string(kEventsSubscribeTimeout.count()) +
                   " ms; their events before they answer are not recorded"};
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(5));
  }
  return OkStatus();
}

bool SentinelService::EventsSubscribed() const {
  int sentinels = 0;
  for (const auto& node : servers_.all()) sentinels += IsSentinel(*node) ? 1 : 0;
  return watcher_ != nullptr && watcher_->Subscribed() == sentinels;
}

void SentinelService::StopEvents() {
  if (watcher_) watcher_->Stop();
  watcher_.reset();
}

Result<std::string> SentinelService::Primary() { return AskSentinels(); }

Host* SentinelService::NodeHost(const std::string& name) { return servers_.HostOf(name); }

Result<int64_t> SentinelService::WallClockNs(const std::string& name) {
  auto node = servers_.FindOrError(name);
  if (!node) return Error{node.error()};
  // A sentinel runs under its host's clock shim as the data node beside it
  // does, but answers no TIME: it tells its clock in INFO.
  auto time = IsSentinel(**node)
                  ? RedisInfoTimeNs(EndpointOf(**node), options_.redis.client_timeout)
                  : RedisTimeNs(EndpointOf(**node), options_.redis.client_timeout);
  if (!time) return Error{name + ": " + time.error()};
  return *time;
}

}  // namespace locksmith
