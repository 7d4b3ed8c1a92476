// LockClient: one client's connection to a lock service. All calls are
// coroutines on the run's Boost.Asio io_context and every call has a deadline;
// a timeout or a lost connection is Outcome::kUnknown (Jepsen's :info, "may
// have happened"), never kFail. Not thread-safe: one client belongs to one
// worker, which issues one call at a time.
#pragma once

#include <chrono>
#include <cstdint>
#include <map>
#include <optional>
#include <string>

#include <boost/asio/awaitable.hpp>
#include <nlohmann/json.hpp>

#include "checker/result.h"

namespace locksmith {

enum class Outcome { kOk, kFail, kUnknown };

struct AcquireResult {
  Outcome outcome = Outcome::kUnknown;
  std::string token;             // set when ok (and when unknown: the token tried)
  std::optional<int64_t> fence;  // fencing token, where the backend has one
  int64_t validity_ms = 0;       // lease left by the client's own reckoning
  std::string error;             // why fail / unknown
  // What the backend can say about the acquire beyond the fields above
  // (Redlock: the masters that granted it): an object whose entries join the
  // op's value in the history; null when there is nothing.
  nlohmann::json detail;
};

struct ReleaseResult {
  Outcome outcome = Outcome::kUnknown;
  std::string error;
};

class LockClient {
 public:
  virtual ~LockClient() = default;
  // Opens connections; an error here means the client cannot start at all.
  virtual boost::asio::awaitable<Status> Connect() = 0;
  virtual boost::asio::awaitable<AcquireResult> Acquire(const std::string& key,
                                                        std::chrono::milliseconds lease) = 0;
  virtual boost::asio::awaitable<ReleaseResult> Release(const std::string& key,
                                                        const std::string& token) = 0;
  // Read-write locks: a shared (read) acquire may hold `key` together with
  // other shared holders, never with an exclusive (Acquire) one; its token is
  // given back with Release. Only a client whose SupportsShared() is true
  // takes them; a workload that asks for shared acquires refuses any other
  // client before it starts (BackendEntry::shared_clients: at config time).
  // The default certainly takes nothing: kFail.
  virtual bool SupportsShared() const { return false; }
  virtual boost::asio::awaitable<AcquireResult> AcquireShared(const std::string& key,
                                                              std::chrono::milliseconds lease) {
    (void)key;
    (void)lease;
    AcquireResult refused;
    refused.outcome = Outcome::kFail;
    refused.error = "this lock client has no shared (read) locks";
    co_return refused;
  }
  // Drops connections; pending calls complete as kUnknown.
  virtual void Close() = 0;
  // The client's process stops (true), as in a long GC pause, and goes on
  // (false): the client-pause nemesis's stall. A client whose library keeps a
  // session alive on threads of its own stops talking to the servers until
  // it goes on; others need nothing (the stalled worker is the pause).
  virtual void SetPaused(bool paused) { (void)paused; }
  // What the client counted about itself (watch notifications, sessions,
  // ...); the workload records it once at the end as a "client-stats" op.
  virtual std::map<std::string, int64_t> Counters() const { return {}; }
};

}  // namespace locksmith
