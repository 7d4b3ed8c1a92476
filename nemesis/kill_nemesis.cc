#include "nemesis/kill_nemesis.h"

#include <algorithm>

namespace locksmith {

void KillOptions::Declare(OptionSet& set) {
  set.Integer("restart_delay_ms", "--restart-delay", &restart_delay_ms, int64_t{0},
              int64_t{3'600'000},
              "ms a killed node stays down, at most until the next fault cycle");
}

CycleOps KillCycle(int64_t restart_delay_ms) {
  return [restart_delay_ms](const std::string& node, int64_t start_ms, int64_t next_cycle_ms) {
    const int64_t stop = std::min(start_ms + restart_delay_ms, next_cycle_ms - 1);
    FaultMark begins, ends;
    ends.begins = false;
    return std::vector<ScheduledFault>{
        {start_ms, {"kill", {{"node", node}}}, begins},
        {std::max(stop, start_ms), {"restart", {{"node", node}}}, ends}};
  };
}

Result<std::unique_ptr<Nemesis>> MakeKillNemesis(const ModuleOptions&, LockService& service) {
  auto* killable = Capability<Killable>(service);
  if (killable == nullptr) return Error{"backend " + service.Backend() + " cannot kill nodes"};
  return std::unique_ptr<Nemesis>(new KillNemesis(*killable));
}

CycleOps KillCycleOf(const ModuleOptions& options) {
  return KillCycle(OptionsAs<KillOptions>(options).restart_delay_ms);
}

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
