#include "nemesis/partition_probe.h"

#include <arpa/inet.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>

#include <gtest/gtest.h>

#include "backends/testing/fake_lock_service.h"
#include "base/seed.h"
#include "cluster/net_plan.h"
#include "cluster/testing/fake_cluster.h"
#include "cluster/testing/fake_net.h"
#include "nemesis/partition_nemesis.h"

namespace locksmith {
namespace {

using testing::FakeCluster;
using testing::FakeHost;
using testing::FakeNet;

const NodeTable kTable = {{"n1", kPrimaryRole, "n1", "redis-server", "198.18.0.2", 6379},
                          {"n2", kReplicaRole, "n2", "redis-server", "198.18.0.3", 6379},
                          {"n3", kReplicaRole, "n3", "redis-server", "198.18.0.4", 6379}};

TEST(PartitionProbeTest, ACutOfAClientIsProbedFromTheClientsAddress) {
  FakeHost n1("n1"), n2("n2");
  const std::vector<NetEndpoint> endpoints = {
      {"n1", "198.18.0.2", &n1}, {"n2", "198.18.0.3", &n2}, {"c1", "198.19.0.2", nullptr}};
  auto probe = ChooseCutProbe({{"c1", {"n2"}}, {"n2", {"c1"}}}, endpoints, kTable);
  ASSERT_TRUE(probe.has_value());
  EXPECT_EQ(probe->from.name, "c1");
  EXPECT_EQ(probe->from.host, nullptr);
  EXPECT_EQ(probe->to, "n2");
  EXPECT_EQ(probe->address, "198.18.0.3");
  EXPECT_EQ(probe->port, 6379);

  // Between hosts, from the first in name order.
  probe = ChooseCutProbe({{"n1", {"n2"}}, {"n2", {"n1"}}}, endpoints, kTable);
  ASSERT_TRUE(probe.has_value());
  EXPECT_EQ(probe->from.name, "n1");
  EXPECT_EQ(probe->from.host, &n1);
  EXPECT_EQ(probe->to, "n2");

  // Nothing of the table on either side: nothing to probe.
  EXPECT_FALSE(ChooseCutProbe({{"x", {"y"}}}, endpoints, kTable).has_value());
}

// What a probe run as a command on a host makes of the command's outcome.
TEST(PartitionProbeTest, AProbeFromAHostReadsTheCommandsOutcome) {
  FakeHost n1("n1");
  const CutProbe probe{{"n1", "198.18.0.2", &n1}, "n2", "198.18.0.3", 6379};
  n1.SetExecResult({124, ""});
  ProbeSeen seen = ConnectAcross(probe, std::chrono::milliseconds(500));
  EXPECT_EQ(seen.cut, std::optional<bool>(true));
  EXPECT_EQ(seen.seen, "timed out after 500 ms");
  ASSERT_EQ(n1.execs().size(), 1u);
  EXPECT_EQ(n1.execs()[0], (std::vector<std::string>{"timeout", "0.500", "bash", "-c",
                                                      "exec 3<>/dev/tcp/$0/$1", "198.18.0.3",
                                                      "6379"}));
  n1.SetExecResult({1, "bash: connect: Operation not permitted"});
  EXPECT_EQ(ConnectAcross(probe, std::chrono::milliseconds(500)).cut, std::optional<bool>(true));
  n1.SetExecResult({1, "bash: connect: Connection refused"});
  EXPECT_EQ(ConnectAcross(probe, std::chrono::milliseconds(500)).cut, std::optional<bool>(false));
  n1.SetExecResult({0, ""});
  EXPECT_EQ(ConnectAcross(probe, std::chrono::milliseconds(500)).cut, std::optional<bool>(false));
  n1.SetExecResult({127, "bash: not found"});
  EXPECT_EQ(ConnectAcross(probe, std::chrono::milliseconds(500)).cut, std::nullopt);
}

// A listening socket on loopback and its port.
class Listener {
 public:
  Listener() {
    fd_ = ::socket(AF_INET, SOCK_STREAM, 0);
    sockaddr_in a{};
    a.sin_family = AF_INET;
    a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    EXPECT_EQ(::bind(fd_, reinterpret_cast<sockaddr*>(&a), sizeof a), 0);
    EXPECT_EQ(::listen(fd_, 4), 0);
    socklen_t len = sizeof a;
    ::getsockname(fd_, reinterpret_cast<sockaddr*>(&a), &len);
    port_ = ntohs(a.sin_port);
  }
  ~Listener() { Close(); }
  void Close() {
    if (fd_ >= 0) ::close(fd_);
    fd_ = -1;
  }
  int port() const { return port_; }

 private:
  int fd_ = -1;
  int port_ = 0;
};

// From a client's address, in this process: a connect that completes or is
// refused got through.
TEST(PartitionProbeTest, AProbeFromAClientAddressThatGetsThroughSeesNoCut) {
  Listener listener;
  const CutProbe probe{{"c0", "127.0.0.1", nullptr}, "n1", "127.0.0.1", listener.port()};
  ProbeSeen seen = ConnectAcross(probe, std::chrono::milliseconds(2000));
  EXPECT_EQ(seen.cut, std::optional<bool>(false)) << seen.seen;
  EXPECT_EQ(seen.seen, "connected");
  listener.Close();
  seen = ConnectAcross(probe, std::chrono::milliseconds(2000));
  EXPECT_EQ(seen.cut, std::optional<bool>(false)) << seen.seen;
  EXPECT_EQ(seen.seen, "refused");
  const CutProbe unbindable{{"c0", "203.0.113.9", nullptr}, "n1", "127.0.0.1", 1};
  EXPECT_EQ(ConnectAcross(unbindable, std::chrono::milliseconds(100)).cut, std::nullopt);
}

// The nemesis probes while its rules are in place: here the rules live on a
// FakeNet, and the connect asks it whether the probe's packets get through.
TEST(PartitionProbeTest, ThePartitionNemesisIsObservedWhenItsProbeFails) {
  FakeNet net;
  FakeCluster cluster({"n1", "n2", "n3"}, "tag002", &net);
  testing::ClusterTableService service(cluster);
  std::vector<NetEndpoint> endpoints;
  for (Host* host : cluster.Hosts()) endpoints.push_back({host->Name(), host->Address(), host});
  for (int i = 0; i < 4; ++i) endpoints.push_back({"c" + std::to_string(i), cluster.ClientAddress(i)});
  bool lie = false;  // a connect that claims to get through whatever the rules
  auto ns = [&](const std::string& host) { return cluster.Fake(host)->netns(); };
  CutConnect connect = [&](const CutProbe& probe) -> ProbeSeen {
    const bool through = lie || (probe.from.host != nullptr
                                     ? net.Reachable(ns(probe.from.name), ns(probe.to))
                                     : net.ReachableFrom(probe.from.address, ns(probe.to)));
    return {!through, through ? "connected" : "timed out"};
  };
  PartitionNemesis nemesis([&] { return service.Table(); }, 4, 7,
                           std::make_unique<PartitionApplier>(*ChainName("tag002", "part"),
                                                              endpoints),
                           endpoints, connect);
  FaultResult r = nemesis.Invoke({"partition", {{"shape", "isolate"}, {"target", "n2"}}});
  ASSERT_TRUE(r.ok) << r.error;
  EXPECT_EQ(r.observed, std::optional<bool>(true));
  EXPECT_EQ(r.value["probe"], nlohmann::json({{"from", "n1"}, {"to", "n2"}, {"port", 6379},
                                              {"seen", "timed out"}, {"cut", true}}));
  r = nemesis.Invoke({"partition", {{"shape", "clients-from-nodes"}, {"clients", {2}}}});
  ASSERT_TRUE(r.ok) << r.error;
  EXPECT_EQ(r.observed, std::optional<bool>(true));
  EXPECT_EQ(r.value["probe"]["from"], "c2");
  lie = true;
  r = nemesis.Invoke({"partition", {{"shape", "isolate"}, {"target", "n1"}}});
  EXPECT_EQ(r.observed, std::optional<bool>(false));
  EXPECT_FALSE(nemesis.Invoke({"heal"}).observed.has_value()) << "a heal checks nothing";
  EXPECT_TRUE(nemesis.Teardown().empty());
}

}  // namespace
}  // namespace locksmith
