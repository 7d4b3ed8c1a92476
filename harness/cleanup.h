// CleanupLeftovers: what `locksmith cleanup` runs. Removes what runs killed
// with SIGKILL (or crashed) left behind: their processes, namespaces, bridge
// and veths, found through the run registry, and touches nothing else. A run
// whose controller process is still alive (same pid and start time) is
// skipped. Thread-safe (holds the registry's flock while it works).
#pragma once

#include <ostream>
#include <string>

#include "checker/result.h"

namespace locksmith {

struct CleanupOptions {
  // Registry directory; empty: RunRegistry::DefaultDir(). Tests only: every
  // run on a machine shares the default one.
  std::string state_dir;
  // Also remove lsm-<tag>-* namespaces and links that no run record claims
  // (e.g. made by a run that used another state_dir). Off by default: they
  // may belong to a live run we cannot see.
  bool remove_unregistered = false;
};

// Reports each removal and each skipped live run on `out`, one line each.
// Returns an error naming whatever could not be removed.
Status CleanupLeftovers(std::ostream& out, const CleanupOptions& options = {});

}  // namespace locksmith
