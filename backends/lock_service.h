// LockService: the servers one backend needs (roles, ports, config) on the
// cluster's hosts, and a factory for its lock clients. Optional capabilities
// are separate small interfaces a service may also implement (like Jepsen's
// Kill / Pause / Primary); callers discover them with dynamic_cast.
// Start/Stop are called from the run thread; capability calls come from the
// nemesis thread, so implementations guard their node table.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include <boost/asio/any_io_executor.hpp>
#include <nlohmann/json.hpp>

#include "backends/lock_client.h"
#include "checker/result.h"

namespace locksmith {

class LockService {
 public:
  virtual ~LockService() = default;
  // Starts every node and waits until each answers.
  virtual Status Start() = 0;
  // Stops every node this service started (teardown also kills leftovers).
  virtual void Stop() = 0;
  // Node names, in start order ("n1", "n2", ...).
  virtual std::vector<std::string> Nodes() const = 0;
  // A new client; `seed` makes its tokens reproducible from the run seed.
  virtual std::unique_ptr<LockClient> NewClient(boost::asio::any_io_executor executor,
                                                uint64_t seed) = 0;
  // Addresses, ports, roles, for config.json and the report.
  virtual nlohmann::json Describe() const = 0;
};

// A service whose nodes can be SIGKILLed and started again.
class KillableService {
 public:
  virtual ~KillableService() = default;
  virtual Status KillNode(const std::string& node) = 0;
  virtual Status StartNode(const std::string& node) = 0;
};

}  // namespace locksmith
