#include "nemesis/net_slow_nemesis.h"

#include <cstdio>
#include <algorithm>
#include <future>
#include <iterator>

#include <boost/asio/post.hpp>

#include "base/seed.h"
#include "cluster/net_plan.h"
#include "nemesis/fault_text.h"
#include "nemesis/partition_nemesis.h"
#include "nemesis/targets.h"

namespace locksmith {
namespace {

constexpr std::chrono::milliseconds kAbortTimeout{10000};

// "net-slow delay 500±100 ms (n1 | n2 n3)", "net-slow stall upstream (...)".
std::string DescribeNetSlow(const FaultOp& op) {
  std::string text = op.f;
  const std::string mode = StringField(op.value, "mode");
  text += " " + (mode.empty() ? std::string("delay") : mode);
  if (mode.empty() || mode == "delay") {
    const auto number = [&](const char* key) {
      return op.value.is_object() && op.value.contains(key) && op.value.at(key).is_number_integer()
                 ? op.value.at(key).get<int64_t>()
                 : int64_t{0};
    };
    text += " " + std::to_string(number("latency_ms"));
    if (number("jitter_ms") > 0) text += "±" + std::to_string(number("jitter_ms"));
    text += " ms";
    if (number("bandwidth_kbs") > 0) text += ", " + std::to_string(number("bandwidth_kbs")) + " KB/s";
  }
  const std::string direction = StringField(op.value, "direction");
  if (!direction.empty() && direction != "both") text += " " + direction;
  if (op.value.is_object() && op.value.contains("grudge")) {
    return text + " (" + DescribeGrudge(GrudgeFromJson(op.value["grudge"])) + ")";
  }
  return text;
}

nlohmann::json ToxicsValue(const NetSlowOptions& o) {
  return {{"mode", o.mode},
          {"direction", o.direction},
          {"latency_ms", o.latency_ms},
          {"jitter_ms", o.jitter_ms},
          {"bandwidth_kbs", o.bandwidth_kbs}};
}

RelayCounts Minus(RelayCounts a, const RelayCounts& b) {
  a.connections -= b.connections;
  a.connected -= b.connected;
  a.bytes -= b.bytes;
  a.delayed_bytes -= b.delayed_bytes;
  a.resets -= b.resets;
  return a;
}

}  // namespace

const FaultLook kNetSlowLook = {"net-slow", 34, "#8d6e63", DescribeNetSlow};

void NetSlowOptions::Declare(OptionSet& set) {
  set.Choice("slow_mode", "--slow-mode", &mode, SlowModes(),
             "what the relay does to a slow link's connections: delay (latency, jitter, "
             "bandwidth), stall (nothing passes until the heal), reset (every connection reset)");
  set.Choice("slow_direction", "--slow-direction", &direction, SlowDirections(),
             "which way delay and stall act: both, upstream (what the connecting side sends), "
             "downstream (the answers)");
  set.Integer("slow_latency_ms", "--slow-latency-ms", &latency_ms, int64_t{0}, kMaxToxicDelayMs,
              "ms added to every chunk a slow link carries (delay)");
  set.Integer("slow_jitter_ms", "--slow-jitter-ms", &jitter_ms, int64_t{0}, kMaxToxicDelayMs,
              "ms each chunk's latency varies by, either way, at most the latency (delay)");
  set.Integer("slow_bandwidth_kbs", "--slow-bandwidth-kbs", &bandwidth_kbs, int64_t{0},
              int64_t{10'000'000}, "KB/s a slow link carries at most; 0: no cap (delay)");
  DeclareLinks(set, "slow", "are slow", "a slow window");
  set.Require([this]() -> Status {
    if (auto toxics = ToxicsFromJson(ToxicsValue(*this)); !toxics) {
      return Error{"--slow-*: " + toxics.error()};
    }
    return CheckLinks("slow");
  });
}

WindowOps NetSlowWindow(const NetSlowOptions& options) {
  nlohmann::json value = ToxicsValue(options);
  options.AddLinksTo(value);
  return TimedWindow({"net-slow", std::move(value)}, {"net-slow-heal", nullptr}, options.ms);
}

WindowOps NetSlowWindowOf(const ModuleOptions& options) {
  return NetSlowWindow(OptionsAs<NetSlowOptions>(options));
}

std::string NetSlowUnfit(const ModuleOptions& options, const NemesisContext& context) {
  if (std::string why = LinkFaultUnfit("net-slow", options, context); !why.empty()) return why;
  // The relays listen inside the hosts' networks, from the controller.
  for (Host* host : context.cluster->Hosts()) {
    if (!host->OpensSocketsInside()) {
      return "--nemesis net-slow needs hosts whose network the controller reaches (the local "
             "provider's namespaces); host " + host->Name() + " is not one";
    }
  }
  return "";
}

Result<std::unique_ptr<Nemesis>> MakeNetSlowNemesis(const ModuleOptions& options,
                                                    const NemesisContext& context) {
  if (std::string why = NetSlowUnfit(options, context); !why.empty()) return Error{why};
  Cluster* cluster = context.cluster;
  auto chain = ChainName(cluster->Tag(), "slow");
  if (!chain) return Error{chain.error()};
  std::vector<NetEndpoint> endpoints = ClusterEndpoints(*cluster, context.concurrency);
  LockService& service = context.service;
  return std::unique_ptr<Nemesis>(
      new NetSlowNemesis([&service] { return service.Table(); }, context.concurrency,
                         context.seed, *chain, std::move(endpoints)));
}

Result<std::map<std::string, HostRedirects>> PlanRedirects(
    const Grudge& grudge, const std::vector<NetEndpoint>& endpoints) {
  std::map<std::string, const NetEndpoint*> by_name;
  for (const auto& e : endpoints) by_name[e.name] = &e;
  auto find = [&](const std::string& name) -> Result<const NetEndpoint*> {
    auto it = by_name.find(name);
    if (it == by_name.end() || it->second->address.empty()) {
      return Error{"the slow links name " + name + ", which is no host or client with an "
                   "address of its own"};
    }
    return it->second;
  };
  std::map<std::string, HostRedirects> plan;
  for (const auto& [receiver_name, senders] : grudge) {
    auto receiver = find(receiver_name);
    if (!receiver) return Error{receiver.error()};
    for (const auto& sender_name : senders) {
      auto sender = find(sender_name);
      if (!sender) return Error{sender.error()};
      const NetEndpoint& r = **receiver;
      const NetEndpoint& s = **sender;
      if (r.host == nullptr) continue;  // no one connects to a client
      if (s.host != nullptr) {
        plan[s.name].to.insert(r.address);
      } else {
        plan[r.name].from.insert(s.address);
      }
    }
  }
  return plan;
}

std::string RedirectRules(const std::string& chain, const HostRedirects& redirects, int port,
                          bool create) {
  std::string text = "*nat\n";
  if (create) {
    text += ":" + chain + " - [0:0]\n";
    text += "-I OUTPUT 1 -j " + chain + "\n";
    text += "-I PREROUTING 1 -j " + chain + "\n";
  }
  const std::string to_relay = " -j REDIRECT --to-ports " + std::to_string(port) + "\n";
  char mark[16];
  std::snprintf(mark, sizeof mark, "0x%x", kRelayMark);
  for (const auto& a : redirects.to) {
    text += "-A " + chain + " -p tcp -d " + a + " -m mark ! --mark " + mark + to_relay;
  }
  for (const auto& a : redirects.from) text += "-A " + chain + " -p tcp -s " + a + to_relay;
  return text + "COMMIT\n";
}

std::string RedirectRemovalRules(const std::string& chain) {
  return "*nat\n:" + chain + " - [0:0]\n-D OUTPUT -j " + chain + "\n-D PREROUTING -j " + chain +
         "\n-X " + chain + "\nCOMMIT\n";
}

NetSlowNemesis::NetSlowNemesis(std::function<NodeTable()> table, int concurrency, uint64_t seed,
                               std::string chain, std::vector<NetEndpoint> endpoints)
    : table_(std::move(table)),
      concurrency_(concurrency),
      seed_(seed),
      chain_(std::move(chain)),
      endpoints_(std::move(endpoints)),
      work_(io_.get_executor()),
      thread_([this] { io_.run(); }) {}

NetSlowNemesis::~NetSlowNemesis() {
  Teardown();
  work_.reset();
  io_.stop();
  thread_.join();
}

void NetSlowNemesis::OnRelayThread(const std::function<void()>& work) {
  std::promise<void> done;
  boost::asio::post(io_, [&] {
    work();
    done.set_value();
  });
  done.get_future().wait();
}

Host* NetSlowNemesis::HostNamed(const std::string& name) const {
  for (const auto& e : endpoints_) {
    if (e.name == name) return e.host;
  }
  return nullptr;
}

Result<int> NetSlowNemesis::RelayOn(Host& host) {
  if (auto it = ports_.find(host.Name()); it != ports_.end()) return it->second;
  Result<int> port = Error{"no relay"};
  OnRelayThread([&] {
    auto relay = std::make_unique<ToxicRelay>(
        io_.get_executor(), [&host] { return host.OpenTcpSocket(); },
        SubSeed(seed_, 1000 + relays_.size()));
    port = relay->Start();
    if (port) relays_[host.Name()] = std::move(relay);
  });
  if (!port) return Error{"host " + host.Name() + ": " + port.error()};
  ports_[host.Name()] = *port;
  return port;
}

FaultResult NetSlowNemesis::Invoke(const FaultOp& op) {
  if (op.f == "net-slow") return Begin(op.value);
  if (op.f == "net-slow-heal") return Heal();
  return {false, nullptr, "net-slow cannot " + op.f};
}

RelayCounts NetSlowNemesis::TotalCounts() {
  RelayCounts total;
  OnRelayThread([&] {
    for (const auto& [name, relay] : relays_) {
      const RelayCounts c = relay->Counts();
      total.connections += c.connections;
      total.connected += c.connected;
      total.bytes += c.bytes;
      total.delayed_bytes += c.delayed_bytes;
      total.resets += c.resets;
    }
  });
  return total;
}

Result<NetSlowNemesis::SlowLinks> NetSlowNemesis::LinksOf(const nlohmann::json& value) {
  SlowLinks links;
  if (StringField(value, "shape") == "into") {
    // Every connection the controller opens to the host: the lock clients'
    // connections to the protected resource's store (they carry no client
    // address of their own).
    std::string name = StringField(value, "host");
    if (name.empty()) name = "store";
    Host* host = HostNamed(name);
    if (host == nullptr) {
      return Error{"\"host\" names " + QuoteInput(name) + ", which is no host of this run"};
    }
    auto controller = BridgeAddressOf(host->Address());
    if (!controller) return Error{controller.error()};
    links.grudge[name] = {"controller"};
    links.plan[name].from = {*controller};
    return links;
  }
  auto grudge = PartitionGrudge(value, table_(), concurrency_, SubSeed(seed_, begun_++));
  if (!grudge) return Error{grudge.error()};
  auto plan = PlanRedirects(*grudge, endpoints_);
  if (!plan) return Error{plan.error()};
  links.grudge = std::move(*grudge);
  links.plan = std::move(*plan);
  return links;
}

FaultResult NetSlowNemesis::Begin(const nlohmann::json& value) {
  auto toxics = ToxicsFromJson(value);
  if (!toxics) return {false, nullptr, toxics.error()};
  auto links = LinksOf(value);
  if (!links) return {false, nullptr, links.error()};
  const Grudge* grudge = &links->grudge;
  const std::map<std::string, HostRedirects>* plan = &links->plan;
  nlohmann::json done = {{"shape", StringField(value, "shape").empty()
                                       ? std::string("auto")
                                       : StringField(value, "shape")},
                         {"toxics", ToxicsJson(*toxics)},
                         {"grudge", *grudge},
                         {"relays", nlohmann::json::object()}};
  // The relays first, with their toxics, then the rules that reach them.
  for (const auto& [name, redirects] : *plan) {
    Host* host = HostNamed(name);
    if (host == nullptr) return {false, std::move(done), "no host " + name};
    auto port = RelayOn(*host);
    if (!port) return {false, std::move(done), port.error()};
    done["relays"][name] = {{"port", *port}, {"to", redirects.to}, {"from", redirects.from}};
  }
  OnRelayThread([&] {
    for (auto& [name, relay] : relays_) {
      auto it = plan->find(name);
      if (it == plan->end()) {
        relay->SetToxics(LinkToxics{}, {});
        continue;
      }
      std::set<std::string> peers = it->second.to;
      peers.insert(it->second.from.begin(), it->second.from.end());
      relay->SetToxics(*toxics, std::move(peers));
    }
  });
  baseline_ = TotalCounts();
  if (Status s = InstallRules(*plan); !s) return {false, std::move(done), s.error()};
  // Connections made before the rules would not pass a relay: each host
  // aborts its own on the slow links (as a partition's cut does), so they
  // are made again, through it.
  for (const auto& [name, redirects] : *plan) {
    std::set<std::string> peers = redirects.to;
    peers.insert(redirects.from.begin(), redirects.from.end());
    if (Status s = HostNamed(name)->AbortConnections(peers, kAbortTimeout); !s) {
      return {false, std::move(done), s.error()};
    }
  }
  // Nothing is observed yet: the relays say at the heal what passed them.
  return {true, std::move(done), ""};
}

Status NetSlowNemesis::InstallRules(const std::map<std::string, HostRedirects>& plan) {
  // Rules are only ever added: removing a REDIRECT breaks the connections
  // it sent to the relay (tried: their packets stop flowing), so a link
  // stays on its relay, untoxic once healed, until the teardown.
  for (const auto& [name, wanted] : plan) {
    const bool create = !redirected_.contains(name);
    HostRedirects& done = redirected_[name];
    HostRedirects added;
    std::set_difference(wanted.to.begin(), wanted.to.end(), done.to.begin(), done.to.end(),
                        std::inserter(added.to, added.to.end()));
    std::set_difference(wanted.from.begin(), wanted.from.end(), done.from.begin(),
                        done.from.end(), std::inserter(added.from, added.from.end()));
    if (!create && added.to.empty() && added.from.empty()) continue;
    const std::string rules = RedirectRules(chain_, added, ports_[name], create);
    if (Status s = RestoreRules(*HostNamed(name), chain_ + ".rules", rules); !s) {
      if (create && done.to.empty() && done.from.empty()) redirected_.erase(name);
      return s;
    }
    done.to.insert(added.to.begin(), added.to.end());
    done.from.insert(added.from.begin(), added.from.end());
  }
  return OkStatus();
}

FaultResult NetSlowNemesis::Heal() {
  const RelayCounts seen = Minus(TotalCounts(), baseline_);
  OnRelayThread([&] {
    for (auto& [name, relay] : relays_) relay->SetToxics(LinkToxics{}, {});
  });
  baseline_ = TotalCounts();
  FaultResult result{true, {{"healed", true}, {"relayed", seen.ToJson()}}, ""};
  // Observed: some connection passed a relay and was slowed, held or reset.
  result.observed = (seen.connected > 0 && seen.delayed_bytes > 0) || seen.resets > 0;
  return result;
}

std::vector<HealFailure> NetSlowNemesis::Teardown() {
  std::vector<HealFailure> failures;
  std::map<std::string, HostRedirects> left;
  for (const auto& [name, redirects] : redirected_) {
    Status s = RestoreRules(*HostNamed(name), chain_ + ".rules", RedirectRemovalRules(chain_));
    if (!s) {
      failures.push_back({"net-slow-heal", nullptr, s.error()});
      left[name] = redirects;
    }
  }
  redirected_ = std::move(left);
  OnRelayThread([&] {
    for (auto& [name, relay] : relays_) relay->Close();
    relays_.clear();
  });
  ports_.clear();
  return failures;
}

}  // namespace locksmith
