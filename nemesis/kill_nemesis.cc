#include "nemesis/kill_nemesis.h"

namespace locksmith {

FaultResult KillNemesis::Invoke(const FaultOp& op) {
  if (!op.value.is_object() || !op.value.contains("node") || !op.value["node"].is_string()) {
    return {false, nullptr, op.f + " needs {\"node\": name}"};
  }
  const std::string node = op.value["node"].get<std::string>();
  Status s = OkStatus();
  if (op.f == "kill") {
    s = service_.KillNode(node);
    if (s) down_.insert(node);
  } else if (op.f == "restart") {
    s = service_.StartNode(node);
    if (s) down_.erase(node);
  } else {
    return {false, nullptr, "kill nemesis cannot " + op.f};
  }
  if (!s) return {false, op.value, s.error()};
  return {true, op.value, ""};
}

std::vector<HealFailure> KillNemesis::Teardown() {
  std::vector<HealFailure> failures;
  for (auto it = down_.begin(); it != down_.end();) {
    if (Status s = service_.StartNode(*it); s) {
      it = down_.erase(it);
    } else {
      failures.push_back({"restart", {{"node", *it}}, s.error()});
      ++it;
    }
  }
  return failures;
}

}  // namespace locksmith
