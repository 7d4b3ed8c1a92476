// How a server that refuses to run as root (PostgreSQL; MariaDB unless told
// to switch users) runs on a host whose commands run as root: in a user
// namespace of its own that maps root to an ordinary user (uid and gid 1)
// and maps no one else. Inside it the server is that user and owns every
// file root owns, so it needs no account of its own, no chown, and no
// search permission for others on the directories above its data (a run
// directory under /root, the ssh provider's private base directory). To the
// kernel it is still root's process: the harness signals it by pid like any
// other server, and the parent-death signal survives the switch (no
// credentials change), so it dies with the controller. Pure; thread-safe.
#pragma once

#include <string>
#include <vector>

#include "base/result.h"
#include "cluster/host.h"

namespace locksmith {

// The argv prefix that runs a command so on a host whose commands run as
// root (`root`), with an IPC namespace of its own too when `own_ipc` (the
// System V segment of a SIGKILLed server then goes with its last process);
// empty when they do not (the server runs as the host's user).
std::vector<std::string> NonRootPrefix(bool root, bool own_ipc);

// Whether `host`'s commands run as root (`id -u`).
Result<bool> RunsAsRoot(Host& host);

}  // namespace locksmith
