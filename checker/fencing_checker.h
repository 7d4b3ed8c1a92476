// FencingChecker: what fencing tokens promise, judged from both ends.
//
// The resource: it never accepted a write with a fence lower than one it had
// already accepted. An accepted op is a `read` or `write` with a "fence" in
// its invoke that completed ok (a fenced read registers its fence on the
// resource too); a violation (stale-write-accepted) is an accepted write
// whose invoke came after an accepted op of the same key with a higher fence
// had completed. Named: both ops. Also counts the rejections (fail with
// "rejected").
//
// The lock service: a fence names one acquisition. A violation
// (fence-reused) is an ok acquire of a key whose "fence" an earlier ok
// acquire of the same key was already granted -- whether or not the
// resource accepted either (a failover to a replica that missed the
// counter's INCRs hands the same numbers out again; a resource that lets
// an equal fence through then takes both holders' writes). Named: both
// acquires. The granted fences of a key are kept as disjoint ranges, so a
// counter that counts up by one (Redis's INCR per key) costs one range per
// gap (acquires whose fence was never seen: bounded by the processes that
// ended `info`); fences that jump (ZooKeeper's czxid) cost one range each,
// up to kMaxRangesPerKey per key, beyond which the lowest are forgotten
// (stats: fences_forgotten).
//
// A history without fences is valid with nothing checked. One pass; memory:
// per key its highest accepted fence and its granted ranges, per process
// its op in flight, the listed anomalies, and -- to name the first grant of
// a fence reused later -- one OpMark (32 bytes) per granted fence still
// remembered (a forgotten range forgets its grants too: should one of its
// fences be granted twice more, the second grant is named as the first).
// Stateless; thread-safe.
#pragma once

#include <cstddef>

#include "checker/checker.h"

namespace locksmith {

class FencingChecker : public Checker {
 public:
  static constexpr size_t kMaxRangesPerKey = size_t{1} << 14;

  // At most `max_listed` anomalies of each kind are listed; all are counted.
  explicit FencingChecker(size_t max_listed = 1000) : max_listed_(max_listed) {}
  std::string Name() const override { return "fencing"; }
  std::unique_ptr<CheckPass> Start() const override;

 private:
  size_t max_listed_;
};

}  // namespace locksmith
