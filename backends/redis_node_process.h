// RedisNodeProcess: one redis-server or redis-sentinel process of a service
// on its host -- the start / stop / kill / pause steps every Redis-based
// backend shares: write its config through the Host, spawn it by argv,
// wait (bounded) until it answers an authenticated PING, SIGKILL it,
// SIGSTOP / SIGCONT it. It knows nothing about replication or roles: the
// service writes the config text.
//
// Thread-safety: every method may be called from any thread; mu_ guards the
// process state and is never held while the node is polled for readiness
// (seconds), so a fault on one node never waits for another to come up.
#pragma once

#include <chrono>
#include <mutex>
#include <optional>
#include <string>

#include "backends/node_table.h"
#include "backends/redis_connection.h"
#include "base/result.h"
#include "cluster/host.h"

namespace locksmith {

// Quotes a redis.conf / sentinel.conf argument (a password may hold any
// printable text).
std::string RedisConfQuoted(const std::string& s);

struct RedisNodeFiles {
  std::string program;  // "redis-server" or "redis-sentinel"
  std::string config;   // file name in the host's directory ("sentinel.conf")
  std::string log;      // file name in the host's directory ("sentinel.log")
};

class RedisNodeProcess {
 public:
  RedisNodeProcess(ServiceNode info, Host* host, RedisNodeFiles files, std::string password,
                   std::chrono::milliseconds ready_timeout);

  const ServiceNode& info() const { return info_; }
  Host* host() const { return host_; }
  // Where the controller reaches it, with the password.
  RedisEndpoint Endpoint() const;

  // Writes `config` (when given; nullopt keeps the file a previous start left,
  // e.g. one the sentinel rewrote), spawns the program and waits until it
  // answers PING, it exits, or the ready timeout passes.
  Status Launch(const std::optional<std::string>& config);
  // SIGKILL; an error when it is down already.
  Status Kill();
  Status Pause();
  Status Resume();
  // Kills it if it runs; never fails.
  void Stop();
  // True when started and not killed (paused counts as running).
  bool Running();
  // Its pid while it runs.
  std::optional<int> Pid();
  bool Paused();

 private:
  Status AwaitReady(int pid);

  const ServiceNode info_;
  Host* const host_;
  const RedisNodeFiles files_;
  const std::string password_;
  const std::chrono::milliseconds ready_timeout_;
  std::mutex mu_;
  int pid_ = -1;           // -1 while down
  bool starting_ = false;  // a launch is waiting for it to answer
  bool paused_ = false;    // SIGSTOPped
};

}  // namespace locksmith
