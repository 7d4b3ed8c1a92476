// LatencyPlots: the completed client ops' latencies boiled down for the
// page: a summary per f (count by outcome, mean, quantiles), and the plots'
// data pre-aggregated per time bucket (throughput per outcome, latency
// quantiles per f) plus a latency scatter that becomes a density grid on a
// log-latency axis past a few thousand points (outliers stay visible,
// unlike random sampling). Built once, then read-only.
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "history/history.h"
#include "reports/op_rows.h"

namespace locksmith {

class LatencyPlots {
 public:
  struct Options {
    int buckets = 200;
    int scatter_x_bins = 400;
    int scatter_y_bins = 80;
    // Below this many completed client ops the scatter holds exact points.
    size_t max_raw_scatter_points = 5000;
  };
  struct Summary {
    int64_t count = 0;
    std::array<int64_t, 3> by_outcome{};  // ok, fail, info
    double mean_ns = 0;
    int64_t p50 = 0, p90 = 0, p99 = 0, p999 = 0, max = 0;
  };

  // `f_names`: the names the rows' f numbers stand for.
  static LatencyPlots Build(const History& history, const std::vector<OpRow>& rows,
                            const std::vector<std::string>& f_names, int64_t end_time,
                            const Options& options);

  // By f, all outcomes.
  const std::map<std::string, Summary>& latency() const { return latency_; }

  // "plots":{"n","bucket_ns","tp":{"ok","fail","info"},"q":[{"f","p50","p95",
  // "p99","max"}],"sc": the scatter, {"mode":"raw","t","l","o"} or
  // {"mode":"grid","xb","yb","lmin","lmax","n","cells": a packed table of
  // (cell minus the previous cell, count minus 1), a cell being
  // (x * yb + y) * 3 + outcome}}.
  void AppendJson(std::string* out) const;

 private:
  std::map<std::string, Summary> latency_;
  nlohmann::json plots_;
};

}  // namespace locksmith
