// The backends locksmith knows, by name: how many hosts each needs, its
// options (declared by the backend next to its service, see OptionSet), how
// to build its LockService on a cluster from them, its clients, which of
// them give fencing tokens, and the Debian packages its servers need (the
// ssh provider installs them on nodes; setup.sh and the docker node image
// list the same, which a test checks). Adding a backend is its own files
// plus one line in kBackends. Thread-safe (immutable table).
#pragma once

#include <chrono>
#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "backends/lock_service.h"
#include "backends/service_events.h"
#include "base/option_set.h"
#include "cluster/host.h"

namespace locksmith {

// What a backend is built with besides its own options: run-wide facts.
struct BackendContext {
  Cluster& cluster;
  uint64_t seed = 0;  // the backend's own stream of seeded choices (never a password)
  std::chrono::milliseconds client_timeout{500};  // deadline of every client call
  std::string client;  // the lock client NewClient builds: one of the entry's `clients`
  // --fencing on: acquires carry a token that only grows (redis, redis-sentinel:
  // an INCR in the acquire script; zookeeper always has one).
  bool fencing = false;
};

using MakeBackendFn = Result<std::unique_ptr<LockService>> (*)(const ModuleOptions& options,
                                                               const BackendContext& context);

struct BackendEntry {
  const char* name;
  // How many hosts it needs with `options` (made by its factory): n1 .. nK.
  int (*hosts)(const ModuleOptions& options);
  OptionsFactory options;  // its options at their defaults
  MakeBackendFn make;
  // The lock clients it offers (`--client`); the first is the default.
  std::vector<std::string> clients;
  // Those of `clients` that take shared (read) locks (LockClient::AcquireShared).
  std::vector<std::string> shared_clients = {};
  // Those of `clients` whose acquires carry a fencing token (--fencing on).
  std::vector<std::string> fencing_clients = {};
  // Why no client of this backend can give one, when fencing_clients is empty.
  const char* no_fencing_because = "";
  // The Debian packages its servers need on a node.
  std::vector<std::string> packages = {};
  // The kinds of events its service reports, when it reports any: what its
  // HasEvents::EventKinds() says, known without a service (for runs written
  // before results.json listed them).
  ServiceEventKinds (*service_events)() = nullptr;
};

const std::vector<BackendEntry>& Backends();
std::vector<std::string> BackendNames();
// The first entry's: what a run uses when it names no backend.
std::string DefaultBackendName();
// The entry named `name`, or an error listing the known ones.
Result<const BackendEntry*> FindBackend(const std::string& name);
// Host names the backend needs with `options` ("n1", ...), or an error for
// an unknown name.
Result<std::vector<std::string>> BackendNodeNames(const std::string& backend,
                                                  const ModuleOptions& options);
// The backend's lock client called `client`, or its default when `client` is
// empty; an error naming the backend's clients when it has no such client.
// Every backend takes an external program, "exec:PROGRAM ARGS..."
// (backends/exec_protocol.h), which says at its handshake whether it has
// fencing tokens and shared locks: CheckSharedClient and CheckFencingClient
// accept it.
Result<std::string> ResolveClient(const std::string& backend, const std::string& client);
// OkStatus when the backend's client `client` (resolved as ResolveClient
// does) takes shared (read) locks; otherwise an error saying that `why` (the
// workload's setting that asks for them) needs one, and which clients do.
Status CheckSharedClient(const std::string& backend, const std::string& client,
                         const std::string& why);
// OkStatus when the backend's client `client` (resolved as ResolveClient
// does) gives fencing tokens; otherwise an error for --fencing on saying why
// and what would.
Status CheckFencingClient(const std::string& backend, const std::string& client);
// The kinds of events the backend's service reports (BackendEntry::
// service_events); nullopt for an unknown backend or one that reports none.
std::optional<ServiceEventKinds> BackendServiceEvents(const std::string& backend);
// The Debian packages the backend's servers need on a node.
Result<std::vector<std::string>> BackendPackages(const std::string& backend);
// Every client of every backend, each once, in registry order.
std::vector<std::string> AllClientNames();
// A backend with a fixed number of hosts, for BackendEntry::hosts.
template <int N>
int FixedHosts(const ModuleOptions&) {
  return N;
}
// `options` must have been made by the backend's own factory.
Result<std::unique_ptr<LockService>> MakeLockService(const std::string& backend,
                                                     const ModuleOptions& options,
                                                     const BackendContext& context);

}  // namespace locksmith
