#include "backends/etcd_service.h"

#include "backends/etcd_lock_client.h"

namespace locksmith {
namespace {

constexpr char kEtcdLogFile[] = "etcd.log";
constexpr char kEtcdDataDir[] = "etcd-data";
constexpr char kEtcd[] = "/usr/bin/etcd";
constexpr char kStatusPath[] = "/v3/maintenance/status";
// The write-ahead log files etcd preallocates at 64 MB each: the first
// segment and the next one it keeps ready. A short run writes far less, so
// the log of any run shorter than many minutes is these.
constexpr const char* kPreallocatedWal[] = {
    "etcd-data/member/wal/0000000000000000-0000000000000000.wal",
    "etcd-data/member/wal/0.tmp", "etcd-data/member/wal/1.tmp"};
constexpr std::chrono::milliseconds kEtcdProbeTimeout{300};
constexpr std::chrono::milliseconds kEtcdProbeInterval{50};

std::string Url(const std::string& address, int port) {
  return "http://" + address + ":" + std::to_string(port);
}

}  // namespace

void EtcdServiceOptions::Declare(OptionSet& set) {
  set.Integer("etcd_nodes", "--etcd-nodes", &nodes, 1, 9,
              "etcd cluster size (odd): one member per host")
      .Integer("etcd_heartbeat_ms", "--etcd-heartbeat", &heartbeat_ms, int64_t{10},
               int64_t{10'000}, "etcd --heartbeat-interval, ms")
      .Integer("etcd_election_ms", "--etcd-election", &election_ms, int64_t{50},
               int64_t{50'000},
               "etcd --election-timeout, ms (the smallest lease TTL etcd grants is 1.5 election "
               "timeouts, rounded up to whole seconds)")
      .Require([this]() -> Status {
        if (nodes % 2 == 0) {
          return Error{"--etcd-nodes " + std::to_string(nodes) +
                       ": a cluster needs an odd number of members (a majority of an even "
                       "cluster tolerates no more failures than one member fewer)"};
        }
        if (election_ms < 5 * heartbeat_ms) {
          return Error{"--etcd-election must be at least 5 times --etcd-heartbeat"};
        }
        return OkStatus();
      });
}

int EtcdHosts(const ModuleOptions& options) { return OptionsAs<EtcdServiceOptions>(options).nodes; }

std::string EtcdInitialCluster(const std::vector<EtcdMemberAddress>& members) {
  std::string out;
  for (const auto& m : members) {
    out += (out.empty() ? "" : ",") + m.name + "=" + Url(m.address, m.peer_port);
  }
  return out;
}

std::vector<std::string> EtcdArgv(const EtcdServiceOptions& options,
                                  const std::vector<EtcdMemberAddress>& members, size_t self,
                                  const std::string& data_dir, const std::string& cluster_token) {
  const EtcdMemberAddress& me = members.at(self);
  const std::string client = Url(me.address, me.client_port);
  const std::string peer = Url(me.address, me.peer_port);
  return {kEtcd,
          "--name=" + me.name,
          "--data-dir=" + data_dir,
          "--listen-client-urls=" + client,
          "--advertise-client-urls=" + client,
          "--listen-peer-urls=" + peer,
          "--initial-advertise-peer-urls=" + peer,
          "--initial-cluster=" + EtcdInitialCluster(members),
          // Ignored once the data directory exists: a restarted member
          // rejoins the cluster it belonged to.
          "--initial-cluster-state=new",
          "--initial-cluster-token=" + cluster_token,
          "--heartbeat-interval=" + std::to_string(options.heartbeat_ms),
          "--election-timeout=" + std::to_string(options.election_ms),
          "--logger=zap",
          "--log-outputs=stderr"};
}

Result<std::unique_ptr<LockService>> MakeEtcdService(const ModuleOptions& options,
                                                     const BackendContext& context) {
  EtcdServiceOptions o = OptionsAs<EtcdServiceOptions>(options);
  if (Status s = options.set().Validate(); !s) return Error{s.error()};
  o.client_timeout = context.client_timeout;
  return std::unique_ptr<LockService>(new EtcdService(context.cluster, o));
}

EtcdService::EtcdService(Cluster& cluster, EtcdServiceOptions options)
    : LeaderElectedService({"etcd", "etcd member", "members", ""}),
      options_(std::move(options)),
      cluster_token_("locksmith-" + cluster.Tag()) {
  for (Host* host : FirstHosts(cluster.Hosts(), options_.nodes)) {
    EtcdMemberAddress member{host->Name(), host->Address(), host->ServicePort(2379),
                             host->ServicePort(2380)};
    ServiceNode info{host->Name(), kEtcdMemberRole, host->Name(), "etcd",
                     host->Address(), member.client_port};
    members_.push_back(member);
    AddServer({info, host, "the etcd member", kEtcdLogFile, options_.ready_timeout});
  }
}

nlohmann::json EtcdService::Settings() const {
  return {{"client", "etcd"},
          {"heartbeat_ms", options_.heartbeat_ms},
          {"election_ms", options_.election_ms},
          // How long Start() took until every member answered and one led.
          {"ready_ms", ready_after_ms_.load()}};
}

ServerLaunch EtcdService::LaunchOf(size_t index) const {
  const Host& host = *servers_.all().at(index)->host();
  return {{kEtcdDataDir},
          {},
          EtcdArgv(options_, members_, index, host.PathOf(kEtcdDataDir), cluster_token_)};
}

ReadinessProbe EtcdService::AnswersProbe(size_t index) const {
  const EtcdEndpoint endpoint{members_.at(index).address, members_.at(index).client_port};
  auto ask = [endpoint]() -> Status {
    auto reply = EtcdPostNow(endpoint, kStatusPath, "{}", kEtcdProbeTimeout);
    if (!reply) return Error{reply.error()};
    if (reply->error) return Error{reply->error->message};
    return OkStatus();
  };
  return {ask, kEtcdProbeInterval, "answer"};
}

Status EtcdService::Start() {
  return StartServers({.backend = "etcd",
                       .hosts = options_.nodes,
                       .more_ports =
                           [this](size_t i) { return std::vector<int>{members_[i].peer_port}; },
                       .launch_of = [this](size_t i) { return LaunchOf(i); },
                       .probe_of = [this](size_t i) { return AnswersProbe(i); },
                       .leader = [this] { return LeaderNow(); },
                       .leader_poll = kEtcdProbeInterval,
                       .group = "the etcd cluster",
                       .ready_timeout = options_.ready_timeout});
}

void EtcdService::Stop() {
  LeaderElectedService::Stop();
  // Once no member runs, the preallocated log goes: 128 MB a member would
  // stay in the run's directory for nothing (the member's log and its
  // database stay).
  for (const auto& server : servers_.all()) {
    for (const char* wal : kPreallocatedWal) (void)server->host()->RemoveFile(wal);
  }
}

std::unique_ptr<LockClient> EtcdService::NewClient(boost::asio::any_io_executor executor,
                                                   const ClientSlot& slot) {
  EtcdLockClientOptions o;
  for (const auto& m : members_) o.members.push_back({m.address, m.client_port});
  o.source_address = slot.source_address;
  o.first_member = static_cast<size_t>(std::max(0, slot.index));
  o.timeout = options_.client_timeout;
  return std::make_unique<EtcdLockClient>(std::move(executor), std::move(o), slot.seed);
}

Status EtcdService::Relaunch(size_t index) {
  return servers_.all()[index]->Launch(LaunchOf(index), AnswersProbe(index));
}

Result<std::string> EtcdService::AskLeader() const {
  std::string leader;
  std::string seen;
  for (size_t i = 0; i < members_.size(); ++i) {
    std::string said = "no answer";
    if (servers_.all()[i]->Responsive()) {
      auto reply = EtcdPostNow({members_[i].address, members_[i].client_port}, kStatusPath, "{}",
                               kEtcdProbeTimeout);
      auto status = reply && reply->ok() ? ParseMemberStatus(reply->body)
                                         : Result<EtcdMemberStatus>(Error{"no status"});
      if (status) {
        const bool leads = status->leader_id != 0 && status->leader_id == status->member_id;
        said = leads ? "leader" : (status->leader_id != 0 ? "follower" : "no leader");
        if (leads && leader.empty()) leader = members_[i].name;
      }
    }
    seen += (seen.empty() ? "" : ", ") + members_[i].name + ": " + said;
  }
  if (leader.empty()) return Error{"no etcd member leads now (" + seen + ")"};
  return leader;
}

std::vector<NodeRoleSpec> EtcdService::Roles() const {
  // Go makes its system calls itself: the power shim never sees a write.
  const std::string unreachable = "etcd's writes (its Go runtime bypasses the C library)";
  return {{kEtcdMemberRole, unreachable}, {kPrimaryRole, unreachable}};
}

}  // namespace locksmith
