// LockBenchPolicy: what one client of redis_lock_bench does next -- which
// key it locks, and whether an acquire the server refused is tried again.
//
// By default a client owns one key (client i on key i % keys) and makes one
// attempt an acquire: with as many keys as clients nobody contends, and every
// op is one call. With `contend` it does what a full-speed run's mutex
// worker does with --backoff 0-0 (workloads/mutex_workload.cc,
// workloads/blocking_acquire.cc): every op picks a key uniformly among all
// of them from a seeded generator, and an acquire that is refused (a
// definite no: the lock is taken, or nothing was sent) tries again at once
// until it is granted, ends in doubt, its wait budget is spent or the bench
// is stopping -- each attempt a call, the whole one op. So the bench makes
// the run's lock-client calls without the run's recording, and its ops/s is
// the like-for-like baseline of a run's.
//
// Pure; one per client, used from that client's coroutine (not
// thread-safe).
#pragma once

#include <chrono>
#include <cstdint>
#include <random>

#include "backends/lock_client.h"

namespace locksmith {

class LockBenchPolicy {
 public:
  using Clock = std::chrono::steady_clock;

  // Client `client` of a bench over `keys` keys (>= 1). `acquire_wait`: how
  // long one acquire keeps trying under `contend` (the run's
  // --acquire-wait-ms); unused without it (a single attempt).
  LockBenchPolicy(int keys, int client, bool contend, std::chrono::milliseconds acquire_wait,
                  uint64_t seed);

  // The key index (0 .. keys - 1) of the next op.
  int NextKey();

  // An acquire starts at `now`: its attempts are counted from zero.
  void BeginAcquire(Clock::time_point now);
  // After one of its attempts ended in `outcome` at `now`: whether to try
  // again at once. Counts the attempt.
  bool RetryAfter(Outcome outcome, Clock::time_point now, bool stopping);
  // How long the acquire may still wait, as the run tells its client
  // (LockClient::SetAcquireWait) before each attempt; 0 once spent.
  std::chrono::milliseconds WaitLeft(Clock::time_point now) const;
  // The attempts of the current acquire so far.
  int attempts() const { return attempts_; }

 private:
  const int own_key_;
  const bool contend_;
  const std::chrono::milliseconds acquire_wait_;
  std::mt19937_64 rng_;
  std::uniform_int_distribution<int> pick_key_;
  Clock::time_point give_up_{};
  int attempts_ = 0;
};

}  // namespace locksmith
