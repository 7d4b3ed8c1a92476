#include "nemesis/partition_nemesis.h"

#include <algorithm>
#include <cstdlib>
#include <random>

#include "base/limits.h"
#include "base/seed.h"
#include "cluster/net_plan.h"
#include "nemesis/fault_text.h"
#include "nemesis/targets.h"

namespace locksmith {
namespace {

// The hosts of `table`, each once, in table order.
std::vector<std::string> TableHosts(const NodeTable& table) {
  std::vector<std::string> hosts;
  for (const auto& node : table) {
    if (std::find(hosts.begin(), hosts.end(), node.host) == hosts.end()) {
      hosts.push_back(node.host);
    }
  }
  return hosts;
}

// The hosts the nodes `target` names run on.
Result<std::vector<std::string>> TargetHosts(const std::string& text, const NodeTable& table,
                                             uint64_t seed) {
  auto target = ParseTarget(text);
  if (!target) return Error{target.error()};
  auto nodes = ResolveTarget(*target, table, seed);
  if (!nodes) return Error{nodes.error()};
  std::vector<std::string> hosts;
  for (const auto& name : *nodes) {
    const std::string& host = FindServiceNode(table, name)->host;
    if (std::find(hosts.begin(), hosts.end(), host) == hosts.end()) hosts.push_back(host);
  }
  return hosts;
}

std::string TextField(const nlohmann::json& value, const char* key, const char* fallback) {
  if (!value.is_object() || !value.contains(key)) return fallback;
  const auto& field = value.at(key);
  return field.is_string() ? field.get<std::string>() : fallback;
}

// Components named by node, as the hosts they run on.
Result<std::vector<std::vector<std::string>>> ComponentHosts(const nlohmann::json& components,
                                                             const NodeTable& table) {
  if (!components.is_array() || components.size() < 2) {
    return Error{"\"components\" must be a list of at least two lists of nodes"};
  }
  std::vector<std::vector<std::string>> out;
  std::set<std::string> seen;
  for (const auto& component : components) {
    if (!component.is_array() || component.empty()) {
      return Error{"each of \"components\" must be a non-empty list of nodes"};
    }
    std::vector<std::string> hosts;
    for (const auto& node : component) {
      const ServiceNode* found =
          node.is_string() ? FindServiceNode(table, node.get<std::string>()) : nullptr;
      if (found == nullptr) {
        return Error{"\"components\" names " + node.dump() + ", which is no node (nodes: " +
                     JoinNames(NodeNames(table)) + ")"};
      }
      if (std::find(hosts.begin(), hosts.end(), found->host) == hosts.end()) {
        hosts.push_back(found->host);
      }
    }
    for (const auto& h : hosts) {
      if (!seen.insert(h).second) return Error{"host " + h + " is in two components"};
    }
    out.push_back(std::move(hosts));
  }
  return out;
}

// {"except": C}: every client but the ones C picks (e.g. all but the
// holder, "$event.process" in a scripted step).
Result<std::vector<int>> ResolveAllBut(const nlohmann::json& clients, int concurrency,
                                       uint64_t seed) {
  if (clients.size() != 1 || !clients.contains("except")) {
    return Error{"a \"clients\" object is {\"except\": clients}, not " +
                 QuoteInput(clients.dump())};
  }
  nlohmann::json except = clients.at("except");
  if (except.is_number_integer()) except = nlohmann::json::array({except});  // one process
  auto left_out = ResolveClients(except, concurrency, seed);
  if (!left_out) return Error{left_out.error()};
  std::vector<int> rest;
  for (int c = 0; c < concurrency; ++c) {
    if (!std::binary_search(left_out->begin(), left_out->end(), c)) rest.push_back(c);
  }
  if (rest.empty()) return Error{"\"clients\" leaves every client out"};
  return rest;
}

// "partition: c5 cut from n1", or "partition (halves)" before the grudge is known.
std::string DescribePartition(const FaultOp& op) {
  if (op.value.is_object() && op.value.contains("grudge")) {
    return op.f + ": " + DescribeGrudge(GrudgeFromJson(op.value["grudge"]));
  }
  if (std::string shape = StringField(op.value, "shape"); !shape.empty()) {
    return op.f + " (" + shape + ")";
  }
  return op.f;
}

// A grudge as a run recorded it ({"n1": ["c7"], "c7": ["n1"]}), checked:
// every name a host of the table or a client of the run ("c3").
Result<Grudge> RecordedGrudge(const nlohmann::json& value, const std::vector<std::string>& hosts,
                              int concurrency) {
  const nlohmann::json recorded =
      value.is_object() && value.contains("grudge") ? value.at("grudge") : nlohmann::json();
  auto known = [&](const nlohmann::json& name) {
    if (!name.is_string()) return false;
    const std::string n = name.get<std::string>();
    if (std::find(hosts.begin(), hosts.end(), n) != hosts.end()) return true;
    return n.size() > 1 && n.size() < 8 && n[0] == 'c' &&
           std::all_of(n.begin() + 1, n.end(), [](unsigned char ch) { return std::isdigit(ch); }) &&
           std::stoi(n.substr(1)) < concurrency;
  };
  if (!recorded.is_object() || recorded.empty()) {
    return Error{"a grudge partition needs \"grudge\": {\"host\": [the hosts it drops], ...}"};
  }
  for (const auto& [from, dropped] : recorded.items()) {
    if (!known(from) || !dropped.is_array()) {
      return Error{"\"grudge\" names " + QuoteInput(from) + ", which is no host (hosts: " +
                   JoinNames(hosts) + ") nor client c0..c" + std::to_string(concurrency - 1)};
    }
    for (const auto& other : dropped) {
      if (!known(other)) {
        return Error{"\"grudge\": " + QuoteInput(from) + " drops " + other.dump() +
                     ", which is no host nor client"};
      }
    }
  }
  return GrudgeFromJson(recorded);
}

}  // namespace

const FaultLook kPartitionLook = {"partition", 30, "#ef6c00", DescribePartition};

Grudge GrudgeFromJson(const nlohmann::json& grudge) {
  Grudge out;
  if (!grudge.is_object()) return out;
  for (const auto& [host, dropped] : grudge.items()) {
    auto& set = out[host];
    if (!dropped.is_array()) continue;
    for (const auto& other : dropped) {
      if (other.is_string()) set.insert(other.get<std::string>());
    }
  }
  return out;
}

namespace {

std::string UnknownShapeText(const std::string& shape) {
  return "unknown partition shape " + QuoteInput(shape) + " (shapes: " +
         JoinNames(PartitionShapes()) + ", grudge)";
}

}  // namespace

std::vector<std::string> PartitionShapes() {
  return {"auto",      "isolate", "primary",    "halves",
          "majorities-ring", "bridge",  "one-way", "components", "clients-from-nodes"};
}

void PartitionOptions::Declare(OptionSet& set) {
  // "components" needs lists of nodes: scripted steps only.
  std::vector<std::string> shapes = PartitionShapes();
  std::erase(shapes, "components");
  set.Choice("partition_shape", "--partition-shape", &shape, shapes,
             "auto (isolate one host; with one host, cut clients off it), isolate, primary, "
             "halves, majorities-ring, bridge, one-way, clients-from-nodes");
  set.Text("partition_target", "--partition-target", &target, 256,
           ("hosts isolate cuts off: " + TargetChoices()).c_str());
  set.Text("partition_clients", "--partition-clients", &clients, 256,
           "clients clients-from-nodes cuts off: one, half, all, or worker indices 0,3");
  set.Text("partition_isolate_clients", "--partition-isolate-clients", &isolate_clients, 256,
           "under isolate and primary, the clients that stay with the isolated hosts (cut off "
           "from the others, which are cut off from the isolated hosts): none (every client "
           "reaches every host), one, half, all, or worker indices 0,3");
  set.Integer("partition_ms", "--partition-ms", &ms, int64_t{1}, int64_t{3'600'000},
              "ms a partition lasts before the heal, at most until the next window");
  set.Require([this]() -> Status {
    if (auto parsed = ParseTarget(target); !parsed) {
      return Error{"--partition-target: " + parsed.error()};
    }
    if (Status s = CheckClientsOption("--partition-clients", clients, false); !s) return s;
    return CheckClientsOption("--partition-isolate-clients", isolate_clients, true);
  });
}

WindowOps PartitionWindow(const PartitionOptions& options) {
  nlohmann::json value = {{"shape", options.shape}};
  if (options.shape == "auto" || options.shape == "isolate") value["target"] = options.target;
  if ((options.shape == "isolate" || options.shape == "primary") &&
      options.isolate_clients != "none") {
    value["clients"] = options.isolate_clients;
  }
  if (options.shape == "auto" || options.shape == "clients-from-nodes") {
    value["clients"] = options.clients;
  }
  return TimedWindow({"partition", std::move(value)}, {"heal", nullptr}, options.ms);
}

WindowOps PartitionWindowOf(const ModuleOptions& options) {
  return PartitionWindow(OptionsAs<PartitionOptions>(options));
}

Status CheckClientsOption(const std::string& flag, const std::string& text, bool none_allowed) {
  if (none_allowed && text == "none") return OkStatus();
  if (auto parsed = ResolveClients(text, kMaxRunClients, 0); !parsed) {
    return Error{flag + ": " + parsed.error()};
  }
  return OkStatus();
}

Result<std::vector<int>> ResolveClients(const nlohmann::json& clients, int concurrency,
                                        uint64_t seed) {
  std::set<int> picked;
  auto add = [&](int64_t index) -> Status {
    if (index < 0 || index >= concurrency) {
      return Error{"client " + std::to_string(index) + " is not one of the run's " +
                   std::to_string(concurrency) + " clients (0.." +
                   std::to_string(concurrency - 1) + ")"};
    }
    picked.insert(static_cast<int>(index));
    return OkStatus();
  };
  if (clients.is_object()) return ResolveAllBut(clients, concurrency, seed);
  if (clients.is_array()) {
    if (clients.empty()) return Error{"\"clients\" names no client"};
    for (const auto& c : clients) {
      // A number is a process of the history: its worker is process mod n.
      if (c.is_number_integer() && c.get<int64_t>() >= 0) {
        if (Status s = add(c.get<int64_t>() % concurrency); !s) return Error{s.error()};
      } else if (c.is_string() && c.get<std::string>().size() > 1 &&
                 c.get<std::string>()[0] == 'c') {
        auto nested = ResolveClients(c.get<std::string>().substr(1), concurrency, seed);
        if (!nested) return Error{nested.error()};
        picked.insert(nested->begin(), nested->end());
      } else {
        return Error{"\"clients\" entries are processes (numbers) or names c<index>, not " +
                     c.dump()};
      }
    }
    return std::vector<int>(picked.begin(), picked.end());
  }
  if (!clients.is_string()) return Error{"\"clients\" must be a list or a keyword"};
  const std::string text = clients.get<std::string>();
  std::vector<int> all(static_cast<size_t>(std::max(concurrency, 0)));
  for (int i = 0; i < concurrency; ++i) all[static_cast<size_t>(i)] = i;
  if (text == "all") return all;
  if (text == "one" || text == "half") {
    const size_t want = text == "one" ? 1 : std::max<size_t>(1, all.size() / 2);
    std::mt19937_64 rng(seed);
    // A partial Fisher-Yates by hand, so a seed picks the same clients with
    // any standard library.
    for (size_t i = 0; i < want && i < all.size(); ++i) {
      std::uniform_int_distribution<size_t> pick(i, all.size() - 1);
      std::swap(all[i], all[pick(rng)]);
    }
    all.resize(std::min(want, all.size()));
    std::sort(all.begin(), all.end());
    return all;
  }
  size_t start = 0;
  while (start <= text.size()) {
    size_t end = text.find(',', start);
    if (end == std::string::npos) end = text.size();
    const std::string part = text.substr(start, end - start);
    if (part.empty() || part.size() > 9 ||
        !std::all_of(part.begin(), part.end(), [](unsigned char ch) { return std::isdigit(ch); })) {
      return Error{"clients are one, half, all, or worker indices like 0,3; not " +
                   QuoteInput(text)};
    }
    if (Status s = add(std::stoll(part)); !s) return Error{s.error()};
    start = end + 1;
  }
  return std::vector<int>(picked.begin(), picked.end());
}

Result<Grudge> PartitionGrudge(const nlohmann::json& value, const NodeTable& table,
                               int concurrency, uint64_t seed) {
  const std::vector<std::string> hosts = TableHosts(table);
  std::string shape = TextField(value, "shape", "auto");
  if (shape == "grudge") return RecordedGrudge(value, hosts, concurrency);
  // auto's "clients" are its one-host case's (clients-from-nodes): on more
  // hosts it isolates one and every client still reaches every host.
  const bool auto_isolate = shape == "auto" && hosts.size() >= 2;
  if (shape == "auto") shape = auto_isolate ? "isolate" : "clients-from-nodes";
  Grudge grudge;
  if (shape == "isolate" || shape == "primary") {
    auto isolated =
        TargetHosts(shape == "primary" ? "primary" : TextField(value, "target", "one"), table,
                    seed);
    if (!isolated) return Error{isolated.error()};
    grudge = Isolate(hosts, *isolated);
    // Clients that go with the isolated hosts: each side's clients then
    // reach only their own side's hosts, as when a rack is cut off.
    const bool split = !auto_isolate && value.is_object() && value.contains("clients") &&
                       value.at("clients") != nlohmann::json("none");
    if (split) {
      if (concurrency <= 0) return Error{"the run has no clients to put with the isolated hosts"};
      auto with = ResolveClients(value.at("clients"), concurrency, SubSeed(seed, 1));
      if (!with) return Error{with.error()};
      std::vector<std::string> rest, with_names, other_names;
      for (const auto& h : hosts) {
        if (std::find(isolated->begin(), isolated->end(), h) == isolated->end()) rest.push_back(h);
      }
      for (int c = 0; c < concurrency; ++c) {
        const bool goes = std::binary_search(with->begin(), with->end(), c);
        (goes ? with_names : other_names).push_back("c" + std::to_string(c));
      }
      for (const auto& [from, dropped] : ClientsFromNodes(with_names, rest)) {
        grudge[from].insert(dropped.begin(), dropped.end());
      }
      for (const auto& [from, dropped] : ClientsFromNodes(other_names, *isolated)) {
        grudge[from].insert(dropped.begin(), dropped.end());
      }
    }
  } else if (shape == "halves") {
    grudge = Complete(RandomHalves(hosts, seed));
  } else if (shape == "majorities-ring") {
    grudge = MajoritiesRing(hosts, seed);
  } else if (shape == "bridge") {
    grudge = Bridge(hosts, seed);
  } else if (shape == "one-way") {
    grudge = OneWay(hosts, seed);
  } else if (shape == "components") {
    auto components = ComponentHosts(value.is_object() && value.contains("components")
                                         ? value.at("components")
                                         : nlohmann::json(),
                                     table);
    if (!components) return Error{components.error()};
    grudge = Complete(*components);
  } else if (shape == "clients-from-nodes") {
    if (concurrency <= 0) return Error{"the run has no clients to cut off"};
    const nlohmann::json clients =
        value.is_object() && value.contains("clients") ? value.at("clients") : "one";
    auto picked = ResolveClients(clients, concurrency, SubSeed(seed, 1));
    if (!picked) return Error{picked.error()};
    // "nodes": a target, or a list of node names (scripted steps' "$event.granted.I").
    std::string nodes = TextField(value, "nodes", "all");
    if (value.is_object() && value.contains("nodes") && value.at("nodes").is_array()) {
      nodes.clear();
      for (const auto& n : value.at("nodes")) {
        if (!n.is_string()) return Error{"\"nodes\" lists node names, not " + n.dump()};
        nodes += (nodes.empty() ? "" : ",") + n.get<std::string>();
      }
    }
    auto cut_from = TargetHosts(nodes, table, SubSeed(seed, 2));
    if (!cut_from) return Error{cut_from.error()};
    std::vector<std::string> names;
    for (int c : *picked) names.push_back("c" + std::to_string(c));
    grudge = ClientsFromNodes(names, *cut_from);
  } else {
    return Error{UnknownShapeText(shape)};
  }
  if (grudge.empty()) {
    return Error{"a " + shape + " partition of " + std::to_string(hosts.size()) +
                 " host(s) cuts nothing"};
  }
  return grudge;
}

std::string PartitionUnfit(const ModuleOptions&, const NemesisContext& context) {
  Cluster* cluster = context.cluster;
  const std::vector<Host*> hosts = cluster != nullptr ? cluster->Hosts() : std::vector<Host*>{};
  const bool networked = !hosts.empty() && std::all_of(hosts.begin(), hosts.end(), [](Host* h) {
    return h->HasOwnNetwork();
  });
  if (networked) return "";
  return "--nemesis partition needs hosts with networks of their own: run as root, without "
         "--loopback";
}

Result<std::unique_ptr<Nemesis>> MakePartitionNemesis(const ModuleOptions& options,
                                                      const NemesisContext& context) {
  if (std::string why = PartitionUnfit(options, context); !why.empty()) return Error{why};
  return NewPartitionNemesis(context, "part");
}

Result<std::unique_ptr<Nemesis>> NewPartitionNemesis(const NemesisContext& context,
                                                     const std::string& purpose) {
  Cluster* cluster = context.cluster;
  auto chain = ChainName(cluster->Tag(), purpose);
  if (!chain) return Error{chain.error()};
  std::vector<NetEndpoint> endpoints = ClusterEndpoints(*cluster, context.concurrency);
  LockService& service = context.service;
  // A client whose program runs on a host of its own (an external client)
  // is probed from there: replies to its address go to that host, so a
  // connect from the controller would time out with or without the cut.
  CutConnect connect = [cluster](const CutProbe& probe) {
    CutProbe from = probe;
    if (from.from.host == nullptr && from.from.name.size() > 1 && from.from.name[0] == 'c') {
      from.from.host = cluster->MadeClientHost(std::atoi(from.from.name.c_str() + 1));
    }
    // A SYN and its answer cross a test network in well under a
    // millisecond; a command on a host needs time to start.
    return ConnectAcross(from, std::chrono::milliseconds(from.from.host ? 500 : 300));
  };
  return std::unique_ptr<Nemesis>(new PartitionNemesis(
      [&service] { return service.Table(); }, context.concurrency, context.seed,
      std::make_unique<PartitionApplier>(*chain, endpoints), endpoints, std::move(connect)));
}

PartitionNemesis::PartitionNemesis(std::function<NodeTable()> table, int concurrency,
                                   uint64_t seed, std::unique_ptr<PartitionApplier> applier,
                                   std::vector<NetEndpoint> endpoints, CutConnect connect)
    : table_(std::move(table)),
      concurrency_(concurrency),
      seed_(seed),
      applier_(std::move(applier)),
      endpoints_(std::move(endpoints)),
      connect_(connect ? std::move(connect) : [](const CutProbe& probe) {
        // A SYN and its answer cross a test network in well under a
        // millisecond; a command on a host needs time to start.
        return ConnectAcross(probe, std::chrono::milliseconds(probe.from.host ? 500 : 300));
      }) {}

FaultResult PartitionNemesis::Invoke(const FaultOp& op) {
  if (op.f == "heal") {
    if (Status s = applier_->Heal(); !s) return {false, nullptr, s.error()};
    return {true, {{"healed", true}}, ""};
  }
  if (op.f != "partition") return {false, nullptr, "partition cannot " + op.f};
  auto grudge = PartitionGrudge(op.value, table_(), concurrency_, SubSeed(seed_, begun_++));
  if (!grudge) return {false, nullptr, grudge.error()};
  auto applied = applier_->Apply(*grudge);
  nlohmann::json value = {{"shape", op.value.is_object() && op.value.contains("shape")
                                        ? op.value.at("shape")
                                        : nlohmann::json("auto")},
                          {"grudge", *grudge}};
  if (!applied) return {false, std::move(value), applied.error()};
  value["rules"] = std::move(*applied);
  std::optional<CutCheck> check = CheckCut(*grudge, endpoints_, table_(), connect_);
  if (check) value["probe"] = check->seen;
  FaultResult result{true, std::move(value), ""};
  if (check) result.observed = check->cut;
  return result;
}

std::vector<HealFailure> PartitionNemesis::Teardown() {
  if (Status s = applier_->Teardown(); !s) return {{"heal", nullptr, s.error()}};
  return {};
}

}  // namespace locksmith
