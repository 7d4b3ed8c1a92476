// LocalCluster: the local cluster provider. As root, every node is a host in
// its own network namespace "lsm-<tag>-<node>", joined by a veth pair to the
// run's bridge "lsm-<tag>-br", with an address in the run's /28 slice of
// 198.18.0.0/24 (see net_plan.h), closed to every other local user by the
// run's guard table (GuardRules); the controller reaches the nodes through
// the bridge's address, and each lock client binds an address of its own in
// the slice's client range, so a partition can cut one client off; an
// external client's program gets a host of its own at that address
// (ClientHost, see net_plan.h). Without root (or with force_loopback), every host is
// 127.0.0.1 with distinct ports leased from a LoopbackPortPool (the
// cluster's own, or one shared with clusters alive at the same time) and
// released at teardown, and no network faults. Host <node>'s directory is
// <nodes_dir>/<node>/.
//
// Everything is recorded in the run registry before it is created, so
// `locksmith cleanup` can remove what a SIGKILLed run left. Creation removes
// what it made if a step fails. Teardown (also run by the destructor) kills
// the run's processes, then removes its links, guard table and namespaces.
// Thread-safe: hosts and Teardown may be used from any thread.
#pragma once

#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <vector>

#include "cluster/host.h"
#include "cluster/local_host.h"
#include "cluster/loopback_port_pool.h"
#include "cluster/net_ops.h"
#include "cluster/process_supervisor.h"
#include "cluster/run_registry.h"

namespace locksmith {

struct LocalClusterOptions {
  std::string tag;                      // 6 chars of [0-9a-z]; empty: random
  std::vector<std::string> node_names;  // 1..13 distinct names, see ValidateNodeName
  std::string nodes_dir;                // node files and logs go to <nodes_dir>/<node>/
  bool force_loopback = false;          // loopback hosts even as root
  // PR_SET_PDEATHSIG(SIGKILL) on spawned processes: servers die with a
  // SIGKILLed controller (their own children do not: cleanup sweeps those).
  bool die_with_controller = true;
  std::string state_dir;  // run registry; empty: RunRegistry::DefaultDir(). Tests only.
  // Where loopback hosts lease their ports; empty: a pool of the cluster's
  // own. Share one between clusters that live at the same time in one process.
  std::shared_ptr<LoopbackPortPool> port_pool;
  // The kernel's network; null: RealNetOps(). A fake (testing::FakeNet)
  // gives the hosts namespaces, bridge and veths in memory, even without
  // root: for tests of creation and teardown, which must not Spawn (the
  // namespaces exist only in the fake). Must outlive the cluster.
  NetOps* net = nullptr;
};

Result<std::unique_ptr<Cluster>> CreateLocalCluster(const LocalClusterOptions& options);

class LocalCluster : public Cluster {
 public:
  ~LocalCluster() override;  // Teardown(), errors dropped

  const std::string& Tag() const override { return record_.tag; }
  std::vector<Host*> Hosts() override;
  Host* FindHost(const std::string& name) override;
  // 198.19.<slice>.<index+1> with namespaces (see net_plan.h); empty on
  // loopback.
  std::string ClientAddress(int index) override;
  // Namespace "lsm-<tag>-client.<index>" on the bridge, its directory
  // <nodes_dir>/client.<index>/; null on loopback.
  Result<Host*> ClientHost(int index) override;
  Host* MadeClientHost(int index) override;
  Status Teardown() override;

  bool HasOwnNetwork() const { return record_.slice >= 0; }
  // The controller's address as the nodes see it (the bridge's); 127.0.0.1
  // on loopback. Client-to-node partitions drop this address.
  const std::string& ControllerAddress() const { return controller_address_; }
  // A copy of the run record as last saved.
  RunRecord Record();

 private:
  friend Result<std::unique_ptr<Cluster>> CreateLocalCluster(const LocalClusterOptions& options);
  LocalCluster(const LocalClusterOptions& options, RunRecord record);

  // Creates bridge, namespaces and veths of record_ (already registered).
  Status BuildNetwork(const std::vector<std::string>& node_names);
  Status RecordSpawn(const std::string& host, int pid);
  // Records, then creates client host `index`'s namespace and veth pair,
  // and the nodes' routes to it.
  Status BuildClientHost(int index, const std::string& address);

  NetOps& net_;
  RunRegistry registry_;
  std::string controller_address_;
  std::shared_ptr<LoopbackPortPool> port_pool_;  // outlives hosts_, which lease from it
  ProcessSupervisor supervisor_;
  std::vector<std::unique_ptr<LocalHost>> hosts_;
  const std::string nodes_dir_;
  std::mutex client_hosts_mu_;
  std::map<int, std::unique_ptr<LocalHost>> client_hosts_;  // by client index

  std::mutex record_mu_;  // guards record_ (Tag() reads only the immutable tag)
  RunRecord record_;

  std::mutex teardown_mu_;
  bool torn_down_ = false;
};

}  // namespace locksmith
