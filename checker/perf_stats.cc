#include "checker/perf_stats.h"

#include <algorithm>
#include <array>
#include <map>
#include <optional>
#include <string>

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
  static constexpr size_t kTypes = static_cast<size_t>(OpType::kInfo) + 1;
  // One f's counts by op type, and its completions' latencies by type:
  // arrays rather than maps of type names, which cost string compares at
  // every op. A count of 0 (a histogram never made) is a name the result
  // does not list.
  struct PerF {
    std::array<int64_t, kTypes> by_type{};
    int64_t pending = 0;
    std::array<std::optional<LatencyHistogram>, kTypes> latencies;
  };

  PerF& Of(const std::string& f) {
    auto it = by_f_.find(f);
    if (it == by_f_.end()) it = by_f_.emplace(f, PerF()).first;
    return it->second;
  }
  void Pending(const Op& invoke) { ++Of(invoke.f).pending; }

  CompletionPairer pairer_{false};
  std::array<int64_t, kTypes> by_type_{};
  std::map<std::string, PerF, std::less<>> by_f_;
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
  const auto type = static_cast<size_t>(op.type);
  ++by_type_[type];
  PerF& f = Of(op.f);
  ++f.by_type[type];
  if (op.type == OpType::kInvoke) {
    ++client_ops_;
    return;
  }
  if (pairing.invoke) {
    std::optional<LatencyHistogram>& latencies = f.latencies[type];
    if (!latencies) latencies.emplace();
    latencies->Add(op.time - pairing.invoke->time);
  }
}

CheckResult PerfStatsPass::Finish() {
  for (const auto& invoke : pairer_.StillOpen()) {
    if (invoke->is_client()) Pending(*invoke);
  }
  auto name = [](size_t type) { return std::string(OpTypeName(static_cast<OpType>(type))); };
  std::map<std::string, int64_t> by_type;
  for (size_t t = 0; t < kTypes; ++t) {
    if (by_type_[t] > 0) by_type[name(t)] = by_type_[t];
  }
  std::map<std::string, std::map<std::string, int64_t>> by_f;
  nlohmann::json latency = nlohmann::json::object();
  for (const auto& [f, of] : by_f_) {
    std::map<std::string, int64_t>& counts = by_f[f];
    for (size_t t = 0; t < kTypes; ++t) {
      if (of.by_type[t] > 0) counts[name(t)] = of.by_type[t];
      if (of.latencies[t]) latency[f][name(t)] = Quantiles(*of.latencies[t]);
    }
    if (of.pending > 0) counts["pending"] = of.pending;
  }
  CheckResult result;
  const double seconds = static_cast<double>(last_ - first_) / 1e9;
  // Completions are counted per f so "ops" means finished operations.
  int64_t completed = 0;
  for (const auto& [type, n] : by_type) {
    if (type != "invoke") completed += n;
  }
  result.stats = {{"ops", client_ops_},
                  {"completed", completed},
                  {"by_type", by_type},
                  {"by_f", by_f},
                  {"latency", latency},
                  {"duration_s", seconds},
                  {"ops_per_s", seconds > 0 ? static_cast<double>(completed) / seconds : 0.0}};
  auto count = [&](const char* type) {
    auto it = by_type.find(type);
    return std::to_string(it == by_type.end() ? 0 : it->second);
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
