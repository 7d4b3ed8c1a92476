// OpenSocketIn: a socket created inside a network namespace, for code of the
// controller that must act in a test host's network (sock_diag to abort its
// connections, a relay listening on its links). A thread of its own enters
// the namespace, makes the socket (which stays bound to that namespace for
// its whole life) and ends, so no caller's thread ever changes namespace.
//
// Stateless; safe from any thread.
#pragma once

#include <string>

#include "base/result.h"

namespace locksmith {

// socket(domain, type | SOCK_CLOEXEC, protocol) inside `netns_path` (a
// namespace file, /run/netns/NAME; empty: the caller's own namespace). The
// caller owns the descriptor. An error names the namespace it could not
// enter or why the socket could not be made.
Result<int> OpenSocketIn(const std::string& netns_path, int domain, int type, int protocol);

}  // namespace locksmith
