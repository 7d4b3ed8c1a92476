// RedisService: the `redis` backend's servers — password-protected
// redis-server masters, one per host, each reachable only on its test host's
// address — and its lock clients (RedisLockClient against the first node).
// Persistence none | everysec | always decides what a SIGKILLed node
// remembers when started again. Also a KillableService for the kill nemesis.
// Thread-safe: Start/Stop come from the run thread, KillNode/StartNode from
// the nemesis thread, NewClient from the io thread; the node table is
// guarded.
#pragma once

#include <chrono>
#include <mutex>
#include <string>
#include <vector>

#include "backends/lock_service.h"
#include "harness/host.h"

namespace locksmith {

struct RedisServiceOptions {
  int nodes = 1;
  std::string persistence = "none";  // none | everysec | always
  std::string password;              // required: the server refuses other clients
  std::string nodes_dir;             // per-node config, data and logs: <nodes_dir>/<node>/
  std::chrono::milliseconds client_timeout{500};
  std::chrono::milliseconds ready_timeout{20000};
};

// The redis.conf of one node (pure; exposed for tests).
std::string RedisConfigText(const std::string& address, int port, const std::string& password,
                            const std::string& persistence, const std::string& data_dir);

class RedisService : public LockService, public KillableService {
 public:
  RedisService(Cluster& cluster, RedisServiceOptions options);

  Status Start() override;
  void Stop() override;
  std::vector<std::string> Nodes() const override;
  std::unique_ptr<LockClient> NewClient(boost::asio::any_io_executor executor,
                                        uint64_t seed) override;
  nlohmann::json Describe() const override;

  Status KillNode(const std::string& node) override;
  Status StartNode(const std::string& node) override;

 private:
  struct Node {
    std::string name;
    Host* host = nullptr;
    int port = 0;
    int pid = -1;  // -1 while down
    std::string dir;
  };
  Node* FindNode(const std::string& name);
  // Spawns redis-server for `node` and waits until it answers PING.
  Status Launch(Node& node);

  Cluster& cluster_;
  const RedisServiceOptions options_;
  // Names, hosts, ports and dirs are fixed at construction, so readers of
  // those need no lock; mu_ guards the pids and serializes launches.
  std::mutex mu_;
  std::vector<Node> nodes_;
};

}  // namespace locksmith
