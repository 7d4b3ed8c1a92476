// ClientFaults: the one seam between the client-side fault families
// (client-pause, client-crash, a family of your own) and the workers that
// drive lock clients. A worker passes the same named points on every op
// (ClientFaultPoint, backends/client_fault_point.h: before an acquire, with
// an acquire's replies in flight, once an acquire was answered, inside the
// critical section, before a release, with a release's reply in flight;
// those inside a client's own calls its client passes for it, through
// LockClient::SetFaultPointHook) and asks the run's ClientFaults at each;
// every family registered there may act on the worker at that point
// through a ClientFaultTarget (stall it, record ops of its process) and
// says what must happen next (ClientFaultEffect: its process died, its
// clock stepped). A family is its own files: the nemesis half takes
// requests on the nemesis thread (nemesis/nemesis_registry.h), and the
// worker half below (a ClientFaultFamily) it adds to the run's ClientFaults
// when it is made (NemesisContext::client_faults). Nothing else of the run
// names a family. Thread-safe: Add before the workload starts (the nemesis
// is made first), At from any worker coroutine while families take
// requests from the nemesis thread (each family guards its own state).
#pragma once

#include <boost/asio/awaitable.hpp>
#include <chrono>
#include <cstdint>
#include <memory>
#include <mutex>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "backends/client_fault_point.h"
#include "backends/lock_client.h"

namespace locksmith {

// The worker a family acts on, as the worker lends itself at a point.
class ClientFaultTarget {
 public:
  virtual ~ClientFaultTarget() = default;
  virtual int64_t process() const = 0;
  virtual LockClient& client() = 0;
  // An op pair of the worker's process: only where no op is open.
  virtual void Invoke(const std::string& f, const std::string& key, nlohmann::json value) = 0;
  virtual void Complete(Outcome outcome, nlohmann::json value, const std::string& error) = 0;
  // A lone op of the worker's process (a completion without an invoke, as
  // lock events are): anywhere.
  virtual void Note(const std::string& f, const std::string& key, nlohmann::json value) = 0;
  // Waits `wait` on the worker's executor; the end of the run (its
  // deadline, an interrupt) cuts it short.
  virtual boost::asio::awaitable<void> Sleep(std::chrono::milliseconds wait) = 0;
  virtual std::chrono::steady_clock::time_point Now() const = 0;
};

// One family's worker half. Implementations are thread-safe: At runs on
// workers while the family's nemesis takes requests on its own thread.
class ClientFaultFamily {
 public:
  virtual ~ClientFaultFamily() = default;
  // Acts on `target` at `point` on `key` if a request matches; returns at
  // once otherwise (every worker asks at every point, whether the worker
  // or its client passes it: a family need not know which).
  virtual boost::asio::awaitable<ClientFaultEffect> At(ClientFaultPoint point,
                                                       ClientFaultTarget& target,
                                                       const std::string& key) = 0;
};

class ClientFaults {
 public:
  // Registers a family's worker half for this run; it lives as long as this
  // ClientFaults (the run's), so the nemesis that feeds it may keep the
  // reference returned.
  template <typename Family>
  Family& Add(std::shared_ptr<Family> family) {
    Family& added = *family;
    AddFamily(std::move(family));
    return added;
  }
  void AddFamily(std::shared_ptr<ClientFaultFamily> family);
  // Whether no family is registered.
  bool empty() const;

  // Every family at `point`, in the order they were added; stops at the
  // first that crashed the worker. Clock steps add up.
  boost::asio::awaitable<ClientFaultEffect> At(ClientFaultPoint point, ClientFaultTarget& target,
                                               const std::string& key) const;

 private:
  std::vector<std::shared_ptr<ClientFaultFamily>> Families() const;

  mutable std::mutex mu_;
  std::vector<std::shared_ptr<ClientFaultFamily>> families_;
};

}  // namespace locksmith
