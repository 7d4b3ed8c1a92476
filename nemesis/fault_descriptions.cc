#include "nemesis/fault_descriptions.h"

#include <vector>

#include "nemesis/nemesis_registry.h"

namespace locksmith {
namespace {

// The window a begin op of `look`'s family opens, told for the reports.
nlohmann::json WindowJson(const Op& begin, const Op* done, const FaultMark& mark,
                          const FaultLook& look) {
  const nlohmann::json& value =
      done != nullptr && !done->value.is_null() ? done->value : begin.value;
  const std::string& error = done != nullptr ? done->error : begin.error;
  const FaultSummary summary = DescribeFaultOp(look, {begin.f, value}, error);
  return {{"index", begin.index},          {"window", mark.window},
          {"family", mark.family},         {"text", summary.text},
          {"effective", summary.effective}, {"process", summary.process}};
}

}  // namespace

FaultLooks RegisteredFaultLooks() {
  FaultLooks looks;
  for (const NemesisEntry& e : NemesisFamilies()) looks.emplace(e.name, e.look);
  return looks;
}

nlohmann::json DescribeFaults(const History& history, const FaultLooks& looks) {
  nlohmann::json families = nlohmann::json::object();
  for (const auto& [name, look] : looks) families[name] = FaultLookJson(look);
  nlohmann::json windows = nlohmann::json::array();
  // A begin op is its invoke with the completion paired to it, or a
  // completion recorded without an invoke.
  const std::vector<int64_t> completion_of = PairCompletions(history);
  std::vector<bool> paired(history.size(), false);
  for (int64_t c : completion_of) {
    if (c >= 0) paired[static_cast<size_t>(c)] = true;
  }
  for (size_t i = 0; i < history.size(); ++i) {
    const Op& op = history[i];
    if (!op.is_nemesis() || op.fault.is_null() || (op.type != OpType::kInvoke && paired[i])) {
      continue;
    }
    auto mark = FaultMarkFromJson(op.fault);
    if (!mark || !mark->begins) continue;
    auto look = looks.find(mark->family);
    if (look == looks.end()) continue;
    const Op* done = op.type != OpType::kInvoke ? &op
                     : completion_of[i] >= 0    ? &history[static_cast<size_t>(completion_of[i])]
                                                : nullptr;
    windows.push_back(WindowJson(op, done, *mark, look->second));
  }
  return {{"families", std::move(families)}, {"windows", std::move(windows)}};
}

nlohmann::json DescribeFaults(const History& history) {
  return DescribeFaults(history, RegisteredFaultLooks());
}

}  // namespace locksmith
