#include "cluster/local_cluster.h"

#include <unistd.h>

#include <filesystem>
#include <set>

#include "cluster/net_plan.h"
#include "cluster/net_setup.h"
#include "cluster/proc_info.h"

namespace locksmith {
namespace fs = std::filesystem;

Result<std::unique_ptr<Cluster>> CreateLocalCluster(const LocalClusterOptions& options) {
  std::string tag = options.tag.empty() ? RandomTag() : options.tag;
  if (auto s = ValidateTag(tag); !s.ok()) return Error{s.error()};
  if (options.node_names.empty()) return Error{"a local cluster needs at least one node"};
  if (options.node_names.size() > static_cast<size_t>(kMaxNodesPerSlice)) {
    return Error{"a local cluster holds at most " + std::to_string(kMaxNodesPerSlice) +
                 " nodes; " + std::to_string(options.node_names.size()) + " were asked for"};
  }
  std::set<std::string> seen;
  for (const auto& n : options.node_names) {
    if (auto s = ValidateNodeName(n); !s.ok()) return Error{s.error()};
    if (!seen.insert(n).second) return Error{"node name '" + n + "' appears twice"};
  }
  if (options.nodes_dir.empty()) return Error{"LocalClusterOptions.nodes_dir is empty"};
  for (const auto& n : options.node_names) {
    std::error_code ec;
    fs::create_directories(fs::path(options.nodes_dir) / n, ec);
    if (ec) {
      return Error{"cannot create node directory " + (fs::path(options.nodes_dir) / n).string() +
                   ": " + ec.message()};
    }
  }

  NetOps& net = options.net != nullptr ? *options.net : RealNetOps();
  bool network = !options.force_loopback && (options.net != nullptr || geteuid() == 0);
  auto record = NewRecordForThisProcess(tag);
  if (!record.ok()) return Error{record.error()};
  if (network) {
    // Recorded before creation so that a crash at any step is cleanable.
    for (size_t i = 0; i < options.node_names.size(); ++i) {
      record->netns.push_back(NetnsName(tag, options.node_names[i]));
      record->links.push_back(HostVethName(tag, static_cast<int>(i)));
    }
    record->links.push_back(BridgeName(tag));
  }

  RunRegistry registry(options.state_dir.empty() ? RunRegistry::DefaultDir() : options.state_dir);
  {
    auto lock = registry.Acquire();
    if (!lock.ok()) return Error{lock.error()};
    // A tag whose objects exist but are unregistered (another registry dir)
    // must not be reused: we would delete that run's objects at teardown.
    for (const auto& ns : record->netns) {
      if (net.NetnsExists(ns)) {
        return Error{"namespace " + ns + " already exists; pick another tag"};
      }
    }
    for (const auto& l : record->links) {
      if (net.LinkExists(l)) return Error{"link " + l + " already exists; pick another tag"};
    }
    const std::set<int> busy = network ? SlicesInUseByInterfaces(net) : std::set<int>{};
    if (auto s = registry.RegisterLocked(*record, network, busy); !s.ok()) {
      return Error{s.error()};
    }
  }

  std::unique_ptr<LocalCluster> cluster(new LocalCluster(options, std::move(*record)));
  if (network) {
    if (auto s = cluster->BuildNetwork(options.node_names); !s.ok()) {
      std::string msg = "cannot create local cluster " + tag + ": " + s.error();
      if (auto t = cluster->Teardown(); !t.ok()) {
        msg += "; removing what was created also failed (run `locksmith cleanup`): " + t.error();
      }
      return Error{msg};
    }
  }
  return std::unique_ptr<Cluster>(std::move(cluster));
}

LocalCluster::LocalCluster(const LocalClusterOptions& options, RunRecord record)
    : net_(options.net != nullptr ? *options.net : RealNetOps()),
      registry_(options.state_dir.empty() ? RunRegistry::DefaultDir() : options.state_dir),
      port_pool_(options.port_pool ? options.port_pool : std::make_shared<LoopbackPortPool>()),
      supervisor_(options.die_with_controller),
      nodes_dir_(fs::absolute(options.nodes_dir).lexically_normal().string()),
      record_(std::move(record)) {
  bool network = record_.slice >= 0;
  controller_address_ = network ? *BridgeAddress(record_.slice) : "127.0.0.1";
  for (size_t i = 0; i < options.node_names.size(); ++i) {
    const std::string& name = options.node_names[i];
    std::string address = network ? *NodeAddress(record_.slice, static_cast<int>(i)) : "127.0.0.1";
    hosts_.push_back(std::make_unique<LocalHost>(
        name, address, network ? NetnsName(record_.tag, name) : "",
        fs::absolute(fs::path(options.nodes_dir) / name).lexically_normal().string(), &supervisor_,
        [this](const std::string& host, int pid) { return RecordSpawn(host, pid); },
        port_pool_.get(), record_.tag));
  }
}

LocalCluster::~LocalCluster() { (void)Teardown(); }

Status LocalCluster::BuildNetwork(const std::vector<std::string>& node_names) {
  const std::string& tag = record_.tag;
  // Before any host exists: no other local user ever reaches one.
  auto guard = GuardRules(tag, record_.slice, geteuid());
  if (!guard) return Error{guard.error()};
  if (auto s = net_.Nft({*guard}); !s.ok()) {
    return Error{"cannot close the run's hosts to other local users (is nftables installed?): " +
                 s.error()};
  }
  const std::string bridge = BridgeName(tag);
  if (auto s = net_.Ip({"link", "add", bridge, "type", "bridge"}); !s.ok()) return s;
  if (auto s = net_.Ip({"addr", "add", WithPrefix(controller_address_), "dev", bridge}); !s.ok()) {
    return s;
  }
  if (auto s = net_.Ip({"link", "set", bridge, "up"}); !s.ok()) return s;
  // The clients' range is local on the bridge (gone with it), so each
  // client can bind an address of its own; the nodes route it back there.
  const std::string clients = *ClientNetwork(record_.slice);
  if (auto s = net_.Ip({"route", "add", "local", clients, "dev", bridge}); !s.ok()) return s;
  for (size_t i = 0; i < node_names.size(); ++i) {
    const int index = static_cast<int>(i);
    const std::string ns = NetnsName(tag, node_names[i]);
    const std::string host_veth = HostVethName(tag, index);
    const std::string node_veth = NodeVethName(tag, index);
    const std::string address = WithPrefix(hosts_[i]->Address());
    // The peer is born inside the namespace, so no node-side link ever sits
    // in the root namespace where a crash could strand it.
    for (const auto& args : std::vector<std::vector<std::string>>{
             {"netns", "add", ns},
             {"link", "add", host_veth, "type", "veth", "peer", "name", node_veth, "netns", ns},
             {"link", "set", host_veth, "master", bridge, "up"},
             {"-n", ns, "addr", "add", address, "dev", node_veth},
             {"-n", ns, "link", "set", node_veth, "up"},
             {"-n", ns, "link", "set", "lo", "up"},
             {"-n", ns, "route", "add", clients, "via", controller_address_}}) {
      if (auto s = net_.Ip(args); !s.ok()) return s;
    }
  }
  return OkStatus();
}

Status LocalCluster::RecordSpawn(const std::string& host, int pid) {
  auto st = ReadProcStat(pid);
  std::lock_guard<std::mutex> lock(record_mu_);
  // A process that already exited has no start time; there is nothing to
  // clean up for it either.
  if (!st) return OkStatus();
  record_.processes.push_back({pid, st->start_time, host});
  return registry_.Save(record_);
}

std::string LocalCluster::ClientAddress(int index) {
  if (!HasOwnNetwork() || index < 0) return "";
  auto address = locksmith::ClientAddress(record_.slice, index);
  return address ? *address : "";
}

Result<Host*> LocalCluster::ClientHost(int index) {
  if (!HasOwnNetwork()) return static_cast<Host*>(nullptr);
  const std::string address = ClientAddress(index);
  if (address.empty()) {
    return Error{"client " + std::to_string(index) + " has no address of its own (at most " +
                 std::to_string(kMaxClientAddresses) + " clients get one)"};
  }
  std::lock_guard<std::mutex> lock(client_hosts_mu_);
  if (auto it = client_hosts_.find(index); it != client_hosts_.end()) return it->second.get();
  const std::string name = "client." + std::to_string(index);
  const fs::path dir = fs::path(nodes_dir_) / name;
  std::error_code ec;
  fs::create_directories(dir, ec);
  if (ec) return Error{"cannot create client directory " + dir.string() + ": " + ec.message()};
  if (auto s = BuildClientHost(index, address); !s.ok()) {
    return Error{"cannot create the host of client " + std::to_string(index) + ": " + s.error()};
  }
  auto host = std::make_unique<LocalHost>(
      name, address, ClientNetnsName(record_.tag, index), dir.string(), &supervisor_,
      [this](const std::string& h, int pid) { return RecordSpawn(h, pid); }, port_pool_.get(),
      record_.tag, ContainSpec{record_.tag});
  Host* made = host.get();
  client_hosts_[index] = std::move(host);
  return made;
}

Host* LocalCluster::MadeClientHost(int index) {
  std::lock_guard<std::mutex> lock(client_hosts_mu_);
  auto it = client_hosts_.find(index);
  return it == client_hosts_.end() ? nullptr : it->second.get();
}

Status LocalCluster::BuildClientHost(int index, const std::string& address) {
  const std::string& tag = record_.tag;
  const std::string ns = ClientNetnsName(tag, index);
  const std::string veth = ClientVethName(tag, index);
  const std::string peer = ClientPeerVethName(tag, index);
  const std::string mac = ClientMac(record_.slice, index);
  {
    std::lock_guard<std::mutex> lock(record_mu_);
    record_.netns.push_back(ns);
    record_.links.push_back(veth);
    if (auto s = registry_.Save(record_); !s.ok()) return s;
  }
  std::vector<std::vector<std::string>> steps = {
      {"netns", "add", ns},
      {"link", "add", veth, "type", "veth", "peer", "name", peer, "address", mac, "netns", ns},
      {"link", "set", veth, "master", BridgeName(tag), "up"},
      {"-n", ns, "addr", "add", address + "/32", "dev", peer},
      {"-n", ns, "link", "set", peer, "up"},
      {"-n", ns, "link", "set", "lo", "up"},
      {"-n", ns, "route", "add", *SliceNetwork(record_.slice), "dev", peer}};
  // Each node reaches the client over the bridge, not through the
  // controller, whose `local` route of the clients' range would take it.
  for (size_t i = 0; i < hosts_.size(); ++i) {
    const std::string node_ns = hosts_[i]->NetnsName();
    const std::string node_veth = NodeVethName(tag, static_cast<int>(i));
    steps.push_back({"-n", node_ns, "route", "add", address + "/32", "dev", node_veth});
    steps.push_back({"-n", node_ns, "neigh", "replace", address, "lladdr", mac, "dev", node_veth,
                     "nud", "permanent"});
  }
  for (const auto& args : steps) {
    if (auto s = net_.Ip(args); !s.ok()) return s;
  }
  return OkStatus();
}

std::vector<Host*> LocalCluster::Hosts() {
  std::vector<Host*> hosts;
  for (auto& h : hosts_) hosts.push_back(h.get());
  return hosts;
}

Host* LocalCluster::FindHost(const std::string& name) {
  for (auto& h : hosts_) {
    if (h->Name() == name) return h.get();
  }
  return nullptr;
}

RunRecord LocalCluster::Record() {
  std::lock_guard<std::mutex> lock(record_mu_);
  return record_;
}

Status LocalCluster::Teardown() {
  std::lock_guard<std::mutex> lock(teardown_mu_);
  if (torn_down_) return OkStatus();
  std::string errors;
  // Processes first: a namespace stays alive while a process is inside it.
  if (auto s = supervisor_.KillAll(); !s.ok()) errors += "\n  " + s.error();
  // Our servers are gone (one stuck in the kernel still holds its port, so
  // the pool's bind check skips it): the ports are free for the next cluster.
  port_pool_->ReleaseAll(record_.tag);
  if (auto s = RemoveRunObjects(Record(), nullptr, net_); !s.ok()) errors += "\n  " + s.error();
  if (!errors.empty()) {
    // The record stays, so `locksmith cleanup` can finish once we exit.
    return Error{"teardown of cluster " + record_.tag + " incomplete:" + errors};
  }
  if (auto s = registry_.Remove(record_.tag); !s.ok()) return s;
  torn_down_ = true;
  return OkStatus();
}

}  // namespace locksmith
