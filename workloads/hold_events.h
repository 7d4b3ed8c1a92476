// HoldEvents: one worker's record of the lock events its client reports on
// its own while a lock is held (LockClient::SetEventSink): renewals and a
// lost lock (a watchdog renewal that found the key gone, a ZooKeeper session
// expired or cut off), each a lone op of the worker's current process with
// the hold's key and token -- shared by every workload that holds locks.
// It also remembers the hold in progress, so the worker can ask whether the
// client said that very hold is lost. Lives as long as the client it is the
// sink of; used on the io_context thread only (the sink is called on the
// client's executor); not thread-safe.
#pragma once

#include <string>

#include "backends/lock_client.h"

namespace locksmith {

class OpLog;

class HoldEvents {
 public:
  explicit HoldEvents(OpLog& log) : log_(log) {}

  // The sink to give the worker's client (SetEventSink); `this` must
  // outlive the client.
  LockEventSink Sink() {
    return [this](LockEvent e) { OnEvent(e); };
  }
  // Records `e`: `renew` (ok with validity_ms, fail or info) or `lock-lost`.
  void OnEvent(const LockEvent& e);

  // The worker holds `key` with `token` from now on, until End().
  void Begin(const std::string& key, const std::string& token);
  void End();
  // The client said the hold in progress is lost.
  bool lost() const { return lost_; }

 private:
  OpLog& log_;
  std::string key_;  // held now; empty when none
  std::string token_;
  bool lost_ = false;
};

}  // namespace locksmith
