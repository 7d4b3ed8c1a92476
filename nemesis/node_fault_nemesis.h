// NodeFaultNemesis: a fault done to whole nodes and undone later (kill /
// restart, pause / resume), generic over the service's nodes and roles.
// The begin op names its nodes by target ({"target": "primary"}, resolved
// against the service's node table at that moment by nemesis/targets.h with
// a seed drawn from the family's seed and the op's number) or directly
// ({"node": "n1", or "n1,n3"}: the action reports a node the service lacks);
// its completion value lists the nodes hit. The end op
// undoes one node ({"node": "n1"}) or, with no node, every node still
// faulted. Teardown undoes whatever is left and returns what it could not
// (those nodes stay on its list, for a later try). A family may check from
// outside that its action took effect on a node (Actions::check_apply,
// check_undo); the op's value then says per node what the check saw
// ("checks") and the op is observed when every node checked passed (see
// FaultResult::observed). Used from the nemesis
// thread; Teardown afterwards from the run thread; not otherwise
// thread-safe.
#pragma once

#include <cstdint>
#include <functional>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "backends/lock_service.h"
#include "nemesis/nemesis.h"

namespace locksmith {

// A node fault in words, for the reports (FaultLook::describe): its op and
// the nodes its value lists ("kill n1 n3", "pause (no node)") or names.
std::string DescribeNodeFault(const FaultOp& op);

class NodeFaultNemesis : public Nemesis {
 public:
  struct Actions {
    std::string begin;  // the begin op's name, e.g. "kill"
    std::string end;    // the end op's name, e.g. "restart"
    std::function<Status(const std::string& node)> apply;
    std::function<Status(const std::string& node)> undo;
    // Optional: a check from outside after `apply` / `undo` succeeded on
    // `node`: true or false, with what it saw written into `seen`; nullopt
    // when nothing could be checked.
    using Check = std::function<std::optional<bool>(const std::string& node, nlohmann::json& seen)>;
    Check check_apply;
    Check check_undo;
  };

  // `table`: the service's node table now (LockService::Table).
  NodeFaultNemesis(std::function<NodeTable()> table, Actions actions, uint64_t seed)
      : table_(std::move(table)), actions_(std::move(actions)), seed_(seed) {}

  std::vector<std::string> Faults() const override { return {actions_.begin, actions_.end}; }
  FaultResult Invoke(const FaultOp& op) override;
  std::vector<HealFailure> Teardown() override;

  // The nodes faulted now, in name order.
  const std::set<std::string>& faulted() const { return faulted_; }

 private:
  FaultResult Begin(const FaultOp& op);
  FaultResult End(const FaultOp& op);

  const std::function<NodeTable()> table_;
  const Actions actions_;
  const uint64_t seed_;
  uint64_t begun_ = 0;  // begin ops so far: each resolves with its own seed
  std::set<std::string> faulted_;
};

}  // namespace locksmith
