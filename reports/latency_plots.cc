#include "reports/latency_plots.h"

#include <algorithm>
#include <cmath>
#include <numeric>
#include <unordered_map>
#include <utility>

#include "reports/escape.h"
#include "reports/packed_table.h"

namespace locksmith {
namespace {

int64_t Quantile(std::vector<int64_t>* v, double q) {
  if (v->empty()) return -1;
  size_t k = std::min(v->size() - 1, static_cast<size_t>(q * static_cast<double>(v->size())));
  std::nth_element(v->begin(), v->begin() + static_cast<std::ptrdiff_t>(k), v->end());
  return (*v)[k];
}

// The rows the plots are about: client ops that completed.
std::vector<const OpRow*> CompletedClientOps(const History& history,
                                             const std::vector<OpRow>& rows) {
  std::vector<const OpRow*> out;
  for (const OpRow& row : rows) {
    if (InvokeOf(history, row).is_client() && row.outcome != OpOutcome::kPending) {
      out.push_back(&row);
    }
  }
  return out;
}

// Count, outcomes, mean and quantiles of `latencies` (sorted here).
LatencyPlots::Summary Summarize(std::vector<int64_t> latencies,
                                const std::array<int64_t, 3>& by_outcome) {
  LatencyPlots::Summary s;
  s.count = static_cast<int64_t>(latencies.size());
  s.by_outcome = by_outcome;
  auto& v = latencies;
  s.mean_ns = std::accumulate(v.begin(), v.end(), 0.0) / static_cast<double>(v.size());
  std::sort(v.begin(), v.end());
  auto q = [&](double p) {
    return v[std::min(v.size() - 1, static_cast<size_t>(p * static_cast<double>(v.size())))];
  };
  s.p50 = q(0.5), s.p90 = q(0.9), s.p99 = q(0.99), s.p999 = q(0.999), s.max = v.back();
  return s;
}

// Per f with completions: p50, p95, p99 and max per bucket (-1: none).
nlohmann::json QuantileSeries(std::vector<std::vector<std::vector<int64_t>>>& by_f_bucket,
                              const std::vector<std::string>& f_names) {
  nlohmann::json quantiles = nlohmann::json::array();
  for (size_t fi = 0; fi < by_f_bucket.size(); ++fi) {
    if (by_f_bucket[fi].empty()) continue;
    nlohmann::json series{{"f", f_names[fi]}};
    std::vector<int64_t> p50, p95, p99, mx;
    for (auto& bucket : by_f_bucket[fi]) {
      p50.push_back(Quantile(&bucket, 0.5));
      p95.push_back(Quantile(&bucket, 0.95));
      p99.push_back(Quantile(&bucket, 0.99));
      mx.push_back(bucket.empty() ? -1 : *std::max_element(bucket.begin(), bucket.end()));
    }
    series["p50"] = p50, series["p95"] = p95, series["p99"] = p99, series["max"] = mx;
    quantiles.push_back(std::move(series));
  }
  return quantiles;
}

nlohmann::json RawScatter(const std::vector<const OpRow*>& done) {
  std::vector<int64_t> t, l, o;
  for (const OpRow* row : done) {
    t.push_back(row->start), l.push_back(row->duration);
    o.push_back(static_cast<int>(row->outcome));
  }
  return {{"mode", "raw"}, {"t", t}, {"l", l}, {"o", o}};
}

nlohmann::json GridScatter(const std::vector<const OpRow*>& done, double span,
                           const LatencyPlots::Options& options) {
  int64_t lmin = INT64_MAX, lmax = 0;
  for (const OpRow* row : done) {
    lmin = std::min(lmin, row->duration);
    lmax = std::max(lmax, row->duration);
  }
  const int xb = std::max(1, options.scatter_x_bins), yb = std::max(1, options.scatter_y_bins);
  const double lo = std::log10(static_cast<double>(std::max<int64_t>(1, lmin)));
  const double hi =
      std::max(lo + 1e-9, std::log10(static_cast<double>(std::max<int64_t>(1, lmax))));
  std::unordered_map<int64_t, int64_t> cells;
  for (const OpRow* row : done) {
    int x = std::clamp(static_cast<int>(static_cast<double>(row->start) / span * xb), 0, xb - 1);
    double ll = std::log10(static_cast<double>(std::max<int64_t>(1, row->duration)));
    int y = std::clamp(static_cast<int>((ll - lo) / (hi - lo) * yb), 0, yb - 1);
    ++cells[(static_cast<int64_t>(x) * yb + y) * 3 + static_cast<int>(row->outcome)];
  }
  std::vector<std::pair<int64_t, int64_t>> sorted(cells.begin(), cells.end());
  std::sort(sorted.begin(), sorted.end());
  std::vector<int64_t> cell_delta, count_less_one;
  int64_t previous = 0;
  for (auto [cell, count] : sorted) {
    cell_delta.push_back(cell - previous), count_less_one.push_back(count - 1);
    previous = cell;
  }
  std::string packed;
  AppendPackedTable(&packed, {{&cell_delta, false}, {&count_less_one, false}});
  return {{"mode", "grid"}, {"xb", xb}, {"yb", yb}, {"lmin", std::pow(10.0, lo)},
          {"lmax", std::pow(10.0, hi)}, {"n", sorted.size()}, {"cells", packed}};
}

}  // namespace

LatencyPlots LatencyPlots::Build(const History& history, const std::vector<OpRow>& rows,
                                 const std::vector<std::string>& f_names, int64_t end_time,
                                 const Options& options) {
  const int nb = std::max(1, options.buckets);
  const double span = static_cast<double>(std::max<int64_t>(1, end_time));
  const double bucket_ns = span / nb;
  auto bucket_of = [&](int64_t t) {
    return static_cast<size_t>(
        std::clamp(static_cast<int>(static_cast<double>(t) / bucket_ns), 0, nb - 1));
  };
  const size_t nf = f_names.size();
  std::vector<std::vector<int64_t>> by_f(nf);
  std::vector<std::array<int64_t, 3>> outcomes_by_f(nf);
  std::vector<std::vector<std::vector<int64_t>>> by_f_bucket(nf);
  std::array<std::vector<int64_t>, 3> throughput;
  for (auto& t : throughput) t.assign(static_cast<size_t>(nb), 0);
  const std::vector<const OpRow*> done = CompletedClientOps(history, rows);
  for (const OpRow* row : done) {
    const auto o = static_cast<size_t>(row->outcome);
    const auto fi = static_cast<size_t>(row->f);
    ++throughput[o][bucket_of(row->start + row->duration)];
    by_f[fi].push_back(row->duration);
    ++outcomes_by_f[fi][o];
    if (by_f_bucket[fi].empty()) by_f_bucket[fi].resize(static_cast<size_t>(nb));
    by_f_bucket[fi][bucket_of(row->start)].push_back(row->duration);
  }
  LatencyPlots p;
  for (size_t fi = 0; fi < nf; ++fi) {
    if (by_f[fi].empty()) continue;
    p.latency_[f_names[fi]] = Summarize(std::move(by_f[fi]), outcomes_by_f[fi]);
  }
  p.plots_["n"] = nb;
  p.plots_["bucket_ns"] = bucket_ns;
  p.plots_["tp"] = {{"ok", throughput[0]}, {"fail", throughput[1]}, {"info", throughput[2]}};
  p.plots_["q"] = QuantileSeries(by_f_bucket, f_names);
  const bool few = done.size() <= options.max_raw_scatter_points;
  p.plots_["sc"] = few ? RawScatter(done) : GridScatter(done, span, options);
  return p;
}

void LatencyPlots::AppendJson(std::string* out) const { *out += "\"plots\":" + DumpJson(plots_); }

}  // namespace locksmith
