// ProcessCgroup: how a program that is not ours (an exec lock client) is
// contained, so that neither it nor anything it starts outlives the run.
//
// Where cgroup v2 is mounted and writable (root, or a delegated subtree),
// each such program runs in a cgroup of its own, a leaf of the run's cgroup:
//   <cgroup2 mount><the controller's cgroup>/locksmith-<tag>/p<N>
// A child that starts a session of its own (setsid) or enters a network
// namespace of its own (unshare) stays in its cgroup, so writing cgroup.kill
// kills the program and all it started; the run's cgroup path is in its run
// record (RunRecord::cgroup), so `locksmith cleanup` kills and removes it too.
// Elsewhere the program leads a session of its own and is killed with its
// process group and every process of its session (KillSessionMembers): a
// child that starts another session escapes that, which the run says in
// one line (DescribeContainment).
//
// Free functions without shared state; thread-safe.
#pragma once

#include <chrono>
#include <string>

#include "base/result.h"

namespace locksmith {

// The directory cgroup v2 is mounted on (/sys/fs/cgroup, or
// /sys/fs/cgroup/unified on a hybrid machine); "" when it is not mounted.
std::string Cgroup2Mount();

// The run's cgroup for `tag`: under the calling process's own cgroup, named
// locksmith-<tag>. An error (one line) when cgroup v2 is not mounted or this
// process has no cgroup v2 path. Computes the path only; creates nothing.
Result<std::string> RunCgroupPath(const std::string& tag);

// Whether `path` may be a run cgroup of `tag` read back from a file: absolute,
// normal (no "." or ".." component), named locksmith-<tag>. With
// `on_this_machine`, also below a cgroup v2 mount here (so nothing else is
// ever killed or removed).
Status CheckRunCgroupPath(const std::string& path, const std::string& tag,
                          bool on_this_machine);

// One line for the run log: where the run's programs are contained, or why
// they cannot be (and so what may outlive the run).
std::string DescribeContainment(const std::string& tag);

// A program's own cgroup, made before it is forked: the child writes "0" to
// `procs_fd` (async-signal-safe) to move itself in before it executes.
struct LeafCgroup {
  std::string path;
  int procs_fd = -1;  // <path>/cgroup.procs, open for writing, close-on-exec
  int kill_fd = -1;   // <path>/cgroup.kill, open for writing (-1: not there)
};

// Creates the run's cgroup (if needed) and a new leaf in it; the caller
// closes the leaf's descriptors (CloseLeafFds).
Result<LeafCgroup> NewLeafCgroup(const std::string& run_cgroup);
void CloseLeafFds(LeafCgroup& leaf);

// SIGKILLs every process in `path` and its descendant cgroups (cgroup.kill,
// or each pid of cgroup.procs where the kernel has no cgroup.kill), waits up
// to `timeout` for them to be gone, then removes the cgroups. OK when `path`
// does not exist. Errors are one line naming the cgroup.
Status KillCgroupTree(const std::string& path, std::chrono::milliseconds timeout);

// Removes `path` if it is empty (no process, no child cgroup); anything else
// is left for whoever still uses it.
void RemoveCgroupIfEmpty(const std::string& path);

// SIGKILLs every process whose session is `sid` (but `sid` itself). Call it
// while the session's leader is a child not yet reaped, so the id cannot
// have been taken by a new session.
void KillSessionMembers(int sid);

}  // namespace locksmith
