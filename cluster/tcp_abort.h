// AbortTcpConnections: what `ss -K -t dst A or dst B ...` does, in the
// process instead of a command: inside one network namespace, every TCP
// socket in a connected state (the states `ss -t` lists by default:
// established, syn-sent, fin-wait-1/2, close-wait, last-ack, closing) whose
// peer address is one of `peers` is destroyed through the kernel's sock_diag
// netlink interface (SOCK_DESTROY, CONFIG_INET_DIAG_DESTROY): its owner's
// next call fails with ECONNABORTED and the kernel sends the peer a reset.
// The partition nemesis uses it so that a connection does not outlive a
// partition; one netlink socket per call and no child process, so cutting a
// host's connections costs well under a millisecond of CPU.
//
// Stateless; safe from any thread (the namespace is entered by a short-lived
// thread of its own, never by the caller's).
#pragma once

#include <chrono>
#include <set>
#include <string>

#include "base/result.h"

namespace locksmith {

// `netns_path`: a network namespace file (/run/netns/NAME); empty: the
// caller's own namespace. `peers`: IPv4 or IPv6 addresses (an IPv4 peer also
// matches its IPv4-mapped IPv6 form). Returns how many sockets it destroyed;
// an error names an address it cannot parse, a namespace it cannot enter, a
// kernel without SOCK_DESTROY, or a reply that did not come within `timeout`.
Result<int> AbortTcpConnections(const std::string& netns_path, const std::set<std::string>& peers,
                                std::chrono::milliseconds timeout);

}  // namespace locksmith
