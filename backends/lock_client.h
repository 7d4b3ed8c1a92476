// LockClient: one client's connection to a lock service. All calls are
// coroutines on the run's Boost.Asio io_context and every call has a deadline;
// a timeout or a lost connection is Outcome::kUnknown (Jepsen's :info, "may
// have happened"), never kFail. Not thread-safe: one client belongs to one
// worker, which issues one call at a time.
#pragma once

#include <chrono>
#include <cstdint>
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
  // Drops connections; pending calls complete as kUnknown.
  virtual void Close() = 0;
};

}  // namespace locksmith
