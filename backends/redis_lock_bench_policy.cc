#include "backends/redis_lock_bench_policy.h"

#include <algorithm>

#include "base/seed.h"

namespace locksmith {

namespace {
// The mutex workload seeds worker w's key choice with this stream + w.
constexpr uint64_t kBenchKeyStream = 1'000'000;
}  // namespace

LockBenchPolicy::LockBenchPolicy(int keys, int client, bool contend,
                                 std::chrono::milliseconds acquire_wait, uint64_t seed)
    : own_key_(client % keys),
      contend_(contend),
      acquire_wait_(contend ? acquire_wait : std::chrono::milliseconds(0)),
      rng_(SubSeed(seed, kBenchKeyStream + static_cast<uint64_t>(client))),
      pick_key_(0, keys - 1) {}

int LockBenchPolicy::NextKey() { return contend_ ? pick_key_(rng_) : own_key_; }

void LockBenchPolicy::BeginAcquire(Clock::time_point now) {
  give_up_ = now + acquire_wait_;
  attempts_ = 0;
}

bool LockBenchPolicy::RetryAfter(Outcome outcome, Clock::time_point now, bool stopping) {
  ++attempts_;
  // A grant ends the acquire, and so does an attempt in doubt (the lock may
  // be ours): only a definite no is tried again, as the run does.
  if (outcome != Outcome::kFail) return false;
  return now < give_up_ && !stopping;
}

std::chrono::milliseconds LockBenchPolicy::WaitLeft(Clock::time_point now) const {
  if (now >= give_up_) return std::chrono::milliseconds(0);
  return std::chrono::duration_cast<std::chrono::milliseconds>(give_up_ - now);
}

}  // namespace locksmith
