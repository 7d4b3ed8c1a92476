#include "nemesis/node_fault_nemesis.h"

#include "base/seed.h"
#include "nemesis/fault_text.h"
#include "nemesis/targets.h"

namespace locksmith {
namespace {

// The checks of one op's nodes, folded: observed when every node that could
// be checked passed and one was; not when any failed.
class Checks {
 public:
  void Run(const NodeFaultNemesis::Actions::Check& check, const std::string& node) {
    if (!check) return;
    nlohmann::json seen = nlohmann::json::object();
    std::optional<bool> passed = check(node, seen);
    if (!seen.empty()) seen_[node] = std::move(seen);
    if (passed) observed_ = observed_.value_or(true) && *passed;
  }
  // Adds what was seen to the op's result.
  FaultResult Into(FaultResult result) const {
    if (!seen_.empty()) result.value["checks"] = seen_;
    result.observed = observed_;
    return result;
  }

 private:
  nlohmann::json seen_ = nlohmann::json::object();
  std::optional<bool> observed_;
};

}  // namespace

FaultResult NodeFaultNemesis::Invoke(const FaultOp& op) {
  if (op.f == actions_.begin) return Begin(op);
  if (op.f == actions_.end) return End(op);
  return {false, nullptr, actions_.begin + " nemesis cannot " + op.f};
}

FaultResult NodeFaultNemesis::Begin(const FaultOp& op) {
  const bool named = op.value.is_object() && op.value.contains("node");
  const bool targeted = op.value.is_object() && op.value.contains("target");
  if (named == targeted || (named && !op.value["node"].is_string()) ||
      (targeted && !op.value["target"].is_string())) {
    return {false, op.value,
            actions_.begin + " needs {\"target\": one, primary, ...} or {\"node\": name}"};
  }
  auto target = ParseTarget(named ? op.value["node"].get<std::string>()
                                  : op.value["target"].get<std::string>());
  if (!target) return {false, op.value, target.error()};
  const uint64_t seed = SubSeed(seed_, begun_++);
  auto nodes = target->kind == Target::Kind::kNamed
                   ? Result<std::vector<std::string>>(target->names)
                   : ResolveTarget(*target, table_ ? table_() : NodeTable{}, seed);
  if (!nodes) return {false, op.value, nodes.error()};
  nlohmann::json done = nlohmann::json::array();
  std::string errors;
  Checks checks;
  for (const auto& node : *nodes) {
    if (Status s = actions_.apply(node); s) {
      faulted_.insert(node);
      done.push_back(node);
      checks.Run(actions_.check_apply, node);
    } else {
      errors += (errors.empty() ? "" : "; ") + s.error();
    }
  }
  nlohmann::json value{{"nodes", done}};
  if (targeted) value["target"] = op.value["target"];
  return checks.Into({errors.empty(), value, errors});
}

FaultResult NodeFaultNemesis::End(const FaultOp& op) {
  std::vector<std::string> nodes(faulted_.begin(), faulted_.end());
  if (op.value.is_object() && op.value.contains("node")) {
    if (!op.value["node"].is_string()) return {false, op.value, actions_.end + ": bad \"node\""};
    nodes = {op.value["node"].get<std::string>()};
  }
  nlohmann::json done = nlohmann::json::array();
  std::string errors;
  Checks checks;
  for (const auto& node : nodes) {
    if (Status s = actions_.undo(node); s) {
      faulted_.erase(node);
      done.push_back(node);
      checks.Run(actions_.check_undo, node);
    } else {
      errors += (errors.empty() ? "" : "; ") + s.error();
    }
  }
  return checks.Into({errors.empty(), {{"nodes", done}}, errors});
}

std::vector<HealFailure> NodeFaultNemesis::Teardown() {
  std::vector<HealFailure> failures;
  for (auto it = faulted_.begin(); it != faulted_.end();) {
    if (Status s = actions_.undo(*it); s) {
      it = faulted_.erase(it);
    } else {
      failures.push_back({actions_.end, {{"node", *it}}, s.error()});
      ++it;
    }
  }
  return failures;
}


std::string DescribeNodeFault(const FaultOp& op) {
  std::string out = op.f;
  if (!op.value.is_object()) return out;
  if (auto n = op.value.find("nodes"); n != op.value.end() && n->is_array()) {
    std::vector<std::string> names;
    for (const auto& x : *n) names.push_back(x.is_string() ? x.get<std::string>() : JsonText(x));
    return out + (names.empty() ? std::string(" (no node)") : " " + CompactNames(names));
  }
  if (std::string node = StringField(op.value, "node"); !node.empty()) out += " " + node;
  return out;
}

}  // namespace locksmith
