#include "nemesis/fault_descriptions.h"

#include <optional>
#include <vector>

#include "nemesis/nemesis_registry.h"

namespace locksmith {
namespace {

// The window a begin op of `look`'s family opens, told for the reports;
// `past_lease` as its family's confirmation read it from the history.
nlohmann::json WindowJson(const Op& begin, const Op* done, const FaultMark& mark,
                          const FaultLook& look, std::optional<bool> past_lease) {
  const nlohmann::json& value =
      done != nullptr && !done->value.is_null() ? done->value : begin.value;
  const std::string& error = done != nullptr ? done->error : begin.error;
  const FaultSummary summary = DescribeFaultOp(look, {begin.f, value}, error);
  nlohmann::json window = {{"index", begin.index},
                           {"window", mark.window},
                           {"family", mark.family},
                           {"text", summary.text + (past_lease.value_or(false)
                                                        ? ", past its lease"
                                                        : "")},
                           {"effective", summary.effective},
                           {"process", summary.process}};
  if (past_lease) window["past_lease"] = *past_lease;
  return window;
}

// Whether the observed stall of a lock holder the window's begin op (its
// completion at history[done]) made outlived its lease; nullopt when its
// family tells no such thing.
std::optional<bool> PastLease(const History& history, int64_t done, const std::string& family,
                              const FaultConfirmations& confirmations) {
  auto confirm = confirmations.find(family);
  if (done < 0 || confirm == confirmations.end()) return std::nullopt;
  const auto confirmed = confirm->second(history, static_cast<size_t>(done));
  if (!confirmed || !confirmed->took_effect) return std::nullopt;
  return confirmed->past_lease;
}

}  // namespace

FaultLooks RegisteredFaultLooks() {
  FaultLooks looks;
  for (const NemesisEntry& e : NemesisFamilies()) looks.emplace(e.name, e.look);
  return looks;
}

nlohmann::json DescribeFaults(const History& history, const FaultLooks& looks,
                              const FaultConfirmations& confirmations) {
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
    const int64_t done_at =
        op.type != OpType::kInvoke ? static_cast<int64_t>(i) : completion_of[i];
    const Op* done = done_at >= 0 ? &history[static_cast<size_t>(done_at)] : nullptr;
    windows.push_back(WindowJson(op, done, *mark, look->second,
                                 PastLease(history, done_at, mark->family, confirmations)));
  }
  return {{"families", std::move(families)}, {"windows", std::move(windows)}};
}

nlohmann::json DescribeFaults(const History& history) {
  return DescribeFaults(history, RegisteredFaultLooks(), RegisteredConfirmations());
}

}  // namespace locksmith
