// AcquireWaiting: one logical acquire under a wait budget, the one acquire
// discipline the mutex workload gives every backend, so that a try-lock
// client and a queueing one are compared like with like. A try-lock client
// whose attempt the service refuses (a definite no) tries again after a
// seeded, jittered pause until the budget ends, as Redisson's lock() does; a
// blocking client (the ZooKeeper recipes) is told the budget
// (LockClient::SetAcquireWait) and waits for its turn inside its attempt.
// The acquire ends at the first grant; at the first attempt in doubt (the
// lock may be ours, so it is never tried again: the acquire is info and the
// worker's process ends, as after any info); or, after a definite no, once
// the budget or the run is over. An attempt started inside the budget runs
// to its own end. The caller records the whole as one invoke and one
// completion, so the checkers keep their meaning: ok is the last attempt's
// grant, and fail means every attempt certainly took no effect. Runs on the
// worker's coroutine; not thread-safe.
#pragma once

#include <chrono>
#include <cstdint>
#include <optional>
#include <random>
#include <string>

#include <boost/asio/awaitable.hpp>
#include <nlohmann/json.hpp>

#include "backends/lock_client.h"
#include "base/option_set.h"
#include "workloads/workload.h"

namespace locksmith {

class OpLog;

// A duration in `range`, drawn from `rng` (ms).
int64_t DrawMs(std::mt19937_64& rng, MsRange range);

struct AcquireWait {
  std::chrono::milliseconds budget{0};  // 0: a single attempt
  MsRange pause{5, 50};                 // between attempts (jitter), capped to the budget
};

// What one logical acquire became.
struct WaitedAcquire {
  AcquireResult last;     // the grant, the attempt in doubt, or the last refusal
  int attempts = 0;
  int64_t waited_ms = 0;  // from the first attempt's start to the last one's end
};

// Its completion value: AcquireCompletionValue of the last attempt, with
// "attempts" and "waited_ms", and for a fail "gave_up": "busy" when the last
// attempt was told the lock is taken (AcquireResult::busy), "unanswered"
// when it got no answer on the lock (nothing sent, no master, not
// connected).
nlohmann::json WaitedAcquireValue(const WaitedAcquire& waited);

// An exclusive acquire (through AcquireUnlessCrashed) or, with `shared`, a
// shared one, retried as above with pauses drawn from `rng`. Nothing when
// the worker crashed in an attempt: it must stop, recording nothing more.
boost::asio::awaitable<std::optional<WaitedAcquire>> AcquireWaiting(
    WorkloadContext& ctx, OpLog& log, LockClient& client, const std::string& key,
    std::chrono::milliseconds lease, bool shared, AcquireWait wait, std::mt19937_64& rng);

}  // namespace locksmith
