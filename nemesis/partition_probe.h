// PartitionProbe: confirms from outside that a partition holds, while its
// rules are in place: one TCP connect across a cut of the grudge must fail.
// The connect goes from a client's address (the controller binds its socket
// to the address the partition cut off) to a node's service port on the
// other side, or, for a cut between hosts, from inside one host (a command
// run there) to the service port of a node on the other. A connect that
// completes, or is refused (a reset came back: the packets got through),
// says the cut does not hold; one that times out, or fails as a dropped
// packet does (EPERM from a DROP on the way out, no route), confirms it;
// anything else (the probe could not run) tells nothing.
// Thread-safe: stateless but for the connect function it is given.
#pragma once

#include <chrono>
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "backends/node_table.h"
#include "nemesis/grudge.h"
#include "nemesis/partition_applier.h"

namespace locksmith {

// One connect across one cut: from an endpoint (a host, or a client: host
// null) to a node's service on the other side.
struct CutProbe {
  NetEndpoint from;
  std::string to;  // the node's name
  std::string address;
  int port = 0;
};

// What one connect saw: whether the cut held (nullopt: the probe could not
// tell) and in words ("timed out after 300 ms", "refused").
struct ProbeSeen {
  std::optional<bool> cut;
  std::string seen;
};

// The cut to probe in `grudge`: an edge from a client when there is one (no
// command to start), else between two hosts; the first in name order, to a
// node of the table on the other side. nullopt when no edge reaches a node.
std::optional<CutProbe> ChooseCutProbe(const Grudge& grudge,
                                       const std::vector<NetEndpoint>& endpoints,
                                       const NodeTable& table);

// Makes one connect attempt.
using CutConnect = std::function<ProbeSeen(const CutProbe& probe)>;

// The real connect: in this process from a client's address, or by a
// command on the `from` host; each gives up after `timeout`.
ProbeSeen ConnectAcross(const CutProbe& probe, std::chrono::milliseconds timeout);

// Probes one cut of `grudge` with `connect`: {"from", "to", "port",
// "seen", "cut"} and whether it held; nullopt (nothing to probe) when the
// grudge cuts no node's host.
struct CutCheck {
  std::optional<bool> cut;
  nlohmann::json seen;
};
std::optional<CutCheck> CheckCut(const Grudge& grudge, const std::vector<NetEndpoint>& endpoints,
                                 const NodeTable& table, const CutConnect& connect);

}  // namespace locksmith
