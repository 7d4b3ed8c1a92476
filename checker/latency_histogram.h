// LatencyHistogram: the quantiles of a set of latencies in bounded memory.
// The first kExactSamples samples are kept as they are, so the quantiles of
// a small set (every unit test, a short run) are exact; past that they go
// into log-linear buckets of 128 per power of two, and each quantile is its
// bucket's midpoint: within 0.4% of the exact nearest-rank value (and
// within 1 ns below 128 ns). The count and the maximum are always exact.
// Memory: at most kExactSamples samples, then about 60 buckets per power of
// two the latencies span (a few tens of KiB). Not thread-safe.
#pragma once

#include <cstddef>
#include <cstdint>
#include <vector>

namespace locksmith {

class LatencyHistogram {
 public:
  static inline constexpr size_t kExactSamples = 1 << 16;

  void Add(int64_t ns);
  int64_t count() const { return count_; }
  // The nearest-rank quantile q in (0, 1] (1: the maximum), in ns; 0 when
  // empty.
  double Quantile(double q) const;

 private:
  static size_t BucketOf(int64_t ns);
  static double MidpointOf(size_t bucket);
  void Spill();

  int64_t count_ = 0;
  int64_t max_ = 0;
  mutable std::vector<int64_t> exact_;  // sorted lazily by Quantile
  mutable bool sorted_ = true;
  std::vector<int64_t> buckets_;  // counts, once spilled
  bool spilled_ = false;
};

}  // namespace locksmith
