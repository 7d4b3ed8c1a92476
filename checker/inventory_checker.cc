#include "checker/inventory_checker.h"

#include "checker/resource_updates.h"

namespace locksmith {
namespace {

// Pairs of buyers named per anomaly (each a proof; more add nothing).
constexpr size_t kPairsShown = 5;

}  // namespace

CheckResult InventoryChecker::Check(const History& history) const {
  CheckResult result;
  const std::map<std::string, ResourceKey> keys = CollectResourceUpdates(history);
  nlohmann::json items = nlohmann::json::object();
  std::vector<std::string> unjudged;
  std::string summary;
  for (const auto& [name, key] : keys) {
    if (key.updates.empty() && !key.final) continue;
    int64_t acknowledged = 0, maybe = 0, rejected = 0;
    nlohmann::json negative_ops = nlohmann::json::array();
    for (const ResourceUpdate& u : key.updates) {
      if (u.order.empty()) continue;
      if (u.outcome == OpType::kOk) ++acknowledged;
      if (u.outcome == OpType::kInfo) ++maybe;
      if (u.rejected) ++rejected;
      if (u.MayHaveHappened() && u.value < 0) negative_ops.push_back(OpRef(history[u.write]));
    }
    for (int64_t at : key.negative_reads) negative_ops.push_back(OpRef(history[at]));
    nlohmann::json stats = {{"initial", initial_},          {"acknowledged", acknowledged},
                            {"maybe", maybe},               {"rejected_writes", rejected},
                            {"rejected_reads", key.rejected_reads}};
    const int64_t sold = key.final ? static_cast<int64_t>(key.final->orders.size()) : acknowledged;
    const int64_t min_stock = initial_ - acknowledged - maybe;
    const int64_t max_stock = initial_ - acknowledged;
    stats["expected_stock"] = {min_stock, max_stock};
    nlohmann::json final_ref = nullptr;
    if (key.final) {
      stats["final_stock"] = key.final->value;
      stats["orders"] = sold;
      final_ref = OpRef(history[key.final->position]);
      if (key.final->value < 0) negative_ops.push_back(final_ref);
    } else {
      unjudged.push_back(name);
    }
    items[name] = stats;

    std::string line;
    const bool oversold = sold > initial_;
    const bool lost = key.final && (key.final->value < min_stock || key.final->value > max_stock);
    // The overlapping buyers are the evidence of either anomaly: found once.
    nlohmann::json overlap_ops = nlohmann::json::array();
    const nlohmann::json pairs = oversold || lost
                                     ? OverlappingUpdates(history, key, kPairsShown, overlap_ops)
                                     : nlohmann::json::array();
    if (oversold) {
      nlohmann::json ops = overlap_ops;
      if (!final_ref.is_null()) ops.push_back(final_ref);
      result.anomalies.push_back({{"type", "oversold"},
                                  {"key", name},
                                  {"initial", initial_},
                                  {"orders", sold},
                                  {"acknowledged", acknowledged},
                                  {"maybe", maybe},
                                  {"overlapping", pairs},
                                  {"ops", ops}});
      line += std::to_string(sold) + " orders of " + std::to_string(initial_) + " units";
    }
    if (lost) {
      nlohmann::json ops = overlap_ops;
      ops.push_back(final_ref);
      result.anomalies.push_back({{"type", "lost-update"},
                                  {"key", name},
                                  {"initial", initial_},
                                  {"final_stock", key.final->value},
                                  {"expected_stock", {min_stock, max_stock}},
                                  {"acknowledged", acknowledged},
                                  {"maybe", maybe},
                                  {"overlapping", pairs},
                                  {"ops", ops}});
      line += std::string(line.empty() ? "" : ", ") + "final stock " +
              std::to_string(key.final->value) + " where " +
              (min_stock == max_stock ? std::to_string(max_stock)
                                      : std::to_string(min_stock) + ".." +
                                            std::to_string(max_stock)) +
              " was expected";
    }
    if (!negative_ops.empty()) {
      result.anomalies.push_back({{"type", "negative-stock"}, {"key", name}, {"ops", negative_ops}});
      line += std::string(line.empty() ? "" : ", ") + "negative stock";
    }
    if (!line.empty()) summary += (summary.empty() ? "" : "; ") + name + ": " + line;
  }
  result.stats = {{"items", items}};
  if (!result.anomalies.empty()) {
    result.valid = Validity::kFalse;
  } else if (!unjudged.empty()) {
    result.valid = Validity::kUnknown;
    result.reason = "no final read of " + JoinNames(unjudged) +
                    " (the run ended before the final reads): lost updates cannot be judged";
  } else if (keys.empty() || items.empty()) {
    result.valid = Validity::kUnknown;
    result.reason = "no purchase and no final read in the history";
  }
  result.summary = summary;
  return result;
}

}  // namespace locksmith
