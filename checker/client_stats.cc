#include "checker/client_stats.h"

#include <map>

namespace locksmith {

namespace {

class ClientStatsPass : public CheckPass {
 public:
  void Observe(const Op& op) override {
    if (!op.is_client() || op.type != OpType::kOk) return;
    if (op.f == "release") ++releases_;
    if (op.f != "client-stats" || !op.value.is_object()) return;
    ++clients_;
    for (const auto& [name, v] : op.value.items()) {
      if (v.is_number_integer()) sums_[name] += v.get<int64_t>();
    }
  }
  CheckResult Finish() override;

 private:
  std::map<std::string, int64_t> sums_;
  int64_t clients_ = 0;
  int64_t releases_ = 0;
};

CheckResult ClientStatsPass::Finish() {
  CheckResult result;
  result.stats["clients"] = clients_;
  result.stats["releases"] = releases_;
  for (const auto& [name, sum] : sums_) result.stats[name] = sum;
  if (releases_ > 0 && !sums_.empty()) {
    nlohmann::json per = nlohmann::json::object();
    for (const auto& [name, sum] : sums_) {
      per[name] = static_cast<double>(sum) / static_cast<double>(releases_);
    }
    result.stats["per_release"] = per;
  }
  return result;
}

}  // namespace

std::unique_ptr<CheckPass> ClientStatsChecker::Start() const {
  return std::make_unique<ClientStatsPass>();
}

}  // namespace locksmith
