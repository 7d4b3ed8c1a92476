// LoopbackPortPool: hands out loopback ports for the servers of loopback
// hosts (no network namespace, so every server shares 127.0.0.1 and needs a
// port of its own). A port is leased to an owner (a cluster's tag) until the
// owner releases its leases at teardown, so two hosts never get the same port
// even before their servers bind it, and a process that runs many clusters
// one after another (a suite) does not run out. Each LocalCluster makes its
// own pool unless it is given one to share with clusters that live at the
// same time. Candidates come from a random start in [low, high), below the
// default ephemeral range (32768+) so clients' outgoing connections do not
// take a server's port; the random start keeps concurrent runs of different
// processes apart. A port is only handed out if it can be bound right now.
// Thread-safe.
#pragma once

#include <cstdint>
#include <map>
#include <mutex>
#include <random>
#include <set>
#include <string>

namespace locksmith {

class LoopbackPortPool {
 public:
  static constexpr int kDefaultLow = 20000;
  static constexpr int kDefaultHigh = 32000;

  // Ports in [low, high); `seed` picks where the search starts (tests pass
  // one; 0: from std::random_device).
  explicit LoopbackPortPool(int low = kDefaultLow, int high = kDefaultHigh, uint64_t seed = 0);
  LoopbackPortPool(const LoopbackPortPool&) = delete;
  LoopbackPortPool& operator=(const LoopbackPortPool&) = delete;

  // A port leased to nobody that can be bound on 127.0.0.1 now, leased to
  // `owner`; 0 when there is none.
  int Lease(const std::string& owner);
  // Ends every lease of `owner`.
  void ReleaseAll(const std::string& owner);
  // The leased ports of `owner` (every owner if empty).
  std::set<int> Leased(const std::string& owner = "") const;

 private:
  const int low_;
  const int high_;
  mutable std::mutex mu_;
  std::mt19937_64 rng_;
  std::map<int, std::string> leases_;  // port -> owner
};

}  // namespace locksmith
