// OpTable: the operations of report.html, one row per OpRow in columnar
// arrays sorted by invoke time, with the values the page may show. Op
// values (tokens, fences, ...) go in only up to a budget of rows, to keep
// the page small; nemesis ops and ops named by an anomaly always keep
// theirs. Built once, then read-only.
#pragma once

#include <cstddef>
#include <cstdint>
#include <set>
#include <string>
#include <vector>

#include "history/history.h"
#include "reports/op_rows.h"

namespace locksmith {

class OpTable {
 public:
  // `anomaly_ops`: the indices anomalies name; `max_values`: with more rows
  // than this, only those and the nemesis ops keep their values.
  static OpTable Build(const History& history, const std::vector<OpRow>& rows,
                       const std::set<int64_t>& anomaly_ops, size_t max_values);

  size_t size() const { return start_.size(); }

  // "kinds", "ops" and "values" (the formats: ReportModel::AppendJson).
  void AppendJson(std::string* out) const;

 private:
  void AppendKindsAndRows(std::string* out) const;

  std::vector<int64_t> index_, completion_index_, start_, duration_;
  std::vector<int32_t> lane_, f_, key_, error_;
  std::vector<uint8_t> outcome_;
  std::vector<int64_t> value_rows_;
  std::vector<std::string> values_;
  bool values_truncated_ = false;
};

}  // namespace locksmith
