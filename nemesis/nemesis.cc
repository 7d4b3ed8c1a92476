#include "nemesis/nemesis.h"

#include <algorithm>

namespace locksmith {

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

void CompositeNemesis::Teardown() {
  // Heal in reverse order of composition, like unwinding.
  for (auto it = parts_.rbegin(); it != parts_.rend(); ++it) (*it)->Teardown();
}

}  // namespace locksmith
