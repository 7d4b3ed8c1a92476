#include "checker/inventory_checker.h"

#include "checker/resource_updates.h"

namespace locksmith {
namespace {

// What one item's updates add up to.
struct ItemCounts {
  int64_t acknowledged = 0, maybe = 0, rejected = 0;
  int64_t sold = 0;  // the orders the final read names, else the acknowledged ones
  int64_t min_stock = 0, max_stock = 0;  // the final stock the updates allow
};

ItemCounts CountItem(const ResourceKey& key, int64_t initial) {
  ItemCounts c;
  c.acknowledged = key.orders.acknowledged;
  c.maybe = key.orders.maybe;
  c.rejected = key.orders.rejected;
  c.sold = key.final ? key.final->orders : c.acknowledged;
  c.min_stock = initial - c.acknowledged - c.maybe;
  c.max_stock = initial - c.acknowledged;
  return c;
}

nlohmann::json ItemStats(const ResourceKey& key, const ItemCounts& c, int64_t initial) {
  nlohmann::json stats = {{"initial", initial},          {"acknowledged", c.acknowledged},
                          {"maybe", c.maybe},            {"rejected_writes", c.rejected},
                          {"rejected_reads", key.rejected_reads}};
  stats["expected_stock"] = {c.min_stock, c.max_stock};
  if (key.final) {
    stats["final_stock"] = key.final->value;
    stats["orders"] = c.sold;
  }
  return stats;
}

// Every op that wrote (or may have written) or read a negative stock.
nlohmann::json NegativeStockOps(const ResourceUpdates& updates, const ResourceKey& key) {
  nlohmann::json ops = nlohmann::json::array();
  for (const OpMark& write : key.negative_orders) ops.push_back(updates.Ref(write));
  for (const auto& [invoked, read] : key.negative_reads) ops.push_back(updates.Ref(read));
  if (key.final && key.final->value < 0) ops.push_back(updates.Ref(key.final->done));
  return ops;
}

// Appends one item's oversold, lost-update and negative-stock anomalies to
// `result`; returns its part of the summary ("" when it has none).
std::string JudgeItem(const ResourceUpdates& updates, const std::string& name,
                      const ResourceKey& key, const ItemCounts& c, int64_t initial,
                      CheckResult& result) {
  std::string line;
  const nlohmann::json final_ref =
      key.final ? updates.Ref(key.final->done) : nlohmann::json(nullptr);
  const bool oversold = c.sold > initial;
  const bool lost =
      key.final && (key.final->value < c.min_stock || key.final->value > c.max_stock);
  // The overlapping buyers are the evidence of either anomaly: found once.
  nlohmann::json overlap_ops = nlohmann::json::array();
  const nlohmann::json pairs = oversold || lost
                                   ? updates.OverlappingUpdates(key, overlap_ops)
                                   : nlohmann::json::array();
  if (oversold) {
    nlohmann::json ops = overlap_ops;
    if (!final_ref.is_null()) ops.push_back(final_ref);
    result.anomalies.push_back({{"type", "oversold"},
                                {"key", name},
                                {"initial", initial},
                                {"orders", c.sold},
                                {"acknowledged", c.acknowledged},
                                {"maybe", c.maybe},
                                {"overlapping", pairs},
                                {"ops", ops}});
    line += std::to_string(c.sold) + " orders of " + std::to_string(initial) + " units";
  }
  if (lost) {
    nlohmann::json ops = overlap_ops;
    ops.push_back(final_ref);
    result.anomalies.push_back({{"type", "lost-update"},
                                {"key", name},
                                {"initial", initial},
                                {"final_stock", key.final->value},
                                {"expected_stock", {c.min_stock, c.max_stock}},
                                {"acknowledged", c.acknowledged},
                                {"maybe", c.maybe},
                                {"overlapping", pairs},
                                {"ops", ops}});
    line += std::string(line.empty() ? "" : ", ") + "final stock " +
            std::to_string(key.final->value) + " where " +
            (c.min_stock == c.max_stock
                 ? std::to_string(c.max_stock)
                 : std::to_string(c.min_stock) + ".." + std::to_string(c.max_stock)) +
            " was expected";
  }
  if (nlohmann::json negative_ops = NegativeStockOps(updates, key); !negative_ops.empty()) {
    result.anomalies.push_back({{"type", "negative-stock"}, {"key", name}, {"ops", negative_ops}});
    line += std::string(line.empty() ? "" : ", ") + "negative stock";
  }
  return line;
}

class InventoryPass : public CheckPass {
 public:
  explicit InventoryPass(int64_t initial) : initial_(initial) {}
  void Observe(const Op& op) override { updates_.Observe(op); }
  CheckResult Finish() override;

 private:
  const int64_t initial_;
  ResourceUpdates updates_;
};

CheckResult InventoryPass::Finish() {
  CheckResult result;
  const std::map<std::string, ResourceKey>& keys = updates_.Finish();
  nlohmann::json items = nlohmann::json::object();
  std::vector<std::string> unjudged;
  std::string summary;
  for (const auto& [name, key] : keys) {
    if (!key.has_updates && !key.final) continue;
    const ItemCounts counts = CountItem(key, initial_);
    items[name] = ItemStats(key, counts, initial_);
    if (!key.final) unjudged.push_back(name);
    const std::string line = JudgeItem(updates_, name, key, counts, initial_, result);
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

}  // namespace

std::unique_ptr<CheckPass> InventoryChecker::Start() const {
  return std::make_unique<InventoryPass>(initial_);
}

}  // namespace locksmith
