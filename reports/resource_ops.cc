#include "reports/resource_ops.h"

#include <algorithm>
#include <numeric>
#include <optional>

#include "reports/json_columns.h"

namespace locksmith {
namespace {

std::optional<ResourceOps::Kind> KindOf(const std::string& f) {
  if (f == "read") return ResourceOps::kRead;
  if (f == "write") return ResourceOps::kWrite;
  if (f == "init") return ResourceOps::kInit;
  if (f == "final") return ResourceOps::kFinal;
  return std::nullopt;
}

}  // namespace

ResourceOps ResourceOps::Build(const History& history, const std::vector<OpRow>& rows,
                               Interner* keys) {
  ResourceOps res;
  for (const OpRow& row : rows) {
    const Op& inv = InvokeOf(history, row);
    if (inv.key.empty() || inv.type != OpType::kInvoke) continue;
    const std::optional<Kind> kind = KindOf(inv.f);
    if (!kind) continue;
    const Op* done = CompletionOf(history, row);
    // What was read is in the completion; what was written, in the invoke.
    const bool reads = *kind == kRead || *kind == kFinal;
    const nlohmann::json& source = reads && done != nullptr ? done->value : inv.value;
    auto v = source.is_object() ? source.find("value") : source.end();
    if (!source.is_object() || v == source.end() || !v->is_number_integer()) continue;
    res.key_.push_back(keys->Id(inv.key));
    res.lane_.push_back(row.lane);
    res.time_.push_back(done != nullptr ? done->time : inv.time);
    res.value_.push_back(v->get<int64_t>());
    res.kind_.push_back(*kind);
    res.outcome_.push_back(static_cast<uint8_t>(row.outcome));
  }
  res.SortByTime();
  return res;
}

void ResourceOps::SortByTime() {
  std::vector<size_t> order(time_.size());
  std::iota(order.begin(), order.end(), 0);
  std::stable_sort(order.begin(), order.end(),
                   [&](size_t a, size_t b) { return time_[a] < time_[b]; });
  auto permute = [&](auto& v) {
    auto copy = v;
    for (size_t i = 0; i < order.size(); ++i) v[i] = copy[order[i]];
  };
  permute(key_), permute(lane_), permute(time_), permute(value_);
  permute(kind_), permute(outcome_);
}

void ResourceOps::AppendJson(std::string* out) const {
  *out += "\"res\":{";
  AppendIntArray(out, "k", key_);
  *out += ',';
  AppendIntArray(out, "p", lane_);
  *out += ',';
  AppendIntArray(out, "t", time_, /*delta=*/true);
  *out += ',';
  AppendIntArray(out, "v", value_);
  *out += ',';
  AppendIntArray(out, "kind", kind_);
  *out += ',';
  AppendIntArray(out, "o", outcome_);
  *out += '}';
}

}  // namespace locksmith
