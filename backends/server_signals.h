// The kill / pause / resume steps every backend takes on a node's server
// process, whose pid and paused flag the caller keeps: one place for the
// rules (a node that is down cannot be paused, a paused node killed is no
// longer paused, ...) and their messages. Not thread-safe: the caller holds
// the lock that guards `pid` and `paused`.
#pragma once

#include <string>

#include "base/result.h"
#include "cluster/host.h"

namespace locksmith {

// SIGKILLs the process of node `name`; it is down afterwards whatever the
// signal's outcome.
Status KillServer(const std::string& name, Host& host, int& pid, bool& paused);
// SIGSTOP (pause) or SIGCONT (resume) of a node that is up.
Status PauseServer(const std::string& name, Host& host, int pid, bool& paused);
Status ResumeServer(const std::string& name, Host& host, int pid, bool& paused);

}  // namespace locksmith
