// CleanupLeftovers: what `locksmith cleanup` runs. Removes what runs killed
// with SIGKILL (or crashed) left behind: their processes, the cgroup of
// their contained programs (with all those started), namespaces, bridge and
// veths, found through the run registry, and touches nothing else. A run
// whose controller process is still alive (same pid and start time) is
// skipped. Objects named like ours (lsm-<tag>-*, cgroups locksmith-<tag>)
// that no run record claims are only reported, unless remove_unregistered
// asks for them to go too.
// Thread-safe (holds the registry's flock while it works).
#pragma once

#include <ostream>
#include <string>
#include <vector>

#include "base/result.h"
#include "cluster/net_ops.h"

namespace locksmith {

struct CleanupOptions {
  // Registry directory; empty: RunRegistry::DefaultDir(). Tests only: every
  // run on a machine shares the default one.
  std::string state_dir;
  // Also remove lsm-<tag>-* namespaces and links that no run record claims
  // (a run whose record was deleted, or one that used another state_dir),
  // killing whatever still runs in those namespaces. Off by default: with
  // another state_dir they may belong to a live run we cannot see.
  bool remove_unregistered = false;
  // Only this run tag (records and objects); empty: every tag. Lets a user,
  // or a test on a shared machine, clean up one run without touching others.
  std::string only_tag;
  // The kernel's network; null: RealNetOps(). Tests pass a testing::FakeNet.
  NetOps* net = nullptr;
  // The directory holding the runs' cgroups (locksmith-<tag>); empty: where
  // this process would put one (RunCgroupPath's parent). Tests pass one of
  // their own: a test must never see, let alone kill, a real run's cgroup.
  std::string cgroup_parent;
};

// What a cleanup found and could not, or would not, remove. Empty lists: the
// machine holds nothing of a dead run any more (live runs are not counted).
struct CleanupReport {
  // Found and deliberately left in place, one line each: unregistered
  // objects without remove_unregistered, unreadable run records.
  std::vector<std::string> left;
  // Removals that failed (the error of each).
  std::vector<std::string> failed;

  bool clean() const { return left.empty() && failed.empty(); }
};

// Reports each removal, each skipped live run and each object it leaves on
// `out`, one line each.
CleanupReport CleanupLeftovers(std::ostream& out, const CleanupOptions& options = {});

}  // namespace locksmith
