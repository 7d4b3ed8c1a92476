#include "checker/perf_stats.h"

#include <algorithm>
#include <map>

#include "checker/completion_pairer.h"
#include "checker/latency_histogram.h"

namespace locksmith {
namespace {

nlohmann::json Quantiles(const LatencyHistogram& ns) {
  auto at = [&](double q) { return ns.Quantile(q) / 1e6; };
  return {{"count", ns.count()}, {"p50_ms", at(0.5)},  {"p90_ms", at(0.9)},
          {"p99_ms", at(0.99)},  {"p999_ms", at(0.999)}, {"max_ms", at(1.0)}};
}

class PerfStatsPass : public CheckPass {
 public:
  void Observe(const Op& op) override;
  CheckResult Finish() override;

 private:
  void Pending(const Op& invoke) { ++by_f_[invoke.f]["pending"]; }

  CompletionPairer pairer_{false};
  std::map<std::string, int64_t> by_type_;
  std::map<std::string, std::map<std::string, int64_t>> by_f_;
  // f -> completion type -> latencies
  std::map<std::string, std::map<std::string, LatencyHistogram>> latencies_;
  int64_t client_ops_ = 0;
  bool any_ = false;
  int64_t first_ = 0, last_ = 0;
};

void PerfStatsPass::Observe(const Op& op) {
  if (!any_) first_ = op.time;
  any_ = true;
  last_ = std::max(last_, op.time);
  CompletionPairer::Pairing pairing = pairer_.Observe(op);
  for (const auto& invoke : pairing.abandoned) {
    if (invoke->is_client()) Pending(*invoke);
  }
  if (!op.is_client()) return;
  const std::string type(OpTypeName(op.type));
  ++by_type_[type];
  ++by_f_[op.f][type];
  if (op.type == OpType::kInvoke) {
    ++client_ops_;
    return;
  }
  if (pairing.invoke) latencies_[op.f][type].Add(op.time - pairing.invoke->time);
}

CheckResult PerfStatsPass::Finish() {
  for (const auto& invoke : pairer_.StillOpen()) {
    if (invoke->is_client()) Pending(*invoke);
  }
  CheckResult result;
  nlohmann::json latency = nlohmann::json::object();
  for (const auto& [f, by_outcome] : latencies_) {
    for (const auto& [type, ns] : by_outcome) latency[f][type] = Quantiles(ns);
  }
  const double seconds = static_cast<double>(last_ - first_) / 1e9;
  // Completions are counted per f so "ops" means finished operations.
  int64_t completed = 0;
  for (const auto& [type, n] : by_type_) {
    if (type != "invoke") completed += n;
  }
  result.stats = {{"ops", client_ops_},
                  {"completed", completed},
                  {"by_type", by_type_},
                  {"by_f", by_f_},
                  {"latency", latency},
                  {"duration_s", seconds},
                  {"ops_per_s", seconds > 0 ? static_cast<double>(completed) / seconds : 0.0}};
  auto count = [&](const char* type) {
    auto it = by_type_.find(type);
    return std::to_string(it == by_type_.end() ? 0 : it->second);
  };
  result.summary = std::to_string(client_ops_) + " ops (ok " + count("ok") + ", fail " +
                   count("fail") + ", info " + count("info") + ")";
  return result;
}

}  // namespace

std::unique_ptr<CheckPass> PerfStatsChecker::Start() const {
  return std::make_unique<PerfStatsPass>();
}

}  // namespace locksmith
