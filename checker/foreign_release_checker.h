// ForeignReleaseChecker: a release that removed another client's lock. A
// release by process A of key K that completed ok while process B held K
// under a later grant is a foreign-release when A's own lease had ended by
// the time B was granted (or A's hold records no lease): A's lock was gone,
// B's was the one there, and A's release took it -- the blog post's
// `redis-del-unlock`, whose plain DEL has no owner check. B "held" K: its
// acquire completed ok before A's release was invoked, and B had neither
// invoked its release nor been told its lock was lost (lock-lost) when A's
// release completed. A's lease is its acquire's validity_ms, extended by
// the renewals (renew ok, re-entries) it had seen when B was granted; a
// hold whose lease is its session's ("session_lease": true, ZooKeeper)
// never ends by time. A release whose holder's lease was still valid when B
// was granted is not named: the service granted B unsafely (a failover's
// split brain), and A may have removed its own lock on its own master; the
// double-holder checker names that overlap.
//
// Named: A's acquire, B's acquire, A's release invoke and completion. One
// pass; memory bounded by keys and processes (the holds open at once);
// stateless; thread-safe.
#pragma once

#include <cstddef>

#include "checker/checker.h"

namespace locksmith {

class ForeignReleaseChecker : public Checker {
 public:
  // At most `max_listed` releases are listed as anomalies; all are counted.
  explicit ForeignReleaseChecker(size_t max_listed = 1000) : max_listed_(max_listed) {}
  std::string Name() const override { return "foreign-release"; }
  std::unique_ptr<CheckPass> Start() const override;

 private:
  size_t max_listed_;
};

}  // namespace locksmith
