// Blocking, one-shot questions the controller asks a ZooKeeper server for its
// own checks (is a node serving? who leads? what does its wall clock say?),
// never for the workload's clients. The four-letter words (srvr, cons, ...)
// must be whitelisted in the server's zoo.cfg (the zookeeper service does so
// on the test hosts). Each call opens its own connection and closes it, so it
// is safe from any thread and shares nothing with the run's clients.
#pragma once

#include <chrono>
#include <cstdint>
#include <string>

#include "base/result.h"

namespace locksmith {

// Sends the four-letter word `word` ("srvr") to address:port and returns all
// the server wrote before closing; an error when the connection fails or the
// answer does not end within `timeout`.
Result<std::string> ZkFourLetterWord(const std::string& address, int port,
                                     const std::string& word, std::chrono::milliseconds timeout);

// The "Mode: X" line of a srvr answer ("leader", "follower", "standalone",
// ...); an error naming the answer when it has none (a server not in a quorum
// answers "This ZooKeeper instance is not currently serving requests").
Result<std::string> ParseZkMode(const std::string& srvr);

// The time a connection of session `session_id` was established, in the
// server's wall clock (ms since the Unix epoch), from a `cons` answer: the
// line carrying "sid=0x<session_id in hex>" has "est=<ms>".
Result<int64_t> ParseZkConnectionEstablished(const std::string& cons, int64_t session_id);

// The server's wall clock, ns since the Unix epoch, at millisecond
// precision: opens a session to that one server, asks `cons` when the
// server accepted its connection, and closes the session. ZooKeeper has no
// command that tells the time; a connection's establishment time, taken
// with the server's own System.currentTimeMillis, is the closest.
Result<int64_t> ZkWallClockNs(const std::string& address, int port,
                              std::chrono::milliseconds timeout);

}  // namespace locksmith
