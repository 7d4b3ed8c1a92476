#include "checker/counter_checker.h"

#include "checker/resource_updates.h"

namespace locksmith {
namespace {

class CounterPass : public CheckPass {
 public:
  void Observe(const Op& op) override { updates_.Observe(op); }
  CheckResult Finish() override;

 private:
  ResourceUpdates updates_;
};

CheckResult CounterPass::Finish() {
  CheckResult result;
  const std::map<std::string, ResourceKey>& keys = updates_.Finish();
  nlohmann::json counters = nlohmann::json::object();
  std::vector<std::string> unjudged;
  std::string summary;
  for (const auto& [name, key] : keys) {
    if (!key.has_updates && !key.final) continue;
    const int64_t acknowledged = key.all.acknowledged, maybe = key.all.maybe;
    nlohmann::json stats = {{"acknowledged", acknowledged},
                            {"maybe", maybe},
                            {"rejected_writes", key.all.rejected},
                            {"rejected_reads", key.rejected_reads},
                            {"expected", {acknowledged, acknowledged + maybe}}};
    if (!key.final) {
      unjudged.push_back(name);
      counters[name] = stats;
      continue;
    }
    const int64_t value = key.final->value;
    stats["final"] = value;
    counters[name] = stats;
    if (value >= acknowledged && value <= acknowledged + maybe) continue;
    nlohmann::json ops = nlohmann::json::array();
    nlohmann::json pairs = updates_.OverlappingUpdates(key, ops);
    ops.push_back(updates_.Ref(key.final->done));
    const bool lost = value < acknowledged;
    result.anomalies.push_back({{"type", lost ? "lost-increment" : "unexpected-increment"},
                                {"key", name},
                                {"final", value},
                                {"expected", {acknowledged, acknowledged + maybe}},
                                {"overlapping", pairs},
                                {"ops", ops}});
    summary += (summary.empty() ? "" : "; ") + name + ": final " + std::to_string(value) +
               (lost ? ", " + std::to_string(acknowledged - value) + " increments lost"
                     : " above the " + std::to_string(acknowledged + maybe) + " possible");
  }
  result.stats = {{"counters", counters}};
  if (!result.anomalies.empty()) {
    result.valid = Validity::kFalse;
  } else if (!unjudged.empty()) {
    result.valid = Validity::kUnknown;
    result.reason = "no final read of " + JoinNames(unjudged) +
                    " (the run ended before the final reads): lost increments cannot be judged";
  } else if (counters.empty()) {
    result.valid = Validity::kUnknown;
    result.reason = "no increment and no final read in the history";
  }
  result.summary = summary;
  return result;
}

}  // namespace

std::unique_ptr<CheckPass> CounterChecker::Start() const {
  return std::make_unique<CounterPass>();
}

}  // namespace locksmith
