#include "checker/latency_histogram.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <random>

namespace locksmith {
namespace {

double NearestRank(std::vector<int64_t> v, double q) {
  std::sort(v.begin(), v.end());
  const auto i = static_cast<size_t>(std::ceil(q * static_cast<double>(v.size()))) - 1;
  return static_cast<double>(v[std::min(i, v.size() - 1)]);
}

TEST(LatencyHistogramTest, ExactWhileSmall) {
  LatencyHistogram h;
  std::vector<int64_t> v;
  for (int64_t i = 1000; i > 0; --i) {
    h.Add(i * 1'000'003);
    v.push_back(i * 1'000'003);
  }
  for (double q : {0.5, 0.9, 0.99, 0.999, 1.0}) EXPECT_EQ(h.Quantile(q), NearestRank(v, q));
  EXPECT_EQ(h.count(), 1000);
}

TEST(LatencyHistogramTest, WithinHalfAPercentOnceBucketed) {
  std::mt19937_64 rng(3);
  std::lognormal_distribution<double> latency(13.0, 1.5);  // ~0.4 ms median, long tail
  LatencyHistogram h;
  std::vector<int64_t> v;
  for (size_t i = 0; i < 3 * LatencyHistogram::kExactSamples; ++i) {
    const auto ns = static_cast<int64_t>(latency(rng));
    h.Add(ns);
    v.push_back(ns);
  }
  for (double q : {0.5, 0.9, 0.99, 0.999}) {
    const double exact = NearestRank(v, q);
    EXPECT_LE(std::abs(h.Quantile(q) - exact), exact * 0.004 + 1) << q;
  }
  EXPECT_EQ(h.Quantile(1.0), NearestRank(v, 1.0));
  EXPECT_EQ(h.count(), static_cast<int64_t>(v.size()));
}

}  // namespace
}  // namespace locksmith
