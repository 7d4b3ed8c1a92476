// NetSlowNemesis (family `net-slow`): slow links, through relays of the
// harness's own (this kernel has no netem). "net-slow" puts a ToxicRelay
// (nemesis/toxic_relay.h) on every host whose links it slows and sends the
// links' new TCP connections there with REDIRECT rules in the host's own
// network, in the nat table, in a chain of the run's ("LSM-<tag>-slow",
// jumped to from OUTPUT and PREROUTING); no server or client configuration
// changes. The links are those a partition of the same value would cut:
// a connection a host opens to a peer is redirected where it is sent (the
// sender's OUTPUT, `-d peer`), and a client's (a client has no network of
// its own) where it arrives (the node's PREROUTING, `-s client`). The relay
// joins each connection to where it was going (SO_ORIGINAL_DST) and applies
// the toxics (nemesis/toxics.h) the value asks for:
//
//   {"shape", "target", "clients": as a partition's, or "shape": "into"
//    and "host": H (default "store", the protected resource's): every
//    connection the controller opens to H (the clients' to the resource),
//    "mode": "delay" | "stall" | "reset",
//    "direction": "both" | "upstream" | "downstream",
//    "latency_ms", "jitter_ms", "bandwidth_kbs"}
//
// Connections made before the rules would not pass a relay, so each host
// then aborts its own connections on the slow links (Host::AbortConnections,
// as a partition does): clients, replicas and peers connect again, through
// the relays. "net-slow-heal" clears the toxics (held bytes go at once);
// the rules stay, since removing a REDIRECT breaks the connections it sent
// to the relay: a healed link's connections pass its relay untouched until
// the teardown, which removes the rules, resets those connections and stops
// every relay (also after SIGINT; a crashed run's rules go with its
// namespaces under `locksmith cleanup`). A relay slows only the connections
// of the current window's links (by their addresses). The heal reads what the relays saw: the fault is observed when
// some connection passed a relay and had bytes delayed or was reset.
//
// Needs hosts whose network the controller can open sockets in (the local
// provider as root). Used from the nemesis thread; the relays run on a
// thread of the nemesis's own; Teardown afterwards from the run thread.
#pragma once

#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <set>
#include <string>
#include <thread>
#include <vector>

#include <boost/asio/executor_work_guard.hpp>
#include <boost/asio/io_context.hpp>

#include "base/option_set.h"
#include "nemesis/grudge.h"
#include "nemesis/link_selection.h"
#include "nemesis/nemesis_registry.h"
#include "nemesis/partition_applier.h"
#include "nemesis/schedule.h"
#include "nemesis/toxic_relay.h"

namespace locksmith {

// The links and window length are LinkSelection's (flags --slow-shape,
// --slow-target, --slow-clients, --slow-ms).
struct NetSlowOptions : LinkSelection {
  std::string mode = "delay";      // delay | stall | reset
  std::string direction = "both";  // both | upstream | downstream
  int64_t latency_ms = 500;
  int64_t jitter_ms = 0;
  int64_t bandwidth_kbs = 0;       // 0: no cap

  void Declare(OptionSet& set);
};

WindowOps NetSlowWindow(const NetSlowOptions& options);

Result<std::unique_ptr<Nemesis>> MakeNetSlowNemesis(const ModuleOptions& options,
                                                    const NemesisContext& context);
std::string NetSlowUnfit(const ModuleOptions& options, const NemesisContext& context);
WindowOps NetSlowWindowOf(const ModuleOptions& options);
extern const FaultLook kNetSlowLook;

// What one host's relay takes: new connections it opens to `to` (OUTPUT)
// and new connections `from` clients open to it (PREROUTING).
struct HostRedirects {
  std::set<std::string> to;
  std::set<std::string> from;

  bool operator==(const HostRedirects&) const = default;
};

// Per host name, the connections a grudge's links put through its relay
// (grudge[a] holding b: what b sends a is slowed, so b's connections to a
// are). A host's connections to a client are none (clients open them). An
// error names an endpoint the grudge uses that `endpoints` lacks. Pure.
Result<std::map<std::string, HostRedirects>> PlanRedirects(
    const Grudge& grudge, const std::vector<NetEndpoint>& endpoints);
// The iptables-restore text for one host: when `create`, `chain` of the nat
// table and the jumps to it from OUTPUT and PREROUTING; then the REDIRECTs
// to `port` appended (never a flush: see InstallRules); the relay's own
// connections (kRelayMark) pass.
std::string RedirectRules(const std::string& chain, const HostRedirects& redirects, int port,
                          bool create);
// The text that removes the nat chain and its jumps.
std::string RedirectRemovalRules(const std::string& chain);

class NetSlowNemesis : public Nemesis {
 public:
  NetSlowNemesis(std::function<NodeTable()> table, int concurrency, uint64_t seed,
                 std::string chain, std::vector<NetEndpoint> endpoints);
  ~NetSlowNemesis() override;

  std::vector<std::string> Faults() const override { return {"net-slow", "net-slow-heal"}; }
  FaultResult Invoke(const FaultOp& op) override;
  std::vector<HealFailure> Teardown() override;

 private:
  // The links a begin op's value slows: as a partition would cut them, or
  // {"shape": "into", "host": H} (default "store"): every connection the
  // controller opens to host H.
  struct SlowLinks {
    Grudge grudge;
    std::map<std::string, HostRedirects> plan;
  };
  Result<SlowLinks> LinksOf(const nlohmann::json& value);
  FaultResult Begin(const nlohmann::json& value);
  FaultResult Heal();
  Host* HostNamed(const std::string& name) const;
  // The relay's port on `host`, starting it when it has none.
  Result<int> RelayOn(Host& host);
  // Runs `work` on the relays' thread and waits for it.
  void OnRelayThread(const std::function<void()>& work);
  // The rules `plan` needs that are not in place yet.
  Status InstallRules(const std::map<std::string, HostRedirects>& plan);
  // What every relay saw so far.
  RelayCounts TotalCounts();

  const std::function<NodeTable()> table_;
  const int concurrency_;
  const uint64_t seed_;
  const std::string chain_;
  const std::vector<NetEndpoint> endpoints_;
  uint64_t begun_ = 0;
  boost::asio::io_context io_;
  boost::asio::executor_work_guard<boost::asio::io_context::executor_type> work_;
  std::thread thread_;
  std::map<std::string, std::unique_ptr<ToxicRelay>> relays_;  // by host; used on thread_
  std::map<std::string, int> ports_;                          // by host
  std::map<std::string, HostRedirects> redirected_;  // by host: the rules in place
  RelayCounts baseline_;  // the relays' counts when the slow window began
};

}  // namespace locksmith
