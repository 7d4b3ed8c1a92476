// ClientFaultPoint: the named points of a lock op where the run's
// client-side fault families may act (backends/client_faults.h), what
// passing one leaves its passer to do (ClientFaultEffect), and the hook
// through which a lock client passes the points that lie inside its own
// calls (LockClient::SetFaultPointHook). Below lock_client.h so a client
// names no family. Values and pure functions; thread-safe.
#pragma once

#include <boost/asio/awaitable.hpp>
#include <chrono>
#include <functional>
#include <set>
#include <string>

namespace locksmith {

// Where a worker or its client is when it asks. "Inside an op" points come
// while the worker's acquire or release op is open in the history: a
// family records only lone ops there (ClientFaultTarget::Note), never an
// op pair.
enum class ClientFaultPoint {
  kBeforeAcquire,    // inside the acquire op, before its request is sent
  kAcquireInFlight,  // inside the acquire op: replies granted it, not yet
                     // judged (a client's own point: Redlock's)
  kAcquireAnswered,  // inside the acquire op: sent and answered ok or
                     // unknown, the answer not yet read (a client with a
                     // multi-request acquire passes it itself, between its
                     // requests: redis-setnx-expire's SETNX and PEXPIRE)
  kCriticalSection,  // holding the lock, no op open (after the acquire, or
                     // where the workload writes: --pause-at)
  kBeforeRelease,    // holding the lock, no op open, about to release
  kReleaseInFlight,  // inside the release op: the server answered, the
                     // reply not yet read (a client's own point)
};

// "before-acquire", "acquire-in-flight", ... (for messages and tests).
const char* ClientFaultPointName(ClientFaultPoint point);
// Whether the worker has an op open in the history at `point`.
bool InsideAnOp(ClientFaultPoint point);

// What passing a point left its passer to do.
struct ClientFaultEffect {
  // The worker's process died there: the passer makes it so (a worker
  // crashes its client, LockClient::Crash; a client at its own point drops
  // its connections, sends nothing more and returns kUnknown with
  // `crashed`), and the worker stops for good, recording nothing more.
  // Honoured at the acquire points (kBeforeAcquire, kAcquireAnswered),
  // where the open acquire then stays open (info at the end: it may have
  // happened).
  bool crashed = false;
  // The client's wall clock stepped meanwhile (kAcquireInFlight: the
  // client applies it before it judges the replies).
  std::chrono::milliseconds clock_step{0};
};

// How a client passes a point inside its own call on `key`: it awaits the
// hook there and honours the effect.
using ClientFaultPointHook =
    std::function<boost::asio::awaitable<ClientFaultEffect>(ClientFaultPoint point,
                                                            const std::string& key)>;
// The points a client passes itself (LockClient::OwnFaultPoints).
using ClientFaultPoints = std::set<ClientFaultPoint>;

}  // namespace locksmith
