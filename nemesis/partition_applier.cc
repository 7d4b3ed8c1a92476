#include "nemesis/partition_applier.h"

#include <chrono>
#include <cstdio>
#include <sstream>

#include "base/parallel.h"

namespace locksmith {

std::vector<NetEndpoint> ClusterEndpoints(Cluster& cluster, int clients) {
  std::vector<NetEndpoint> endpoints;
  for (Host* host : cluster.Hosts()) endpoints.push_back({host->Name(), host->Address(), host});
  for (int i = 0; i < clients; ++i) {
    endpoints.push_back({"c" + std::to_string(i), cluster.ClientAddress(i), nullptr});
  }
  return endpoints;
}
namespace {

constexpr std::chrono::milliseconds kCommandTimeout{10000};


}  // namespace

Result<std::map<std::string, HostCut>> PlanCuts(const Grudge& grudge,
                                                const std::vector<NetEndpoint>& endpoints,
                                                bool at_sender) {
  std::map<std::string, const NetEndpoint*> by_name;
  for (const auto& e : endpoints) by_name[e.name] = &e;
  auto find = [&](const std::string& name) -> Result<const NetEndpoint*> {
    auto it = by_name.find(name);
    if (it == by_name.end()) return Error{"the partition names " + name + ", which is no host or "
                                          "client of this run"};
    if (it->second->address.empty()) {
      return Error{"client " + name + " has no address of its own to cut off"};
    }
    return it->second;
  };
  std::map<std::string, HostCut> cuts;
  for (const auto& [dropper_name, sources] : grudge) {
    auto dropper = find(dropper_name);
    if (!dropper) return Error{dropper.error()};
    for (const auto& source_name : sources) {
      auto source = find(source_name);
      if (!source) return Error{source.error()};
      const NetEndpoint& d = **dropper;
      const NetEndpoint& s = **source;
      if (d.host == nullptr && s.host == nullptr) {
        return Error{"clients " + d.name + " and " + s.name + " do not talk to each other: "
                     "no host can cut them apart"};
      }
      if (at_sender ? s.host != nullptr : d.host == nullptr) {
        // The source's host stops sending (a client receiving cannot filter).
        cuts[s.name].drop_to.insert(d.address);
      } else {
        // The dropper filters what arrives (a client sending cannot filter).
        cuts[d.name].drop_from.insert(s.address);
      }
      if (d.host != nullptr) cuts[d.name].peers.insert(s.address);
      if (s.host != nullptr) cuts[s.name].peers.insert(d.address);
    }
  }
  return cuts;
}

std::string StatisticMatch(double drop_probability) {
  if (drop_probability >= 1.0) return "";
  char text[32];
  std::snprintf(text, sizeof text, "%.6g", drop_probability);
  return std::string(" -m statistic --mode random --probability ") + text;
}

uint64_t DroppedPacketsIn(const std::string& listing) {
  uint64_t dropped = 0;
  std::istringstream lines(listing);
  std::string line;
  while (std::getline(lines, line)) {
    if (line.rfind("-A ", 0) != 0 || line.find(" -j DROP") == std::string::npos) continue;
    const size_t counters = line.find(" -c ");
    if (counters == std::string::npos) continue;
    unsigned long long packets = 0;
    if (std::sscanf(line.c_str() + counters, " -c %llu", &packets) == 1) dropped += packets;
  }
  return dropped;
}

std::string CutRules(const std::string& chain, const HostCut& cut, bool add_jumps,
                     int spare_port, double drop_probability) {
  std::string text = "*filter\n:" + chain + " - [0:0]\n";
  if (add_jumps) {
    text += "-I INPUT 1 -j " + chain + "\n";
    text += "-I OUTPUT 1 -j " + chain + "\n";
  }
  if (spare_port > 0 && (!cut.drop_from.empty() || !cut.drop_to.empty())) {
    const std::string port = std::to_string(spare_port);
    text += "-A " + chain + " -p tcp --dport " + port + " -j RETURN\n";
    text += "-A " + chain + " -p tcp --sport " + port + " -j RETURN\n";
  }
  const std::string drop = StatisticMatch(drop_probability) + " -j DROP\n";
  for (const auto& a : cut.drop_from) text += "-A " + chain + " -s " + a + drop;
  for (const auto& a : cut.drop_to) text += "-A " + chain + " -d " + a + drop;
  return text + "COMMIT\n";
}

std::string RemovalRules(const std::string& chain) {
  return "*filter\n:" + chain + " - [0:0]\n-D INPUT -j " + chain + "\n-D OUTPUT -j " + chain +
         "\n-X " + chain + "\nCOMMIT\n";
}

PartitionApplier::PartitionApplier(std::string chain, std::vector<NetEndpoint> endpoints,
                                   CutStyle style)
    : chain_(std::move(chain)), endpoints_(std::move(endpoints)), style_(style) {}

Host* PartitionApplier::HostNamed(const std::string& name) const {
  for (const auto& e : endpoints_) {
    if (e.name == name) return e.host;
  }
  return nullptr;
}

Status RestoreRules(Host& host, const std::string& file, const std::string& rules) {
  if (Status s = host.WriteFile(file, rules); !s) return s;
  auto r = host.Exec({"iptables-restore", "-w", "--noflush", host.PathOf(file)},
                     kCommandTimeout);
  (void)host.RemoveFile(file);
  if (!r) return Error{r.error()};
  if (r->exit_code != 0) {
    return Error{"host " + host.Name() + ": iptables-restore exited " +
                 std::to_string(r->exit_code) + ": " + r->output};
  }
  return OkStatus();
}

Result<nlohmann::json> PartitionApplier::Apply(const Grudge& grudge, double drop_probability) {
  auto cuts = PlanCuts(grudge, endpoints_, style_.at_sender);
  if (!cuts) return Error{cuts.error()};
  std::lock_guard lock(mu_);
  // Every host that has rules now or will: the ones left out are flushed.
  std::set<std::string> names = installed_;
  for (const auto& [name, cut] : *cuts) names.insert(name);
  const std::vector<std::string> hosts(names.begin(), names.end());
  std::vector<char> jumped(hosts.size());  // not vector<bool>: threads write apart
  for (size_t i = 0; i < hosts.size(); ++i) jumped[i] = installed_.contains(hosts[i]);
  Status applied = ForEachInParallel(hosts.size(), [&](size_t i) -> Status {
    Host* host = HostNamed(hosts[i]);
    if (host == nullptr) return Error{"no host " + hosts[i]};
    auto it = cuts->find(hosts[i]);
    const HostCut cut = it == cuts->end() ? HostCut{} : it->second;
    const std::string rules =
        CutRules(chain_, cut, !jumped[i], host->ControlPort(), drop_probability);
    if (Status s = RestoreRules(*host, chain_ + ".rules", rules); !s) return s;
    jumped[i] = true;
    if (cut.peers.empty() || !style_.abort_connections) return OkStatus();
    // Abort this host's own connections to everyone it was cut from.
    return host->AbortConnections(cut.peers, kCommandTimeout);
  });
  for (size_t i = 0; i < hosts.size(); ++i) {
    if (jumped[i]) installed_.insert(hosts[i]);
  }
  if (!applied) return Error{applied.error()};
  nlohmann::json done = nlohmann::json::object();
  for (const auto& [name, cut] : *cuts) {
    nlohmann::json rules = nlohmann::json::object();
    if (!cut.drop_from.empty()) rules["drops_from"] = cut.drop_from;
    if (!cut.drop_to.empty()) rules["drops_to"] = cut.drop_to;
    done[name] = std::move(rules);
  }
  return done;
}

Result<uint64_t> PartitionApplier::DroppedPackets() {
  std::lock_guard lock(mu_);
  const std::vector<std::string> hosts(installed_.begin(), installed_.end());
  std::vector<uint64_t> dropped(hosts.size());
  Status read = ForEachInParallel(hosts.size(), [&](size_t i) -> Status {
    Host* host = HostNamed(hosts[i]);
    if (host == nullptr) return Error{"no host " + hosts[i]};
    auto r = host->Exec({"iptables", "-w", "-v", "-S", chain_}, kCommandTimeout);
    if (!r) return Error{r.error()};
    if (r->exit_code != 0) {
      return Error{"host " + host->Name() + ": iptables -S exited " +
                   std::to_string(r->exit_code) + ": " + r->output};
    }
    dropped[i] = DroppedPacketsIn(r->output);
    return OkStatus();
  });
  if (!read) return Error{read.error()};
  uint64_t total = 0;
  for (uint64_t d : dropped) total += d;
  return total;
}

Status PartitionApplier::Heal() {
  std::lock_guard lock(mu_);
  const std::vector<std::string> hosts(installed_.begin(), installed_.end());
  return ForEachInParallel(hosts.size(), [&](size_t i) -> Status {
    Host* host = HostNamed(hosts[i]);
    if (host == nullptr) return Error{"no host " + hosts[i]};
    return RestoreRules(*host, chain_ + ".rules", CutRules(chain_, HostCut{}, false));
  });
}

Status PartitionApplier::Teardown() {
  std::lock_guard lock(mu_);
  const std::vector<std::string> hosts(installed_.begin(), installed_.end());
  std::vector<char> removed(hosts.size());
  Status status = ForEachInParallel(hosts.size(), [&](size_t i) -> Status {
    Host* host = HostNamed(hosts[i]);
    if (host == nullptr) return Error{"no host " + hosts[i]};
    Status s = RestoreRules(*host, chain_ + ".rules", RemovalRules(chain_));
    removed[i] = s.ok();
    return s;
  });
  for (size_t i = 0; i < hosts.size(); ++i) {
    if (removed[i]) installed_.erase(hosts[i]);
  }
  return status;
}

}  // namespace locksmith
