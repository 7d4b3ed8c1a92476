#include "checker/client_stats.h"

#include <map>

namespace locksmith {

CheckResult ClientStatsChecker::Check(const History& history) const {
  CheckResult result;
  std::map<std::string, int64_t> sums;
  int64_t clients = 0;
  int64_t releases = 0;
  for (const Op& op : history) {
    if (!op.is_client() || op.type != OpType::kOk) continue;
    if (op.f == "release") ++releases;
    if (op.f != "client-stats" || !op.value.is_object()) continue;
    ++clients;
    for (const auto& [name, v] : op.value.items()) {
      if (v.is_number_integer()) sums[name] += v.get<int64_t>();
    }
  }
  result.stats["clients"] = clients;
  result.stats["releases"] = releases;
  for (const auto& [name, sum] : sums) result.stats[name] = sum;
  if (releases > 0 && !sums.empty()) {
    nlohmann::json per = nlohmann::json::object();
    for (const auto& [name, sum] : sums) {
      per[name] = static_cast<double>(sum) / static_cast<double>(releases);
    }
    result.stats["per_release"] = per;
  }
  return result;
}

}  // namespace locksmith
