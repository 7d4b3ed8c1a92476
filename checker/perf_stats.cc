#include "checker/perf_stats.h"

#include <algorithm>
#include <cmath>
#include <map>

namespace locksmith {
namespace {

nlohmann::json Quantiles(std::vector<int64_t>& ns) {
  std::sort(ns.begin(), ns.end());
  auto at = [&](double q) {
    const size_t i = static_cast<size_t>(std::ceil(q * static_cast<double>(ns.size()))) - 1;
    return static_cast<double>(ns[std::min(i, ns.size() - 1)]) / 1e6;
  };
  return {{"count", ns.size()}, {"p50_ms", at(0.5)},  {"p90_ms", at(0.9)},
          {"p99_ms", at(0.99)}, {"p999_ms", at(0.999)}, {"max_ms", at(1.0)}};
}

}  // namespace

CheckResult PerfStatsChecker::Check(const History& history) const {
  CheckResult result;
  std::map<std::string, int64_t> by_type;
  std::map<std::string, std::map<std::string, int64_t>> by_f;
  // f -> completion type -> latencies (ns)
  std::map<std::string, std::map<std::string, std::vector<int64_t>>> latencies;
  int64_t client_ops = 0;
  int64_t first = 0, last = 0;

  const auto completion_of = PairCompletions(history);
  for (size_t i = 0; i < history.size(); ++i) {
    const Op& op = history[i];
    if (i == 0) first = op.time;
    last = std::max(last, op.time);
    if (!op.is_client()) continue;
    const std::string type(OpTypeName(op.type));
    ++by_type[type];
    ++by_f[op.f][type];
    if (op.type != OpType::kInvoke) continue;
    ++client_ops;
    if (completion_of[i] < 0) {
      ++by_f[op.f]["pending"];
      continue;
    }
    const Op& done = history[completion_of[i]];
    latencies[op.f][std::string(OpTypeName(done.type))].push_back(done.time - op.time);
  }

  nlohmann::json latency = nlohmann::json::object();
  for (auto& [f, by_outcome] : latencies) {
    for (auto& [type, ns] : by_outcome) latency[f][type] = Quantiles(ns);
  }
  const double seconds = static_cast<double>(last - first) / 1e9;
  // Completions are counted per f so "ops" means finished operations.
  int64_t completed = 0;
  for (auto& [type, n] : by_type) {
    if (type != "invoke") completed += n;
  }
  result.stats = {{"ops", client_ops},
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
  result.summary = std::to_string(client_ops) + " ops (ok " + count("ok") + ", fail " +
                   count("fail") + ", info " + count("info") + ")";
  return result;
}

}  // namespace locksmith
