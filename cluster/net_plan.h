// NetPlan: pure functions that name everything a local cluster creates in the
// kernel (network namespaces, the bridge, veth pairs, firewall chains, the
// guard table) from
// the run's tag, and lay out addresses inside 198.18.0.0/24. The same
// functions parse names back to a tag, which is how `locksmith cleanup`
// recognises leftovers. No system calls; thread-safe (no state).
//
// Address plan: 198.18.0.0/24 is carved into 16 slices of /28. A run owns
// one slice (allocated under a file lock, see RunRegistry): .16k+1 is the
// bridge (the controller's address as the nodes see it), .16k+2 ... .16k+14
// are the nodes, so one run has at most 13 nodes. Slices never overlap, so two
// runs never share an address or a route.
//
// Clients: slice k also owns 198.19.k.0/24 for its lock clients, client i
// (0-based) at 198.19.k.(i+1), so a partition can cut one client off. The
// range is local to the controller's namespace (a `local` route on the
// run's bridge: any address in it can be bound without adding 254
// addresses), and each node routes it back through the bridge's address.
// Clients past the 254th share the kernel's choice of address.
//
// Client hosts: an external lock-client program may run in a namespace of
// its own, "lsm-<tag>-client.<index>", joined to the run's bridge by the veth
// pair "lsm-<tag>-c<index>" (controller side) / "lsm-<tag>-p<index>"
// (inside, with the MAC ClientMac), holding the same ClientAddress: the
// nodes reach it over the bridge (a /32 route and a permanent neighbour
// entry each, since the controller's `local` route would answer ARP for it
// too), so a partition that drops that address cuts the program off.
#pragma once

#include <optional>
#include <string>
#include <string_view>

#include "base/result.h"

namespace locksmith {

inline constexpr int kTagLength = 6;
inline constexpr int kSliceCount = 16;
inline constexpr int kSlicePrefixLength = 28;
inline constexpr int kMaxNodesPerSlice = 13;
inline constexpr int kMaxNodeNameLength = 32;
inline constexpr int kIfNameMax = 15;  // IFNAMSIZ - 1
inline constexpr int kMaxClientAddresses = 254;

// A tag is exactly 6 characters of [0-9a-z]: fixed length keeps every name
// short enough for IFNAMSIZ and makes names parse back unambiguously.
Status ValidateTag(std::string_view tag);
// Node names become directory and namespace names: [A-Za-z0-9][A-Za-z0-9_-]*,
// at most 32 characters.
Status ValidateNodeName(std::string_view name);

// "lsm-<tag>-<node>" (a file under /var/run/netns, no IFNAMSIZ limit).
std::string NetnsName(std::string_view tag, std::string_view node);
// "lsm-<tag>-client.<index>": client host `index`'s namespace (a node name
// has no '.', so it never collides with a node's).
std::string ClientNetnsName(std::string_view tag, int index);
// "lsm-<tag>-c<index>" (on the bridge) and "lsm-<tag>-p<index>" (inside the
// client's namespace): client host `index`'s veth pair.
std::string ClientVethName(std::string_view tag, int index);
std::string ClientPeerVethName(std::string_view tag, int index);
// "02:4c:53:<slice>:<index / 256>:<index % 256>" in hex: client host
// `index`'s MAC, which the nodes' neighbour entries name.
std::string ClientMac(int slice, int index);
// "lsm-<tag>-br".
std::string BridgeName(std::string_view tag);
// "lsm-<tag>-h<index>": the veth end that stays in the root namespace and
// joins the bridge.
std::string HostVethName(std::string_view tag, int node_index);
// "lsm-<tag>-n<index>": the veth end inside the node's namespace.
std::string NodeVethName(std::string_view tag, int node_index);
// "LSM-<tag>-<purpose>" for iptables chains inside a node's namespace; an
// error if it would exceed iptables' 28-character chain name limit or the
// purpose has characters other than [A-Za-z0-9_-].
Result<std::string> ChainName(std::string_view tag, std::string_view purpose);

// "lsm-<tag>-guard": the run's own nftables table (family inet) in the
// controller's namespace, which keeps every other local user out of the
// run's hosts (GuardRules). A table of its own hooks the kernel without
// touching any rule or chain of the controller's own firewall.
std::string GuardTableName(std::string_view tag);
// The nft commands, one transaction, that create run `tag`'s guard table
// for `slice`: a packet the controller's namespace sends into the slice's
// networks (the nodes' /28, the clients' /24) or out of one of the run's
// links (IPv6 link-local included) from a socket whose owner is not `uid`
// is refused (ICMP administratively prohibited: its sender's connect fails
// at once, "No route to host"); a packet routed into those
// networks from any interface but the run's bridge is dropped. Packets of
// no socket (the kernel's resets and ICMP) pass.
Result<std::string> GuardRules(std::string_view tag, int slice, unsigned uid);

// The tag inside a name made by NetnsName (for netns names) or by
// BridgeName / HostVethName / NodeVethName (for link names); nullopt when the
// name is not one of ours.
std::optional<std::string> TagFromNetnsName(std::string_view name);
std::optional<std::string> TagFromLinkName(std::string_view name);
// ... or by GuardTableName.
std::optional<std::string> TagFromGuardTableName(std::string_view name);

// Dotted address of the bridge in `slice` ("198.18.0.17" for slice 1).
Result<std::string> BridgeAddress(int slice);
// The bridge's address (the controller's, on the test network) of the slice
// `node_address` belongs to: "198.18.0.17" for "198.18.0.19". An error for
// an address outside the nodes' range.
Result<std::string> BridgeAddressOf(std::string_view node_address);
// Dotted address of node `node_index` (0-based) in `slice`.
Result<std::string> NodeAddress(int slice, int node_index);
// "198.18.0.<16 slice>/28": the nodes' and the bridge's network.
Result<std::string> SliceNetwork(int slice);
// "198.19.<slice>.0/24": the clients' range of `slice`.
Result<std::string> ClientNetwork(int slice);
// Client `index`'s address in `slice`; empty for index >= kMaxClientAddresses.
Result<std::string> ClientAddress(int slice, int index);
// "<address>/28".
std::string WithPrefix(const std::string& address);

// Six random characters of [0-9a-f] from the OS random source.
std::string RandomTag();

}  // namespace locksmith
