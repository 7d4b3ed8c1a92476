// LockService: the servers one backend needs, described as data (a
// NodeTable: name, role, host, program, address of every server), how to
// start and stop them, and a factory for its lock clients. What a nemesis can
// do to a service is a separate small capability interface the service may
// also implement (Killable, Pausable, HasPrimary, HasClocks,
// HasNodeProcesses; like Jepsen's
// Kill / Pause / Primary); callers ask for one with Capability<C>(service).
// Thread-safety: Start/Stop are called from the run thread, NewClient from
// the io thread, capability calls from the nemesis thread; Table() and
// Describe() from any. Implementations guard their mutable node state.
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include <boost/asio/any_io_executor.hpp>
#include <nlohmann/json.hpp>

#include "backends/lock_client.h"
#include "backends/node_table.h"
#include "backends/service_events.h"
#include "base/result.h"
#include "cluster/host.h"

namespace locksmith {

// Which client of the run a new LockClient is: its worker's index (stable
// while the worker's process number changes after an info op), the seed of
// its tokens, and the address its sockets bind to before connecting, so a
// partition can cut this one client off (empty: the kernel's choice).
struct ClientSlot {
  int index = 0;
  uint64_t seed = 0;
  std::string source_address;
};

class LockService {
 public:
  virtual ~LockService() = default;
  // The backend's name ("redis").
  virtual std::string Backend() const = 0;
  // Every server of the service, in start order.
  virtual NodeTable Table() const = 0;
  // The roles its nodes can play (every role Table() can show, and
  // "primary" where a leader is marked once elected): what fault targets
  // select by. Most backends' nodes are all primaries.
  virtual std::vector<NodeRoleSpec> Roles() const { return {{kPrimaryRole}}; }
  // Settings beyond the table worth recording (persistence, ...): an object.
  virtual nlohmann::json Settings() const { return nlohmann::json::object(); }
  // What must never reach a file the run keeps (its servers' passwords):
  // the run redacts each from the node files it copies into its directory.
  virtual std::vector<std::string> Secrets() const { return {}; }
  // The password every node asks its clients for; empty when none does or
  // the backend's clients log in otherwise. What an external lock client
  // (exec:) is told at its handshake.
  virtual std::string ClientPassword() const { return ""; }

  // Starts every node and waits until each answers.
  virtual Status Start() = 0;
  // Stops every node this service started (teardown also kills leftovers).
  virtual void Stop() = 0;
  // A new client of the run's chosen kind (BackendContext::client) for
  // `slot`; the slot's seed makes its tokens reproducible from the run seed.
  virtual std::unique_ptr<LockClient> NewClient(boost::asio::any_io_executor executor,
                                                const ClientSlot& slot) = 0;

  // Node names, in start order ("n1", "n2", ...).
  std::vector<std::string> Nodes() const { return NodeNames(Table()); }
  // For config.json and the report: derived from the table, the same shape
  // for every backend (see DescribeService).
  nlohmann::json Describe() const { return DescribeService(Backend(), Settings(), Table()); }
};

// A service whose nodes can be SIGKILLed and started again (kill nemesis).
class Killable {
 public:
  virtual ~Killable() = default;
  virtual Status KillNode(const std::string& node) = 0;
  // Starts a node that is down and waits until it answers.
  virtual Status StartNode(const std::string& node) = 0;
  // Whether the node's process runs now (started and not killed, paused or
  // not), so a fault family can tell that another one already restarted
  // it; false where the service cannot tell.
  virtual bool IsUp(const std::string& node) {
    (void)node;
    return false;
  }
};

// Starts `node` unless it is up already: composed fault families (kill and
// failover) may both have taken it down, and whichever heals second finds
// it running. `was_up` (optional) says which happened.
inline Status StartUnlessUp(Killable& killable, const std::string& node,
                            bool* was_up = nullptr) {
  const bool up = killable.IsUp(node);
  if (was_up != nullptr) *was_up = up;
  return up ? OkStatus() : killable.StartNode(node);
}

// A service whose nodes can be frozen and thawed: SIGSTOP / SIGCONT, like a
// long GC pause or a stalled VM (pause nemesis).
class Pausable {
 public:
  virtual ~Pausable() = default;
  virtual Status PauseNode(const std::string& node) = 0;
  virtual Status ResumeNode(const std::string& node) = 0;
};

// A service in which one node leads: a Redis master, a ZooKeeper leader.
class HasPrimary {
 public:
  virtual ~HasPrimary() = default;
  // The name of the node that leads now; an error when none does (mid
  // failover) or the service cannot tell.
  virtual Result<std::string> Primary() = 0;
  // Whether another node takes over when the primary is gone (a replica
  // promoted, a leader elected); false where the primary never changes.
  virtual bool Promotes() const { return true; }
};

// A service whose nodes read their wall clock through the clock shim of
// their host (nemesis/clock_shim.cc) and tell it when asked, so the clock
// nemesis can move a node's clock and see from outside that it moved.
class HasClocks {
 public:
  virtual ~HasClocks() = default;
  // The host `node` runs on (its clock shim's control file lives there);
  // nullptr for an unknown node.
  virtual Host* NodeHost(const std::string& node) = 0;
  // The node's wall clock as the node itself reports it (Redis: TIME), in
  // nanoseconds since the Unix epoch.
  virtual Result<int64_t> WallClockNs(const std::string& node) = 0;
};

// The process that serves a node now: its host and its pid there.
struct NodeProcess {
  Host* host = nullptr;
  int pid = -1;
};

// A service that tells which process serves each node, so a fault done to
// a node can be confirmed from outside: a restart by a new pid, a pause by
// the process's state on its host.
class HasNodeProcesses {
 public:
  virtual ~HasNodeProcesses() = default;
  // The node's process, or nullopt while it is down (or for an unknown node).
  virtual std::optional<NodeProcess> ProcessOf(const std::string& node) = 0;
};

// A service that reports its own events while it runs (a leader change, a
// node seen down: backends/service_events.h). EventKinds declares every kind
// it reports, and who reports them; any thread. WatchEvents starts
// reporting to `sink` (called from a thread of the service's, possibly
// concurrently with anything else) until StopEvents, which returns once
// `sink` is no longer called. Both from the run thread. WatchEvents returns
// once every event source is heard (so the workload's first faults are
// seen), or after a deadline with an error naming what is not; the sources
// it does hear report either way.
class HasEvents {
 public:
  virtual ~HasEvents() = default;
  virtual ServiceEventKinds EventKinds() const = 0;
  virtual Status WatchEvents(std::function<void(ServiceEvent)> sink) = 0;
  virtual void StopEvents() = 0;
};

// The capability C (Killable, Pausable, HasPrimary, HasClocks, HasEvents,
// HasNodeProcesses) of `service`,
// or nullptr when the backend does not have it.
template <typename C>
C* Capability(LockService& service) {
  return dynamic_cast<C*>(&service);
}

}  // namespace locksmith
