#include "backends/zookeeper_service.h"

#include <sstream>

#include "backends/zk_admin.h"
#include "backends/zk_lock_client.h"

namespace locksmith {
namespace {

constexpr char kZkConfigFile[] = "zoo.cfg";
constexpr char kZkLogFile[] = "zookeeper.log";
constexpr char kZkDataDir[] = "zk-data";
constexpr char kJava[] = "/usr/bin/java";
// zookeeper.jar's manifest names the jars it needs (all in /usr/share/java);
// slf4j-simple gives the server a log on stderr (Debian's package has no
// slf4j binding on its classpath, so the server would log nothing).
constexpr char kClassPath[] = "/usr/share/java/zookeeper.jar:/usr/share/java/slf4j-simple.jar";
constexpr char kMainClass[] = "org.apache.zookeeper.server.quorum.QuorumPeerMain";
constexpr std::chrono::milliseconds kZkProbeTimeout{300};
constexpr std::chrono::milliseconds kZkProbeInterval{50};

bool IsLeading(const std::string& mode) { return mode == "leader" || mode == "standalone"; }

}  // namespace

void ZookeeperServiceOptions::Declare(OptionSet& set) {
  set.Integer("zk_nodes", "--zk-nodes", &nodes, 1, 9,
              "ZooKeeper ensemble size (odd): one peer per host")
      .Integer("zk_tick_ms", "--zk-tick", &tick_ms, int64_t{10}, int64_t{10'000},
               "ZooKeeper tickTime, ms (heartbeats; init and sync limits are 10 and 5 ticks)")
      .Integer("session_timeout_ms", "--session-timeout", &session_timeout_ms, int64_t{100},
               int64_t{600'000},
               "ZooKeeper session timeout the lock clients ask for, ms (the server clamps it "
               "to --zk-min-session .. --zk-max-session)")
      .Integer("zk_min_session_ms", "--zk-min-session", &min_session_ms, int64_t{10},
               int64_t{600'000}, "ZooKeeper minSessionTimeout, ms")
      .Integer("zk_max_session_ms", "--zk-max-session", &max_session_ms, int64_t{10},
               int64_t{3'600'000}, "ZooKeeper maxSessionTimeout, ms")
      .Integer("zk_heap_mb", "--zk-heap", &heap_mb, int64_t{32}, int64_t{65'536},
               "max heap of each ZooKeeper peer's JVM, MiB")
      .Require([this]() -> Status {
        if (nodes % 2 == 0) {
          return Error{"--zk-nodes " + std::to_string(nodes) +
                       ": an ensemble needs an odd number of peers (a majority of an even "
                       "ensemble tolerates no more failures than one peer fewer)"};
        }
        if (min_session_ms > max_session_ms) {
          return Error{"--zk-min-session must not exceed --zk-max-session"};
        }
        return OkStatus();
      });
}

int ZookeeperHosts(const ModuleOptions& options) {
  return OptionsAs<ZookeeperServiceOptions>(options).nodes;
}

std::string ZookeeperConfigText(const ZookeeperServiceOptions& options,
                                 const std::vector<ZkPeerAddress>& peers, int self,
                                 const std::string& data_dir) {
  const ZkPeerAddress& me = peers.at(static_cast<size_t>(self - 1));
  std::ostringstream c;
  c << "# Written by locksmith for one test peer.\n"
    << "tickTime=" << options.tick_ms << "\n"
    << "initLimit=10\n"
    << "syncLimit=5\n"
    << "dataDir=" << data_dir << "\n"
    << "clientPort=" << me.client_port << "\n"
    << "clientPortAddress=" << me.address << "\n"
    << "minSessionTimeout=" << options.min_session_ms << "\n"
    << "maxSessionTimeout=" << options.max_session_ms << "\n"
    << "maxClientCnxns=0\n"
    << "admin.enableServer=false\n"
    // Test hosts only: the controller's readiness, leader and clock probes.
    << "4lw.commands.whitelist=srvr,ruok,mntr,stat,cons\n"
    << "autopurge.purgeInterval=0\n";
  for (const auto& p : peers) {
    c << "server." << p.id << "=" << p.address << ":" << p.quorum_port << ":" << p.election_port
      << "\n";
  }
  return c.str();
}

std::vector<std::string> ZookeeperArgv(const ZookeeperServiceOptions& options,
                                       const std::string& config_path,
                                       const std::string& log_dir) {
  return {kJava,
          "-Xmx" + std::to_string(options.heap_mb) + "m",
          "-Xms32m",
          "-Xss512k",
          // Two cores run several ensembles and the controller: one GC
          // thread and the quick JIT tier (a JVM's start is mostly JIT).
          "-XX:+UseSerialGC",
          "-XX:TieredStopAtLevel=1",
          "-XX:CICompilerCount=1",
          "-Djava.net.preferIPv4Stack=true",
          "-Dzookeeper.log.dir=" + log_dir,
          "-Dzookeeper.jmx.log4j.disable=true",
          // ZooKeeper writes its snapshot at start without an fsync, so a
          // power loss soon after (kill --power-loss) leaves it empty beside
          // a synced log, and the peer refuses to start ("No snapshot found,
          // but there are log entries"). Its escape hatch (ZOOKEEPER-3056):
          // replay the log from the beginning, which is all of it here (no
          // later snapshot, no purge). Nothing else leaves a log without a
          // snapshot.
          "-Dzookeeper.snapshot.trust.empty=true",
          "-Dorg.slf4j.simpleLogger.showDateTime=true",
          "-Dorg.slf4j.simpleLogger.dateTimeFormat=HH:mm:ss.SSS",
          "-cp",
          kClassPath,
          kMainClass,
          config_path};
}

std::string ZkConnectString(const std::vector<ZkPeerAddress>& peers) {
  std::string out;
  for (const auto& p : peers) {
    out += (out.empty() ? "" : ",") + p.address + ":" + std::to_string(p.client_port);
  }
  return out;
}

Result<std::unique_ptr<LockService>> MakeZookeeperService(const ModuleOptions& options,
                                                          const BackendContext& context) {
  ZookeeperServiceOptions z = OptionsAs<ZookeeperServiceOptions>(options);
  // Validated with the run's config (odd ensemble, session bounds).
  if (Status s = options.set().Validate(); !s) return Error{s.error()};
  z.client_timeout = context.client_timeout;
  return std::unique_ptr<LockService>(
      new ZookeeperService(context.cluster, z, context.client.empty() ? ZkRecipeNames().front()
                                                                      : context.client));
}

ZookeeperService::ZookeeperService(Cluster& cluster, ZookeeperServiceOptions options,
                                   std::string client)
    : LeaderElectedService({"zookeeper", "zookeeper peer", "peers", ""}),
      options_(std::move(options)),
      client_(std::move(client)) {
  for (Host* host : FirstHosts(cluster.Hosts(), options_.nodes)) {
    const int id = static_cast<int>(peers_.size()) + 1;  // myid: 1..N in start order
    ZkPeerAddress peer{id, host->Address(), host->ServicePort(2181), host->ServicePort(2888),
                       host->ServicePort(3888)};
    ServiceNode info{host->Name(), kZkPeerRole, host->Name(), "java",
                     host->Address(), peer.client_port};
    peers_.push_back(peer);
    AddServer({info, host, "the zookeeper peer", kZkLogFile, options_.ready_timeout});
  }
}

nlohmann::json ZookeeperService::Settings() const {
  return {{"client", client_},
          {"tick_ms", options_.tick_ms},
          {"session_timeout_ms", options_.session_timeout_ms},
          {"min_session_ms", options_.min_session_ms},
          {"max_session_ms", options_.max_session_ms},
          {"heap_mb", options_.heap_mb},
          // How long Start() took until every peer served and one led.
          {"ready_ms", ready_after_ms_.load()}};
}

ServerLaunch ZookeeperService::LaunchOf(size_t index) const {
  const Host& host = *servers_.all().at(index)->host();
  const ZkPeerAddress& peer = peers_.at(index);
  return {{kZkDataDir},
          {{std::string(kZkDataDir) + "/myid", std::to_string(peer.id) + "\n"},
           {kZkConfigFile, ZookeeperConfigText(options_, peers_, peer.id, host.PathOf(kZkDataDir))}},
          ZookeeperArgv(options_, host.PathOf(kZkConfigFile), host.Directory())};
}

ReadinessProbe ZookeeperService::ServingProbe(const ZkPeerAddress& peer, bool in_quorum) {
  auto ask = [peer, in_quorum]() -> Status {
    auto srvr = ZkFourLetterWord(peer.address, peer.client_port, "srvr", kZkProbeTimeout);
    if (!srvr) return Error{srvr.error()};
    auto mode = ParseZkMode(*srvr);
    if (mode || !in_quorum) return OkStatus();
    return Error{mode.error()};
  };
  return {ask, kZkProbeInterval, "serve"};
}

Status ZookeeperService::Start() {
  return StartServers({.backend = "zookeeper",
                       .hosts = options_.nodes,
                       .more_ports =
                           [this](size_t i) {
                             const ZkPeerAddress& peer = peers_[i];
                             return std::vector<int>{peer.quorum_port, peer.election_port};
                           },
                       .launch_of = [this](size_t i) { return LaunchOf(i); },
                       .probe_of =
                           [this](size_t i) { return ServingProbe(peers_[i], /*in_quorum=*/true); },
                       .leader = [this] { return LeaderNow(); },
                       .leader_poll = kZkProbeInterval,
                       .group = "the zookeeper ensemble",
                       .ready_timeout = options_.ready_timeout});
}

std::unique_ptr<LockClient> ZookeeperService::NewClient(boost::asio::any_io_executor executor,
                                                        const ClientSlot& slot) {
  ZkLockClientOptions o;
  for (const auto& p : peers_) o.peers.push_back({p.address, p.client_port});
  o.session_timeout = std::chrono::milliseconds(options_.session_timeout_ms);
  o.timeout = options_.client_timeout;
  o.source_address = slot.source_address;
  auto client = MakeZkLockClient(client_, std::move(executor), std::move(o), slot.seed);
  return client ? std::move(*client) : nullptr;
}

Status ZookeeperService::Relaunch(size_t index) {
  return servers_.all()[index]->Launch(LaunchOf(index),
                                       ServingProbe(peers_[index], /*in_quorum=*/false));
}

std::vector<std::string> ZookeeperService::Modes() const {
  std::vector<std::string> modes;
  for (size_t i = 0; i < servers_.size(); ++i) {
    std::string mode;
    if (servers_.all()[i]->Responsive()) {
      auto srvr = ZkFourLetterWord(peers_[i].address, peers_[i].client_port, "srvr",
                                   kZkProbeTimeout);
      if (srvr) {
        auto parsed = ParseZkMode(*srvr);
        if (parsed) mode = *parsed;
      }
    }
    modes.push_back(mode);
  }
  return modes;
}

Result<std::string> ZookeeperService::AskLeader() const {
  const auto modes = Modes();
  std::string leader;
  std::string seen;
  for (size_t i = 0; i < table_.size(); ++i) {
    seen += (seen.empty() ? "" : ", ") + table_[i].name + ": " +
            (modes[i].empty() ? "no answer" : modes[i]);
    if (leader.empty() && IsLeading(modes[i])) leader = table_[i].name;
  }
  if (leader.empty()) return Error{"no zookeeper peer leads now (" + seen + ")"};
  return leader;
}

std::vector<NodeRoleSpec> ZookeeperService::Roles() const {
  return {{kZkPeerRole}, {kPrimaryRole}};
}

Host* ZookeeperService::NodeHost(const std::string& name) { return servers_.HostOf(name); }

Result<int64_t> ZookeeperService::WallClockNs(const std::string& name) {
  auto node = servers_.FindOrError(name);
  if (!node) return Error{node.error()};
  auto clock = ZkWallClockNs((*node)->info().address, (*node)->info().port,
                             std::max(options_.client_timeout, std::chrono::milliseconds(1000)));
  if (!clock) return Error{name + ": " + clock.error()};
  return *clock;
}

}  // namespace locksmith
