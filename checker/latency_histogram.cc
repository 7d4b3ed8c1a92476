#include "checker/latency_histogram.h"

#include <algorithm>
#include <bit>
#include <cmath>

namespace locksmith {
namespace {

constexpr int kSubBits = 7;  // 128 buckets per power of two
constexpr int64_t kSub = int64_t{1} << kSubBits;

}  // namespace

size_t LatencyHistogram::BucketOf(int64_t ns) {
  const auto v = static_cast<uint64_t>(std::max<int64_t>(ns, 0));
  if (v < static_cast<uint64_t>(kSub)) return static_cast<size_t>(v);
  const int shift = std::bit_width(v) - (kSubBits + 1);  // v >> shift in [128, 256)
  return static_cast<size_t>(kSub) * static_cast<size_t>(shift + 1) +
         static_cast<size_t>((v >> shift) - static_cast<uint64_t>(kSub));
}

double LatencyHistogram::MidpointOf(size_t bucket) {
  if (bucket < static_cast<size_t>(kSub)) return static_cast<double>(bucket);
  const int shift = static_cast<int>(bucket / kSub) - 1;
  const double low = std::ldexp(static_cast<double>(kSub + static_cast<int64_t>(bucket % kSub)),
                                shift);
  return low + (std::ldexp(1.0, shift) - 1) / 2;
}

void LatencyHistogram::Spill() {
  spilled_ = true;
  for (int64_t ns : exact_) {
    const size_t b = BucketOf(ns);
    if (b >= buckets_.size()) buckets_.resize(b + 1, 0);
    ++buckets_[b];
  }
  exact_.clear();
  exact_.shrink_to_fit();
}

void LatencyHistogram::Add(int64_t ns) {
  ++count_;
  max_ = count_ == 1 ? ns : std::max(max_, ns);
  if (!spilled_) {
    exact_.push_back(ns);
    sorted_ = false;
    if (exact_.size() > kExactSamples) Spill();
    return;
  }
  const size_t b = BucketOf(ns);
  if (b >= buckets_.size()) buckets_.resize(b + 1, 0);
  ++buckets_[b];
}

double LatencyHistogram::Quantile(double q) const {
  if (count_ == 0) return 0;
  const auto n = static_cast<size_t>(count_);
  const size_t rank = std::min(
      n, std::max<size_t>(1, static_cast<size_t>(std::ceil(q * static_cast<double>(n)))));
  if (rank == n) return static_cast<double>(max_);
  if (!spilled_) {
    if (!sorted_) std::sort(exact_.begin(), exact_.end());
    sorted_ = true;
    return static_cast<double>(exact_[rank - 1]);
  }
  size_t seen = 0;
  for (size_t b = 0; b < buckets_.size(); ++b) {
    seen += static_cast<size_t>(buckets_[b]);
    if (seen >= rank) return std::min(MidpointOf(b), static_cast<double>(max_));
  }
  return static_cast<double>(max_);
}

}  // namespace locksmith
