// Fault targets: which of a service's nodes a fault hits. A target is plain
// data parsed from the text users write in flags and scenario files ("one",
// "primary", "replicas", "minority", "majority", "all", "role:" and a role
// its backend declares, "role:sentinel", or node names "n1,n3") and resolved
// at the moment the fault starts, from the service's node table as it is
// then (after a failover the primary has moved) and a seed, by a pure
// function: the same table and seed always pick the same nodes, so a run
// replays from its seed. Pure; thread-safe.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "backends/node_table.h"
#include "base/result.h"

namespace locksmith {

struct Target {
  enum class Kind { kOne, kRole, kMinority, kMajority, kAll, kNamed };
  Kind kind = Kind::kOne;
  // kRole: the nodes with this role now (LockService::Roles): "primary" is
  // what "primary" selects, "replica" what "replicas" does.
  std::string role;
  std::vector<std::string> names;  // kNamed: the nodes, each once, in the order given

  bool operator==(const Target&) const = default;
};

// The target keywords, for help texts and errors.
const std::vector<std::string>& TargetKeywords();
// What a target option's help lists: "one, primary, replicas, minority,
// majority, all, role:NAME (a role the backend declares), or node names".
std::string TargetChoices();

// "one" ... "all", "role:" and a role's name, or comma-separated node names
// (letters, digits, '-', '_', '.'; each once). Which names exist is checked
// at resolution, when the service is known, and which roles by
// CheckTargetRole; the error here names the bad text.
Result<Target> ParseTarget(std::string_view text);
// The text ParseTarget reads back.
std::string FormatTarget(const Target& target);

// An error naming the flag or step's `target` when it selects by a role
// that none of `roles` (the backend's, LockService::Roles) is: "target
// replicas: backend etcd has no replica nodes (its roles: etcd-member,
// primary)". OkStatus for every other target.
Status CheckTargetRole(const Target& target, const std::vector<NodeRoleSpec>& roles,
                       const std::string& backend);
// For a fault family's unfit hook: CheckTargetRole's error for the target
// text `text` of the option `flag` ("--kill-target: target replicas: ..."),
// or "" when it has none (bad text is the option's own check's to say).
std::string UnknownTargetRole(const std::string& flag, const std::string& text,
                              const std::vector<NodeRoleSpec>& roles, const std::string& backend);

// The nodes `target` hits in `table`, sorted by table order. The pool of
// one / minority / majority / all is every node that holds data (primary,
// replica, ZooKeeper peer: a fault on a sentinel is asked for by role or
// name); a role target's nodes are those with that role now. An error when
// the target hits nothing ("backend has no replicas", "no minority of 1
// node") or names a node the table lacks.
Result<std::vector<std::string>> ResolveTarget(const Target& target, const NodeTable& table,
                                               uint64_t seed);

}  // namespace locksmith
