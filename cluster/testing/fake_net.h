// FakeNet (test-only): a NetOps that interprets the cluster's `ip` and
// `iptables` commands in memory instead of running them: which namespaces,
// links (bridges, veth pairs, loopback), addresses and firewall rules exist,
// and whether one namespace can reach another through the bridge given the
// DROP rules. Creation, teardown, cleanup and partitions are then
// unit-testable without root: "teardown leaves nothing" is Empty(), "the
// partition holds" is !Reachable(a, b).
//
// It follows the kernel where tests can tell: `netns add` brings a loopback
// link (down); deleting one end of a veth pair deletes both; deleting a
// namespace deletes its links, their veth peers and its rules; names are
// unique per namespace; a veth born with `peer ... netns NS` has its peer
// there. It understands the commands the harness runs and refuses anything
// else with an error naming it (so a new command gets a fake of its own
// instead of passing untested). nft: the controller's inet tables, added
// with their chains and rules and deleted whole. iptables: the filter table's INPUT, OUTPUT
// and FORWARD chains (policy ACCEPT), user chains (-N -X -F), rules
// appended, inserted, deleted and checked (-A -I -D -C) that match
// -s / -d (address or CIDR), optionally `-m statistic --mode random
// --probability P` (a rule that drops some packets: it never cuts a link),
// and jump (-j) to DROP, REJECT, ACCEPT, RETURN or a user chain;
// iptables-restore --noflush of such rules. Routes: the
// controller's `local` route of the clients' range on a bridge, and a
// namespace's route to it via a gateway (ReachableFrom); a route on a
// device and a permanent neighbour entry (a client host's) are accepted.
//
// Any command can be made to fail (FailCommand), to test that a partial
// setup cleans up. Thread-safe (one mutex).
#pragma once

#include <algorithm>
#include <cctype>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <map>
#include <mutex>
#include <optional>
#include <set>
#include <sstream>
#include <string>
#include <vector>

#include "cluster/net_ops.h"

namespace locksmith::testing {

class FakeNet : public NetOps {
 public:
  // The controller's own namespace, for Reachable() and Links().
  static constexpr const char* kRoot = "";

  // --- NetOps.
  Status Ip(const std::vector<std::string>& args) override {
    std::lock_guard lock(mu_);
    const std::string cmd = Join("ip", args);
    commands_.push_back(cmd);
    if (auto e = TakeFailure(cmd)) return Failed(cmd, *e);
    std::string error = RunIp(args);
    return error.empty() ? OkStatus() : Failed(cmd, error);
  }
  // `iptables-restore --noflush` of `text` inside `netns`: "*filter" and
  // "COMMIT" frame it; ":CHAIN - [0:0]" creates a user chain or flushes it
  // (as the real one does without flushing the table); every other line is
  // an iptables command. All or nothing, as in the kernel.
  Status IptablesRestore(const std::string& netns, const std::string& text) {
    std::lock_guard lock(mu_);
    const std::string cmd = "ip netns exec " + netns + " iptables-restore --noflush";
    commands_.push_back(cmd);
    if (auto e = TakeFailure(cmd)) return Failed(cmd, *e);
    auto ns = namespaces_.find(netns);
    if (netns.empty() || ns == namespaces_.end()) return Error{"iptables-restore: no namespace"};
    Namespace saved = ns->second;
    size_t start = 0, line_no = 0;
    bool framed = false, committed = false;
    while (start < text.size()) {
      size_t end = text.find('\n', start);
      if (end == std::string::npos) end = text.size();
      const std::string line = text.substr(start, end - start);
      start = end + 1;
      ++line_no;
      std::string error;
      if (line.empty() || line[0] == '#') continue;
      if (line == "*filter") {
        framed = true;
      } else if (line == "COMMIT") {
        committed = framed;
      } else if (!framed || committed) {
        error = "rule outside a *filter ... COMMIT block";
      } else if (line[0] == ':') {
        const std::string chain = line.substr(1, line.find(' ') - 1);
        if (!IsBuiltinChain(chain)) ns->second.chains[chain].clear();
      } else {
        std::vector<std::string> args;
        size_t a = 0;
        while (a < line.size()) {
          size_t b = line.find(' ', a);
          if (b == std::string::npos) b = line.size();
          if (b > a) args.push_back(line.substr(a, b - a));
          a = b + 1;
        }
        error = RunIptables(ns->second, args);
      }
      if (!error.empty()) {
        ns->second = saved;
        return Error{"iptables-restore: line " + std::to_string(line_no) + " failed: " + error};
      }
    }
    if (!committed) {
      ns->second = saved;
      return Error{"iptables-restore: no COMMIT"};
    }
    return OkStatus();
  }

  Status Iptables(const std::string& netns, const std::vector<std::string>& args) override {
    std::lock_guard lock(mu_);
    const std::string cmd = Join("ip netns exec " + netns + " iptables", args);
    commands_.push_back(cmd);
    if (netns.empty()) return Error{"iptables in the controller's own namespace is refused"};
    if (auto e = TakeFailure(cmd)) return Failed(cmd, *e);
    auto ns = namespaces_.find(netns);
    if (ns == namespaces_.end()) {
      return Failed(cmd, "Cannot open network namespace \"" + netns + "\"");
    }
    std::string error = RunIptables(ns->second, args);
    return error.empty() ? OkStatus() : Failed(cmd, error);
  }
  // nft: one argument or several, commands separated by ';', as one
  // transaction: `add table inet T`, `add chain inet T ...` and `add rule
  // inet T ...` (T must exist by then), `delete table inet T`.
  Status Nft(const std::vector<std::string>& args) override {
    std::lock_guard lock(mu_);
    const std::string cmd = Join("nft", args);
    commands_.push_back(cmd);
    if (auto e = TakeFailure(cmd)) return Failed(cmd, *e);
    std::set<std::string> tables = tables_;
    // Commands end at a ';' outside braces (a chain's `{ type ... ; }`).
    std::vector<std::string> commands(1);
    int depth = 0;
    for (char c : Join("", args)) {
      depth += (c == '{') - (c == '}');
      if (c == ';' && depth == 0) {
        commands.emplace_back();
      } else {
        commands.back() += c;
      }
    }
    for (const std::string& command : commands) {
      std::istringstream words(command);
      std::string verb, object, family, table;
      words >> verb >> object >> family >> table;
      if (verb.empty()) continue;
      if (family != "inet" || (object != "table" && object != "chain" && object != "rule")) {
        return Failed(cmd, "FakeNet does not understand this nft command");
      }
      if (verb == "add" && object == "table") {
        tables.insert(table);
      } else if (verb == "add" && tables.contains(table)) {
        continue;  // a chain or rule of an existing table
      } else if (verb == "delete" && object == "table" && tables.erase(table) == 1) {
        continue;
      } else {
        return Failed(cmd, "No such file or directory: table inet " + table);
      }
    }
    tables_ = std::move(tables);
    return OkStatus();
  }
  std::vector<std::string> ListInetTables() override {
    std::lock_guard lock(mu_);
    return {tables_.begin(), tables_.end()};
  }
  bool NetnsExists(const std::string& name) override {
    std::lock_guard lock(mu_);
    return !name.empty() && namespaces_.contains(name);
  }
  bool LinkExists(const std::string& name) override {
    std::lock_guard lock(mu_);
    return namespaces_[kRoot].links.contains(name);
  }
  std::vector<std::string> ListNetns() override {
    std::lock_guard lock(mu_);
    std::vector<std::string> names;
    for (const auto& [name, ns] : namespaces_) {
      if (!name.empty()) names.push_back(name);
    }
    return names;
  }
  std::vector<std::string> ListLinks() override { return Links(kRoot); }
  std::set<std::string> Addresses() override {
    std::lock_guard lock(mu_);
    std::set<std::string> addresses;
    for (const auto& [name, link] : namespaces_[kRoot].links) {
      for (const auto& a : link.addresses) addresses.insert(a.substr(0, a.find('/')));
    }
    return addresses;
  }

  // --- Test controls.
  // Puts namespace `netns` on `bridge` (made, up, with `bridge_address`/28,
  // if missing) directly, as a cluster's setup would: a veth pair
  // "v-<netns>" (controller side, enslaved) / "eth0" (inside, `address`/28),
  // everything up. For fakes of whole clusters (FakeCluster); code under
  // test builds its network with Ip().
  void AddHost(const std::string& bridge, const std::string& bridge_address,
               const std::string& netns, const std::string& address) {
    std::lock_guard lock(mu_);
    Namespace& root = namespaces_[kRoot];
    if (!root.links.contains(bridge)) {
      root.links[bridge] = {"bridge", "", "", "", true, {bridge_address + "/28"}};
    }
    Namespace& ns = namespaces_[netns];
    ns.links["lo"] = {"loopback", "", "", "", true, {"127.0.0.1/8"}};
    ns.links["eth0"] = {"veth", kRoot, "v-" + netns, "", true, {address + "/28"}};
    root.links["v-" + netns] = {"veth", netns, "eth0", bridge, true, {}};
  }
  // Gives a bridge's hosts the clients' range `network` as LocalCluster
  // does: local on the bridge, routed back there by each namespace.
  void AddClientRange(const std::string& bridge, const std::string& bridge_address,
                      const std::vector<std::string>& netns, const std::string& network) {
    std::lock_guard lock(mu_);
    namespaces_[kRoot].routes.push_back({network, "", bridge, true});
    for (const auto& ns : netns) {
      namespaces_[ns].routes.push_back({network, bridge_address, "", false});
    }
  }
  // The next `times` commands (ip or iptables, as "ip ..." / "ip netns exec
  // NS iptables ...") containing `text` fail without effect (times < 0: all).
  void FailCommand(std::string text, int times = 1) {
    std::lock_guard lock(mu_);
    failures_.push_back({std::move(text), times});
  }

  // --- What exists.
  // Every command run, in order, as text.
  std::vector<std::string> commands() const {
    std::lock_guard lock(mu_);
    return commands_;
  }
  // Link names of a namespace (kRoot: the controller's), sorted.
  std::vector<std::string> Links(const std::string& netns) {
    std::lock_guard lock(mu_);
    std::vector<std::string> names;
    auto ns = namespaces_.find(netns);
    if (ns == namespaces_.end()) return names;
    for (const auto& [name, link] : ns->second.links) names.push_back(name);
    return names;
  }
  // Rules of `chain` in `netns`, each as "-s A -d B -j T" (only the parts
  // it has); nullopt when there is no such chain.
  std::optional<std::vector<std::string>> Rules(const std::string& netns,
                                                const std::string& chain) {
    std::lock_guard lock(mu_);
    auto ns = namespaces_.find(netns);
    if (ns == namespaces_.end() || !ns->second.chains.contains(chain)) return std::nullopt;
    std::vector<std::string> rules;
    for (const Rule& r : ns->second.chains.at(chain)) rules.push_back(r.Text());
    return rules;
  }
  // True when nothing the harness creates exists: no namespace, and the
  // controller's namespace has no links (the fake starts with none).
  bool Empty() { return Describe().empty(); }
  // What exists, one line per object ("netns X", "link X", "link X in
  // NS", "rule NS CHAIN SPEC", "chain NS C"), for assertion messages.
  std::vector<std::string> Describe() {
    std::lock_guard lock(mu_);
    std::vector<std::string> out;
    for (const auto& table : tables_) out.push_back("nft table inet " + table);
    for (const auto& [name, ns] : namespaces_) {
      if (!name.empty()) out.push_back("netns " + name);
      for (const auto& [link, l] : ns.links) {
        if (!name.empty() && link == "lo") continue;  // goes with its namespace
        out.push_back("link " + link + (name.empty() ? "" : " in " + name));
      }
      // A namespace's routes go with it; the controller's must be removed.
      if (name.empty()) {
        for (const Route& r : ns.routes) out.push_back("route " + r.network + " dev " + r.dev);
      }
      for (const auto& [chain, rules] : ns.chains) {
        if (!IsBuiltinChain(chain)) out.push_back("chain " + name + " " + chain);
        for (const Rule& r : rules) out.push_back("rule " + name + " " + chain + " " + r.Text());
      }
    }
    return out;
  }

  // Whether a client of the controller bound to `address` (a local route of
  // the controller's on a bridge) can connect to namespace `to` on that
  // bridge: `to` routes the address back, and neither side's rules drop the
  // request or the reply.
  bool ReachableFrom(const std::string& address, const std::string& to) {
    std::lock_guard lock(mu_);
    std::optional<Attachment> b = AttachmentOf(to);
    if (!b) return false;
    const auto& root = namespaces_[kRoot];
    const bool local = std::any_of(root.routes.begin(), root.routes.end(), [&](const Route& r) {
      return r.local && r.dev == b->bridge && Matches(r.network, address);
    });
    const auto& target = namespaces_[to].routes;
    const bool routed = std::any_of(target.begin(), target.end(), [&](const Route& r) {
      return !r.local && Matches(r.network, address);
    });
    return local && routed && Passes(to, "INPUT", address, b->address) &&
           Passes(to, "OUTPUT", b->address, address);
  }

  // Whether a TCP connection from namespace `from` to namespace `to`
  // (kRoot: the controller) can be set up: both are attached to one bridge
  // that is up (veth ends up with an address in the node, the host end up
  // and enslaved to it; the controller through the bridge's own address),
  // and packets pass both ways: from's OUTPUT and to's INPUT for the
  // request, to's OUTPUT and from's INPUT for the reply.
  bool Reachable(const std::string& from, const std::string& to) {
    std::lock_guard lock(mu_);
    if (from == to) return namespaces_.contains(from);
    std::optional<Attachment> a = from.empty() ? std::nullopt : AttachmentOf(from);
    std::optional<Attachment> b = to.empty() ? std::nullopt : AttachmentOf(to);
    if (!from.empty() && !a) return false;
    if (!to.empty() && !b) return false;
    if (from.empty()) a = BridgeAttachment(b->bridge);
    if (to.empty()) b = BridgeAttachment(a->bridge);
    if (!a || !b || a->bridge != b->bridge) return false;
    return Passes(from, "OUTPUT", a->address, b->address) &&
           Passes(to, "INPUT", a->address, b->address) &&
           Passes(to, "OUTPUT", b->address, a->address) &&
           Passes(from, "INPUT", b->address, a->address);
  }

 private:
  struct Link {
    std::string kind;  // "loopback", "bridge", "veth"
    std::string peer_netns, peer;  // veth only
    std::string master;
    bool up = false;
    std::vector<std::string> addresses;  // "a.b.c.d/prefix"
  };
  struct Rule {
    std::string source, destination, target;
    std::string probability;  // the statistic match's; empty: every packet
    bool operator==(const Rule&) const = default;
    std::string Text() const {
      std::string t;
      if (!source.empty()) t += "-s " + source + " ";
      if (!destination.empty()) t += "-d " + destination + " ";
      if (!probability.empty()) t += "-m statistic --mode random --probability " + probability + " ";
      return t + "-j " + target;
    }
  };
  struct Route {
    std::string network;  // "a.b.c.d/prefix"
    std::string via;      // gateway; empty for a local route
    std::string dev;      // local routes: the link it is on
    bool local = false;
  };
  struct Namespace {
    std::map<std::string, Link> links;
    std::vector<Route> routes;
    std::map<std::string, std::vector<Rule>> chains = {
        {"FORWARD", {}}, {"INPUT", {}}, {"OUTPUT", {}}};
  };
  struct Attachment {
    std::string bridge;   // in the controller's namespace
    std::string address;  // dotted, no prefix
  };
  struct Failure {
    std::string text;
    int times;
  };
  enum class Verdict { kNone, kAccept, kDrop };

  static std::string Join(std::string head, const std::vector<std::string>& args) {
    for (const auto& a : args) head += " " + a;
    return head;
  }
  static Status Failed(const std::string& cmd, const std::string& message) {
    return Error{"'" + cmd + "' failed with exit code 1: " + message};
  }
  static bool IsBuiltinChain(const std::string& chain) {
    return chain == "INPUT" || chain == "OUTPUT" || chain == "FORWARD";
  }
  static bool IsVerdict(const std::string& target) {
    return target == "DROP" || target == "REJECT" || target == "ACCEPT" || target == "RETURN";
  }
  // "a.b.c.d" as a number; nullopt when not an IPv4 address.
  static std::optional<uint32_t> ParseIpv4(const std::string& text) {
    unsigned a, b, c, d;
    char tail;
    if (std::sscanf(text.c_str(), "%u.%u.%u.%u%c", &a, &b, &c, &d, &tail) != 4) return std::nullopt;
    if (a > 255 || b > 255 || c > 255 || d > 255) return std::nullopt;
    return (a << 24) | (b << 16) | (c << 8) | d;
  }
  // True when `address` lies in `spec` (an address or "address/prefix").
  static bool Matches(const std::string& spec, const std::string& address) {
    const size_t slash = spec.find('/');
    const int prefix = slash == std::string::npos ? 32 : std::stoi(spec.substr(slash + 1));
    auto net = ParseIpv4(spec.substr(0, slash));
    auto addr = ParseIpv4(address);
    if (!net || !addr) return false;
    const uint32_t mask = prefix == 0 ? 0 : ~uint32_t{0} << (32 - prefix);
    return (*net & mask) == (*addr & mask);
  }
  static bool ValidAddressSpec(const std::string& spec) {
    const size_t slash = spec.find('/');
    if (!ParseIpv4(spec.substr(0, slash))) return false;
    if (slash == std::string::npos) return true;
    const std::string prefix = spec.substr(slash + 1);
    return !prefix.empty() && prefix.size() <= 2 &&
           std::all_of(prefix.begin(), prefix.end(), ::isdigit) && std::stoi(prefix) <= 32;
  }

  // Requires mu_.
  std::optional<std::string> TakeFailure(const std::string& cmd) {
    for (auto it = failures_.begin(); it != failures_.end(); ++it) {
      if (cmd.find(it->text) == std::string::npos) continue;
      if (it->times > 0 && --it->times == 0) failures_.erase(it);
      return "injected failure";
    }
    return std::nullopt;
  }

  // Requires mu_. Deletes a link and, for a veth, its peer.
  void DeleteLink(Namespace& ns, const std::string& name) {
    auto it = ns.links.find(name);
    if (it == ns.links.end()) return;
    Link link = it->second;
    ns.links.erase(it);
    std::erase_if(ns.routes, [&](const Route& r) { return r.dev == name; });
    if (link.kind == "bridge") {
      for (auto& [port_name, port] : ns.links) {
        if (port.master == name) port.master.clear();
      }
    }
    if (link.kind == "veth") {
      auto peer_ns = namespaces_.find(link.peer_netns);
      if (peer_ns != namespaces_.end()) DeleteLink(peer_ns->second, link.peer);
    }
  }

  // Requires mu_. The error output of `ip args`, or "" on success.
  std::string RunIp(std::vector<std::string> args) {
    std::string netns = kRoot;
    if (args.size() >= 2 && args[0] == "-n") {
      netns = args[1];
      args.erase(args.begin(), args.begin() + 2);
      if (!namespaces_.contains(netns) || netns.empty()) {
        return "Cannot open network namespace \"" + netns + "\": No such file or directory";
      }
    }
    Namespace& ns = namespaces_[netns];
    auto is = [&](std::initializer_list<const char*> words) {
      if (args.size() < words.size()) return false;
      size_t i = 0;
      for (const char* w : words) {
        if (args[i++] != w) return false;
      }
      return true;
    };
    if (netns.empty() && args.size() == 3 && is({"netns", "add"})) {
      if (namespaces_.contains(args[2])) {
        return "Cannot create namespace file \"/var/run/netns/" + args[2] + "\": File exists";
      }
      namespaces_[args[2]].links["lo"] = {"loopback", "", "", "", false, {"127.0.0.1/8"}};
      return "";
    }
    if (netns.empty() && args.size() == 3 && is({"netns", "del"})) {
      auto it = namespaces_.find(args[2]);
      if (args[2].empty() || it == namespaces_.end()) {
        return "Cannot remove namespace file \"/var/run/netns/" + args[2] +
               "\": No such file or directory";
      }
      std::vector<std::string> links;
      for (const auto& [name, link] : it->second.links) links.push_back(name);
      for (const auto& name : links) DeleteLink(namespaces_[args[2]], name);
      namespaces_.erase(args[2]);
      return "";
    }
    if (args.size() == 5 && is({"link", "add"}) && args[3] == "type" && args[4] == "bridge") {
      if (ns.links.contains(args[2])) return "RTNETLINK answers: File exists";
      ns.links[args[2]] = {"bridge"};
      return "";
    }
    // A peer's `address MAC` (a client host's veth) is accepted and not kept.
    if (args.size() == 12 && is({"link", "add"}) && args[8] == "address") {
      args.erase(args.begin() + 8, args.begin() + 10);
    }
    if ((args.size() == 8 || args.size() == 10) && is({"link", "add"}) && args[3] == "type" &&
        args[4] == "veth" && args[5] == "peer" && args[6] == "name" &&
        (args.size() == 8 || args[8] == "netns")) {
      const std::string peer_netns = args.size() == 10 ? args[9] : netns;
      if (!namespaces_.contains(peer_netns)) {
        return "Invalid \"netns\" value \"" + peer_netns + "\"";
      }
      Namespace& peer_ns = namespaces_[peer_netns];
      if (ns.links.contains(args[2]) || peer_ns.links.contains(args[7]) || args[2] == args[7]) {
        return "RTNETLINK answers: File exists";
      }
      ns.links[args[2]] = {"veth", peer_netns, args[7]};
      peer_ns.links[args[7]] = {"veth", netns, args[2]};
      return "";
    }
    if (args.size() >= 4 && is({"link", "set"})) {
      auto it = ns.links.find(args[2]);
      if (it == ns.links.end()) return "Cannot find device \"" + args[2] + "\"";
      Link changed = it->second;
      for (size_t i = 3; i < args.size(); ++i) {
        if (args[i] == "up" || args[i] == "down") {
          changed.up = args[i] == "up";
        } else if (args[i] == "master" && i + 1 < args.size()) {
          auto master = ns.links.find(args[++i]);
          if (master == ns.links.end() || master->second.kind != "bridge") {
            return "Cannot find device \"" + args[i] + "\"";
          }
          changed.master = args[i];
        } else {
          return "FakeNet does not understand 'ip link set' argument '" + args[i] + "'";
        }
      }
      it->second = changed;
      return "";
    }
    if (netns.empty() && args.size() == 6 && is({"route", "add", "local"}) && args[4] == "dev") {
      if (!ValidAddressSpec(args[3])) return "Error: inet prefix is expected";
      if (!ns.links.contains(args[5])) return "Cannot find device \"" + args[5] + "\"";
      ns.routes.push_back({args[3], "", args[5], true});
      return "";
    }
    if (args.size() == 5 && is({"route", "add"}) && args[3] == "via") {
      if (!ValidAddressSpec(args[2])) return "Error: inet prefix is expected";
      ns.routes.push_back({args[2], args[4], "", false});
      return "";
    }
    if (args.size() == 5 && is({"route", "add"}) && args[3] == "dev") {
      if (!ValidAddressSpec(args[2])) return "Error: inet prefix is expected";
      if (!ns.links.contains(args[4])) return "Cannot find device \"" + args[4] + "\"";
      ns.routes.push_back({args[2], "", args[4], false});
      return "";
    }
    if (args.size() == 9 && is({"neigh", "replace"}) && args[3] == "lladdr" && args[5] == "dev" &&
        args[7] == "nud" && args[8] == "permanent") {
      if (!ParseIpv4(args[2])) return "Error: inet address is expected";
      if (!ns.links.contains(args[6])) return "Cannot find device \"" + args[6] + "\"";
      return "";
    }
    if (args.size() == 3 && is({"link", "del"})) {
      if (!ns.links.contains(args[2])) return "Cannot find device \"" + args[2] + "\"";
      DeleteLink(ns, args[2]);
      return "";
    }
    if (args.size() == 5 && is({"addr", "add"}) && args[3] == "dev") {
      auto it = ns.links.find(args[4]);
      if (it == ns.links.end()) return "Cannot find device \"" + args[4] + "\"";
      if (!ValidAddressSpec(args[2])) return "Error: any valid prefix is expected rather than \"" +
                                             args[2] + "\".";
      auto& addresses = it->second.addresses;
      if (std::find(addresses.begin(), addresses.end(), args[2]) != addresses.end()) {
        return "RTNETLINK answers: File exists";
      }
      addresses.push_back(args[2]);
      return "";
    }
    return "FakeNet does not understand this ip command";
  }

  // Requires mu_. The error output of `iptables args` in `ns`, or "".
  std::string RunIptables(Namespace& ns, std::vector<std::string> args) {
    std::erase_if(args, [](const std::string& a) { return a == "-w" || a == "--wait"; });
    if (args.size() >= 2 && args[0] == "-t") {
      if (args[1] != "filter") return "FakeNet knows only the filter table";
      args.erase(args.begin(), args.begin() + 2);
    }
    if (args.empty()) return "no command specified";
    const std::string op = args[0];
    const std::string chain = args.size() > 1 ? args[1] : "";
    auto chain_it = ns.chains.find(chain);
    if (op == "-N" && args.size() == 2) {
      if (chain_it != ns.chains.end()) return "iptables: Chain already exists.";
      ns.chains[chain];
      return "";
    }
    if (op == "-X" && args.size() == 2) {
      if (chain_it == ns.chains.end() || IsBuiltinChain(chain)) {
        return "iptables: No chain/target/match by that name.";
      }
      if (!chain_it->second.empty()) return "iptables: Directory not empty.";
      for (const auto& [name, rules] : ns.chains) {
        for (const Rule& r : rules) {
          if (r.target == chain) return "iptables: Too many links.";
        }
      }
      ns.chains.erase(chain_it);
      return "";
    }
    if (op == "-F" && args.size() == 2) {
      if (chain_it == ns.chains.end()) return "iptables: No chain/target/match by that name.";
      chain_it->second.clear();
      return "";
    }
    if (op != "-A" && op != "-I" && op != "-D" && op != "-C") {
      return "FakeNet does not understand iptables command '" + Join("", args).substr(1) + "'";
    }
    if (chain_it == ns.chains.end()) return "iptables: No chain/target/match by that name.";
    size_t i = 2;
    size_t position = 1;  // -I: 1-based
    if (op == "-I" && i < args.size() && ParseCount(args[i])) position = *ParseCount(args[i++]);
    Rule rule;
    for (; i < args.size(); ++i) {
      const std::string& flag = args[i];
      if (i + 1 >= args.size()) return "option \"" + flag + "\" requires an argument";
      const std::string& value = args[++i];
      if (flag == "-s" || flag == "--source" || flag == "-d" || flag == "--destination") {
        if (!ValidAddressSpec(value)) return "host/network `" + value + "' not found";
        (flag[1] == 's' || flag == "--source" ? rule.source : rule.destination) = value;
      } else if (flag == "-m" || flag == "--match") {
        if (value != "statistic") return "FakeNet knows only the statistic match";
      } else if (flag == "--mode") {
        if (value != "random") return "FakeNet knows only the statistic match's random mode";
      } else if (flag == "--probability") {
        char* end = nullptr;
        const double p = std::strtod(value.c_str(), &end);
        if (end == value.c_str() || *end != '\0' || !(p >= 0.0 && p <= 1.0)) {
          return "iptables v1.8.9: probability `" + value + "' is invalid";
        }
        rule.probability = value;
      } else if (flag == "-j" || flag == "--jump") {
        if (!IsVerdict(value) && (!ns.chains.contains(value) || IsBuiltinChain(value))) {
          return "iptables: No chain/target/match by that name.";
        }
        rule.target = value;
      } else {
        return "FakeNet does not understand iptables option '" + flag + "'";
      }
    }
    if (rule.target.empty()) return "FakeNet needs a -j target on every rule";
    std::vector<Rule>& rules = chain_it->second;
    auto found = std::find(rules.begin(), rules.end(), rule);
    if (op == "-A") rules.push_back(rule);
    if (op == "-I") {
      if (position > rules.size() + 1) return "iptables: Index of insertion too big.";
      rules.insert(rules.begin() + static_cast<std::ptrdiff_t>(position - 1), rule);
    }
    if (op == "-D" || op == "-C") {
      if (found == rules.end()) {
        return "iptables: Bad rule (does a matching rule exist in that chain?).";
      }
      if (op == "-D") rules.erase(found);
    }
    return "";
  }
  static std::optional<size_t> ParseCount(const std::string& s) {
    if (s.empty() || s.size() > 6 || !std::all_of(s.begin(), s.end(), ::isdigit)) {
      return std::nullopt;
    }
    const size_t n = std::stoul(s);
    return n == 0 ? std::nullopt : std::optional<size_t>(n);
  }

  // Requires mu_. How namespace `netns` reaches the bridge: its first veth
  // that is up with an address, whose peer is up in the controller's
  // namespace and enslaved to a bridge that is up.
  std::optional<Attachment> AttachmentOf(const std::string& netns) {
    auto ns = namespaces_.find(netns);
    if (ns == namespaces_.end()) return std::nullopt;
    Namespace& root = namespaces_[kRoot];
    for (const auto& [name, link] : ns->second.links) {
      if (link.kind != "veth" || !link.up || link.addresses.empty() || !link.peer_netns.empty()) {
        continue;
      }
      auto peer = root.links.find(link.peer);
      if (peer == root.links.end() || !peer->second.up || peer->second.master.empty()) continue;
      auto bridge = root.links.find(peer->second.master);
      if (bridge == root.links.end() || !bridge->second.up) continue;
      const std::string& a = link.addresses.front();
      return Attachment{bridge->first, a.substr(0, a.find('/'))};
    }
    return std::nullopt;
  }
  // Requires mu_. The controller on `bridge`: the bridge's own address.
  std::optional<Attachment> BridgeAttachment(const std::string& bridge) {
    auto& links = namespaces_[kRoot].links;
    auto it = links.find(bridge);
    if (it == links.end() || !it->second.up || it->second.addresses.empty()) return std::nullopt;
    const std::string& a = it->second.addresses.front();
    return Attachment{bridge, a.substr(0, a.find('/'))};
  }
  // Requires mu_. Whether a packet source -> destination passes `chain` of
  // `netns` (the controller's firewall is never touched: always passes).
  bool Passes(const std::string& netns, const std::string& chain, const std::string& source,
              const std::string& destination) {
    if (netns.empty()) return true;
    return Evaluate(namespaces_[netns], chain, source, destination, 0) != Verdict::kDrop;
  }
  Verdict Evaluate(Namespace& ns, const std::string& chain, const std::string& source,
                   const std::string& destination, int depth) {
    if (depth > 32) return Verdict::kDrop;  // iptables refuses loops; never reached
    for (const Rule& r : ns.chains[chain]) {
      if (!r.source.empty() && !Matches(r.source, source)) continue;
      if (!r.destination.empty() && !Matches(r.destination, destination)) continue;
      if (!r.probability.empty()) continue;  // some packets pass: the link is not cut
      if (r.target == "DROP" || r.target == "REJECT") return Verdict::kDrop;
      if (r.target == "ACCEPT") return Verdict::kAccept;
      if (r.target == "RETURN") return Verdict::kNone;
      if (Verdict v = Evaluate(ns, r.target, source, destination, depth + 1); v != Verdict::kNone) {
        return v;
      }
    }
    return Verdict::kNone;
  }

  mutable std::mutex mu_;
  std::map<std::string, Namespace> namespaces_ = {{kRoot, {}}};  // kRoot: the controller's
  std::vector<Failure> failures_;
  std::vector<std::string> commands_;
  std::set<std::string> tables_;  // nftables tables of family inet, the controller's
};

}  // namespace locksmith::testing
