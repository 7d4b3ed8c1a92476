// PartitionApplier: the one place that turns a grudge (nemesis/grudge.h)
// into firewall rules on the test hosts and takes them away again. Every
// rule lives inside a node host's own network (its namespace), in a chain
// of the run's ("LSM-<tag>-part") jumped to from INPUT and OUTPUT; the
// controller's firewall is never touched. A node that drops what an
// endpoint sends gets `-s <its address> -j DROP`; a client that drops what a
// node sends is served by the node: `-d <client address> -j DROP` there, so
// a client can be cut off alone while the others still reach the node.
//
// Rules are stateless DROPs, so they stop packets of connections that are
// already established too; on top of that, each cut host aborts its own
// sockets to the peers it was cut from (Host::AbortConnections: what
// `ss -K` does, on local hosts in-process through sock_diag with no command
// to start), so a connection does not simply resume after the heal as if
// nothing happened (Jepsen's partitions leave established connections
// alive). Each host gets its whole rule set in one `iptables-restore
// --noflush -w` of a file written to its directory (one command per host,
// waiting for the xtables lock), the hosts in parallel. Starting commands
// dominates the cost (on a loaded machine a process start takes tens of
// ms of wall time), so apply runs one command per cut host and heal one per
// host with rules; scripts/bench-partition.sh measures both.
//
// The same machinery makes lossy links (the net-loss family): a CutStyle
// that places each rule on the sending side where a host sends, gives every
// DROP iptables' statistic match (`-m statistic --mode random --probability
// P`), and leaves connections alone; DroppedPackets reads the DROP rules'
// packet counters back, to observe the loss.
//
// Thread-safe: one mutex serialises Apply, Heal and Teardown, so two faults
// never interleave their rules.
#pragma once

#include <map>
#include <mutex>
#include <set>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "base/result.h"
#include "cluster/host.h"
#include "nemesis/grudge.h"

namespace locksmith {

// Something a grudge names: a host (named as its Host) or a lock client
// ("c<index>"), and the address its packets carry.
struct NetEndpoint {
  std::string name;
  std::string address;
  Host* host = nullptr;  // the endpoint's own host; null for a client
};

// Every host of `cluster` and its first `clients` lock clients ("c0", ...,
// at Cluster::ClientAddress): what a network fault's grudges may name.
std::vector<NetEndpoint> ClusterEndpoints(Cluster& cluster, int clients);

// What one host must do for a grudge (pure data, see PlanCuts).
struct HostCut {
  std::set<std::string> drop_from;  // addresses whose packets it drops on the way in
  std::set<std::string> drop_to;    // addresses it drops its own packets to
  std::set<std::string> peers;      // addresses of everyone it was cut from, either way

  bool operator==(const HostCut&) const = default;
};

// Where a cut's rules go and what else it does.
struct CutStyle {
  // false: the receiving host drops on the way in (a client, which has no
  // firewall of its own, is served by the node, on the way out); true: the
  // sending host drops on the way out, and a client's packets are dropped by
  // the node on the way in.
  bool at_sender = false;
  // Each host aborts its connections to the peers it was cut from.
  bool abort_connections = true;
};

// Per host name, what `grudge` asks of it. An error names an endpoint the
// grudge uses that `endpoints` lacks (or a client without an address), and a
// grudge between two clients, which no host can enforce.
Result<std::map<std::string, HostCut>> PlanCuts(const Grudge& grudge,
                                                const std::vector<NetEndpoint>& endpoints,
                                                bool at_sender = false);

// " -m statistic --mode random --probability P" for 0 < P < 1; "" for P >= 1
// (every packet: a plain DROP).
std::string StatisticMatch(double drop_probability);
// The packets the DROP rules of `chain` dropped, summed from the counters of
// `iptables -v -S <chain>` ("-A C ... -c PACKETS BYTES -j DROP"). Pure.
uint64_t DroppedPacketsIn(const std::string& listing);

// The iptables-restore text for one host: `chain` flushed (created when
// missing), the jumps from INPUT and OUTPUT when `add_jumps`, then the
// cut's DROP rules, each dropping a packet with `drop_probability`.
// `spare_port` > 0 (Host::ControlPort): TCP to and from that port returns
// from the chain before any DROP, so the provider's control connection
// outlives a cut of the controller's address.
std::string CutRules(const std::string& chain, const HostCut& cut, bool add_jumps,
                     int spare_port = 0, double drop_probability = 1.0);
// The text that removes the jumps and the chain.
std::string RemovalRules(const std::string& chain);

// Runs `rules` through `iptables-restore -w --noflush` on `host`, from
// `file` in its directory (removed afterwards; one name per chain, so two
// families never write one file).
Status RestoreRules(Host& host, const std::string& file, const std::string& rules);

class PartitionApplier {
 public:
  // `chain`: the run's chain name (ChainName(tag, "part")); `endpoints`:
  // every host and client a grudge may name.
  PartitionApplier(std::string chain, std::vector<NetEndpoint> endpoints, CutStyle style = {});

  // Replaces whatever partition is in place by `grudge`, each of its rules
  // dropping a packet with `drop_probability` (1: every packet). Returns
  // what was done: per host, the addresses it drops. An error leaves the
  // hosts that did take their rules with them (Heal or Teardown removes
  // them).
  Result<nlohmann::json> Apply(const Grudge& grudge, double drop_probability = 1.0);
  // The packets the rules in place have dropped so far, over every host.
  Result<uint64_t> DroppedPackets();
  // Flushes the chain on every host that has one: everyone sees everyone.
  Status Heal();
  // Heal, then removes the jumps and the chains; idempotent.
  Status Teardown();

 private:
  Host* HostNamed(const std::string& name) const;

  const std::string chain_;
  const std::vector<NetEndpoint> endpoints_;
  const CutStyle style_;
  std::mutex mu_;
  std::set<std::string> installed_;  // hosts whose chain and jumps exist; guarded by mu_
};

}  // namespace locksmith
