#include "nemesis/nemesis.h"

#include <algorithm>

namespace locksmith {

nlohmann::json HealFailuresJson(const std::vector<HealFailure>& failures) {
  nlohmann::json out = nlohmann::json::array();
  for (const auto& f : failures) {
    out.push_back({{"f", f.f}, {"value", f.value}, {"error", f.error}});
  }
  return out;
}

CompositeNemesis::CompositeNemesis(std::vector<std::unique_ptr<Nemesis>> parts)
    : parts_(std::move(parts)) {}

std::vector<std::string> CompositeNemesis::Faults() const {
  std::vector<std::string> faults;
  for (const auto& part : parts_) {
    auto names = part->Faults();
    faults.insert(faults.end(), names.begin(), names.end());
  }
  return faults;
}

FaultResult CompositeNemesis::Invoke(const FaultOp& op) {
  for (const auto& part : parts_) {
    auto names = part->Faults();
    if (std::find(names.begin(), names.end(), op.f) != names.end()) return part->Invoke(op);
  }
  return FaultResult{false, nullptr, "no nemesis handles fault \"" + op.f + "\""};
}

std::vector<HealFailure> CompositeNemesis::Teardown() {
  // Heal in reverse order of composition, like unwinding; a part that fails
  // does not stop the others from healing.
  std::vector<HealFailure> failures;
  for (auto it = parts_.rbegin(); it != parts_.rend(); ++it) {
    auto part = (*it)->Teardown();
    failures.insert(failures.end(), part.begin(), part.end());
  }
  return failures;
}

}  // namespace locksmith
