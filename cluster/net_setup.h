// NetSetup: the kernel objects of a local cluster, created and removed with
// iproute2 (`ip`, always via argv): namespaces, the bridge, veth pairs; the
// run's nftables guard table (`nft`); plus
// RemoveRunObjects, the one removal routine shared by Teardown and
// `locksmith cleanup`. Every failure names the command and its output.
// The free functions below are the real kernel's, what RealNetOps() (see
// net_ops.h) runs; code that tests need to fake takes a NetOps instead.
// Free functions without state; thread-safe (the kernel serialises).
#pragma once

#include <ostream>
#include <set>
#include <string>
#include <vector>

#include "base/result.h"
#include "cluster/net_ops.h"
#include "cluster/run_registry.h"

namespace locksmith {

// /var/run/netns/<name>.
std::string NetnsPath(const std::string& name);
// Runs `ip <args>`; an error names the command, exit code and output.
Status RunIp(const std::vector<std::string>& args);

bool NetnsExists(const std::string& name);
bool LinkExists(const std::string& name);  // in the root namespace
// Runs `nft <args>` in the controller's namespace: its output, or an error
// naming the command, exit code and output.
Result<std::string> RunNft(const std::vector<std::string>& args);
// The controller's nftables tables of family inet (none when nft cannot
// list them).
std::vector<std::string> ListInetTables();
// Names under /var/run/netns and of links in the controller's namespace.
std::vector<std::string> ListNetns();
std::vector<std::string> ListLinks();
// The IPv4 addresses of the controller's interfaces.
std::set<std::string> InterfaceAddresses();
// Slices whose bridge address some interface of the controller's namespace
// already has: a run the registry does not know (its record lost) still
// holds them, and a new run there would collide with it.
std::set<int> SlicesInUseByInterfaces(NetOps& net = RealNetOps());

// Kills what runs in the record's namespaces and its recorded processes
// (those whose start time still matches: pid reuse is never hit), waits for
// them to die, then deletes its host-side links, bridge, guard table and
// namespaces.
// Absent objects are fine, so it is idempotent. Each removal is reported on
// `log` when not null. Returns an error listing whatever could not be removed.
// Links and namespaces are looked up and removed through `net`.
Status RemoveRunObjects(const RunRecord& record, std::ostream* log, NetOps& net = RealNetOps());

}  // namespace locksmith
