#include "reports/op_table.h"

#include <array>
#include <map>

#include "reports/escape.h"
#include "reports/json_columns.h"

namespace locksmith {

OpTable OpTable::Build(const History& history, const std::vector<OpRow>& rows,
                       const std::set<int64_t>& anomaly_ops, size_t max_values) {
  OpTable t;
  const size_t n = rows.size();
  t.index_.reserve(n), t.completion_index_.reserve(n), t.start_.reserve(n);
  t.duration_.reserve(n), t.lane_.reserve(n), t.f_.reserve(n), t.key_.reserve(n);
  t.error_.reserve(n), t.outcome_.reserve(n);
  const bool all_values = n <= max_values;
  for (size_t r = 0; r < n; ++r) {
    const OpRow& row = rows[r];
    t.index_.push_back(row.index);
    t.completion_index_.push_back(row.completion_index < 0 ? -1
                                                           : row.completion_index - row.index);
    t.start_.push_back(row.start);
    t.duration_.push_back(row.duration);
    t.lane_.push_back(row.lane);
    t.f_.push_back(row.f);
    t.key_.push_back(row.key);
    t.error_.push_back(row.error);
    t.outcome_.push_back(static_cast<uint8_t>(row.outcome));

    const nlohmann::json& value = ValueOf(history, row);
    if (value.is_null()) continue;
    const Op* done = CompletionOf(history, row);
    const bool keep = all_values || InvokeOf(history, row).is_nemesis() ||
                      anomaly_ops.count(row.index) ||
                      (done != nullptr && anomaly_ops.count(done->index));
    if (!keep) {
      t.values_truncated_ = true;
      continue;
    }
    t.value_rows_.push_back(static_cast<int64_t>(r));
    std::string text = DumpJson(value);
    if (text.size() > 2000) text = text.substr(0, 2000) + "…";
    t.values_.push_back(SanitizeUtf8(text));
  }
  return t;
}

// Each row's f, key, outcome and error as one "kind" (few distinct), then
// the rows: what the first frame draws, then what hovering and clicks need.
void OpTable::AppendKindsAndRows(std::string* out) const {
  std::map<std::array<int32_t, 4>, int32_t> kind_of;
  std::vector<int64_t> kinds;
  std::array<std::vector<int32_t>, 4> kind_columns;
  kinds.reserve(start_.size());
  for (size_t r = 0; r < start_.size(); ++r) {
    const std::array<int32_t, 4> k = {f_[r], key_[r], outcome_[r], error_[r]};
    auto [it, added] = kind_of.try_emplace(k, static_cast<int32_t>(kind_of.size()));
    if (added) {
      for (size_t c = 0; c < 4; ++c) kind_columns[c].push_back(k[c]);
    }
    kinds.push_back(it->second);
  }
  *out += "\"kinds\":{";
  AppendIntArray(out, "f", kind_columns[0]);
  *out += ',';
  AppendIntArray(out, "k", kind_columns[1]);
  *out += ',';
  AppendIntArray(out, "o", kind_columns[2]);
  *out += ',';
  AppendIntArray(out, "e", kind_columns[3]);
  // Starts from the first one on, which needs no sign then (sorted).
  const int64_t t0 = start_.empty() ? 0 : start_.front();
  *out += "},\"ops\":{\"n\":" + std::to_string(start_.size()) + ",\"t0\":" +
          std::to_string(t0) + ',';
  const std::vector<int64_t> start = Deltas(start_, t0), lane = Int64s(lane_);
  std::vector<int64_t> duration = duration_;
  for (int64_t& d : duration) ++d;  // -1 (never completed) as 0
  AppendTable(out, "rows", {{&start, false}, {&duration, false}, {&lane, false}, {&kinds, false}});
  *out += ',';
  const std::vector<int64_t> index = Deltas(index_);
  AppendTable(out, "ids", {{&index, true}, {&completion_index_, true}});
  *out += '}';
}

void OpTable::AppendJson(std::string* out) const {
  AppendKindsAndRows(out);
  *out += ",\"values\":{";
  AppendIntArray(out, "rows", value_rows_);
  *out += ',';
  AppendStringArray(out, "text", values_);
  *out += std::string(",\"truncated\":") + (values_truncated_ ? "true" : "false") + '}';
}

}  // namespace locksmith
