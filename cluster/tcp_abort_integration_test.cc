// AbortTcpConnections / LocalHost::AbortConnections on a real namespace
// (root only): a connection from the controller to a listener inside a
// host's namespace is destroyed on the host's side, its peer sees it reset,
// and connections to other peers are left alone.
#include <arpa/inet.h>
#include <fcntl.h>
#include <gtest/gtest.h>
#include <netinet/in.h>
#include <sched.h>
#include <sys/socket.h>
#include <unistd.h>

#include <cerrno>
#include <thread>

#include "base/testing/temp_dir.h"
#include "cluster/local_cluster.h"
#include "cluster/local_host.h"
#include "cluster/net_setup.h"
#include "cluster/tcp_abort.h"

namespace locksmith {
namespace {
using namespace std::chrono_literals;

constexpr uint16_t kPort = 7411;

// A TCP listener on kPort inside `netns_path`, made by a thread that enters
// the namespace (the socket stays there).
int ListenIn(const std::string& netns_path) {
  int fd = -1;
  std::thread t([&] {
    const int ns = open(netns_path.c_str(), O_RDONLY | O_CLOEXEC);
    if (ns < 0) return;
    const int entered = setns(ns, CLONE_NEWNET);
    close(ns);
    if (entered != 0) return;
    fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
    sockaddr_in a{};
    a.sin_family = AF_INET;
    a.sin_port = htons(kPort);
    if (bind(fd, reinterpret_cast<sockaddr*>(&a), sizeof(a)) != 0 || listen(fd, 4) != 0) {
      close(fd);
      fd = -1;
    }
  });
  t.join();
  return fd;
}

int ConnectTo(const std::string& address) {
  const int fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
  sockaddr_in a{};
  a.sin_family = AF_INET;
  a.sin_port = htons(kPort);
  inet_pton(AF_INET, address.c_str(), &a.sin_addr);
  if (connect(fd, reinterpret_cast<sockaddr*>(&a), sizeof(a)) != 0) {
    close(fd);
    return -1;
  }
  timeval tv{2, 0};
  setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof(tv));
  return fd;
}

std::string PeerOf(int fd) {
  sockaddr_in a{};
  socklen_t len = sizeof(a);
  getpeername(fd, reinterpret_cast<sockaddr*>(&a), &len);
  char text[INET_ADDRSTRLEN] = {};
  inet_ntop(AF_INET, &a.sin_addr, text, sizeof(text));
  return text;
}

TEST(TcpAbortIntegrationTest, DestroysTheHostsConnectionsToCutPeersOnly) {
  if (geteuid() != 0) GTEST_SKIP() << "needs root for network namespaces";
  testing::TempDir dir;
  LocalClusterOptions o;
  o.node_names = {"n1"};
  o.nodes_dir = dir.path() + "/nodes";
  auto cluster = CreateLocalCluster(o);
  ASSERT_TRUE(cluster.ok()) << cluster.error();
  auto* host = static_cast<LocalHost*>((*cluster)->Hosts()[0]);
  ASSERT_TRUE(host->HasOwnNetwork());
  const int listener = ListenIn(NetnsPath(host->NetnsName()));
  ASSERT_GE(listener, 0);
  const int client = ConnectTo(host->Address());
  ASSERT_GE(client, 0);
  const int served = accept4(listener, nullptr, nullptr, SOCK_CLOEXEC);
  ASSERT_GE(served, 0);
  const std::string controller = PeerOf(served);

  // Another peer: nothing of ours is destroyed.
  auto none = AbortTcpConnections(NetnsPath(host->NetnsName()), {"198.18.255.254"}, 1s);
  ASSERT_TRUE(none.ok()) << none.error();
  EXPECT_EQ(*none, 0);
  EXPECT_EQ(send(client, "x", 1, MSG_NOSIGNAL), 1);
  char c = 0;
  EXPECT_EQ(recv(served, &c, 1, 0), 1);

  // The controller's address: the host's end is destroyed (the listener,
  // not connected, stays), and the controller's end is reset.
  const Status cut = host->AbortConnections({controller}, 1s);
  ASSERT_TRUE(cut.ok()) << cut.error();
  EXPECT_EQ(recv(served, &c, 1, 0), -1);
  EXPECT_EQ(errno, ECONNABORTED);
  EXPECT_EQ(recv(client, &c, 1, 0), -1);
  EXPECT_EQ(errno, ECONNRESET);
  const int again = ConnectTo(host->Address());
  EXPECT_GE(again, 0) << "the listener survived";

  EXPECT_FALSE(AbortTcpConnections(NetnsPath(host->NetnsName()), {"not-an-address"}, 1s).ok());
  for (int fd : {listener, client, served, again}) {
    if (fd >= 0) close(fd);
  }
  EXPECT_TRUE((*cluster)->Teardown().ok());
}

}  // namespace
}  // namespace locksmith
