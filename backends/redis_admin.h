// Blocking, one-shot Redis commands for the controller's own checks (is a
// node ready? what does a key hold?), never for the workload's clients. Each
// call opens a fresh RedisConnection on a private io_context and closes it,
// so it is safe from any thread and shares nothing with the run's clients.
// RedisPing is the project's one readiness check: RedisConnection::Connect's
// AUTH + PING, answered PONG (a server still loading its AOF answers LOADING:
// not ready).
#pragma once

#include <chrono>
#include <cstdint>
#include <string>
#include <vector>

#include "backends/redis_connection.h"
#include "backends/redis_protocol.h"
#include "base/result.h"

namespace locksmith {

// Sends one command (after AUTH when `endpoint` has a password) and returns
// its reply, which may itself be an error reply; an error when there was no
// reply within `timeout` (connect, AUTH and the command together).
Result<RedisReply> RedisCommandOnce(const RedisEndpoint& endpoint,
                                    const std::vector<std::string>& args,
                                    std::chrono::milliseconds timeout);

// The wall clock in a TIME reply ([seconds, microseconds] as strings), in
// nanoseconds since the Unix epoch.
Result<int64_t> ParseRedisTime(const RedisReply& reply);
// The server's wall clock: TIME, parsed.
Result<int64_t> RedisTimeNs(const RedisEndpoint& endpoint, std::chrono::milliseconds timeout);
// The wall clock in an INFO server reply's server_time_usec line, in
// nanoseconds since the Unix epoch.
Result<int64_t> ParseInfoServerTime(const RedisReply& reply);
// The server's wall clock from INFO server: how a Sentinel, which has no
// TIME command, tells its clock.
Result<int64_t> RedisInfoTimeNs(const RedisEndpoint& endpoint, std::chrono::milliseconds timeout);

// OK when the server answers PING with PONG within `timeout`.
Status RedisPing(const RedisEndpoint& endpoint, std::chrono::milliseconds timeout);

}  // namespace locksmith
