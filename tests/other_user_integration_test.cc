// While a run of each backend is up, another local user (uid nobody, in the
// controller's namespace, as any user of a shared machine is) reaches none
// of its servers: every TCP port any process of the run listens on, in any
// of the run's namespaces (clients' ports and peers' ports alike), refuses
// nobody's connection, so the user can neither read nor write anything there. The same
// ports take root's connections at that moment (the probe can tell). Root
// only.
#include <arpa/inet.h>
#include <fcntl.h>
#include <grp.h>
#include <netinet/in.h>
#include <poll.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

#include <gtest/gtest.h>

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <memory>
#include <sstream>
#include <thread>

#include "tests/locksmith_process.h"

namespace locksmith::testing {
namespace {

using std::chrono::seconds;

constexpr uid_t kNobody = 65534;

struct Endpoint {
  std::string address;
  int port = 0;
  std::string Text() const { return address + ":" + std::to_string(port); }
};

std::string Output(const std::string& command) {
  std::string out;
  std::unique_ptr<FILE, int (*)(FILE*)> pipe(popen(command.c_str(), "r"), pclose);
  if (!pipe) return out;
  char buf[4096];
  while (size_t n = fread(buf, 1, sizeof buf, pipe.get())) out.append(buf, n);
  return out;
}

// The IPv4 TCP ports listening in each namespace of run `tag`, on a
// wildcard address as the namespace's own address.
std::vector<Endpoint> ListeningPorts(const std::string& tag) {
  std::vector<Endpoint> endpoints;
  std::istringstream names(Output("ip netns list"));
  for (std::string line; std::getline(names, line);) {
    const std::string ns = line.substr(0, line.find(' '));
    if (ns.rfind("lsm-" + tag + "-", 0) != 0) continue;
    std::istringstream addr(Output("ip -n " + ns + " -4 -o addr show scope global"));
    std::string own;
    for (std::string a; addr >> a;) {
      if (a == "inet" && addr >> own) own = own.substr(0, own.find('/'));
    }
    std::istringstream listening(Output("ip netns exec " + ns + " ss -ltnH"));
    for (std::string l; std::getline(listening, l);) {
      std::istringstream fields(l);
      std::string state, recv, send, local;
      fields >> state >> recv >> send >> local;
      const auto colon = local.rfind(':');
      if (colon == std::string::npos) continue;
      std::string address = local.substr(0, colon);
      address = address.substr(0, address.find('%'));  // "addr%dev"
      std::erase(address, '[');
      std::erase(address, ']');
      if (address.rfind("::ffff:", 0) == 0) address = address.substr(7);
      if (address == "*" || address == "0.0.0.0" || address == "::") address = own;
      // The namespace's own loopback, and IPv6 addresses of its own: only
      // what the controller's namespace can route to.
      if (address.rfind("127.", 0) == 0 || address.find(':') != std::string::npos) continue;
      if (!address.empty()) endpoints.push_back({address, std::stoi(local.substr(colon + 1))});
    }
  }
  return endpoints;
}

// "" when a connection to `e` is set up within 3 s (and, with `write`,
// takes a write); otherwise why not.
std::string Connect(const Endpoint& e, bool write_too) {
  const int fd = socket(AF_INET, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
  if (fd < 0) return std::strerror(errno);
  sockaddr_in to{};
  to.sin_family = AF_INET;
  to.sin_port = htons(static_cast<uint16_t>(e.port));
  inet_pton(AF_INET, e.address.c_str(), &to.sin_addr);
  std::string why;
  if (connect(fd, reinterpret_cast<sockaddr*>(&to), sizeof to) != 0 && errno != EINPROGRESS) {
    why = std::strerror(errno);
  } else {
    pollfd p{fd, POLLOUT, 0};
    int error = 0;
    socklen_t len = sizeof error;
    if (poll(&p, 1, 3000) != 1) {
      why = "timed out";
    } else if (getsockopt(fd, SOL_SOCKET, SO_ERROR, &error, &len) != 0 || error != 0) {
      why = std::strerror(error);
    } else if (write_too && write(fd, "PING\r\n", 6) != 6) {
      why = std::strerror(errno);
    }
  }
  close(fd);
  return why;
}

// Each endpoint's Connect as uid `uid` (a forked child drops to it): "" for
// a connection made. Root only connects: a peer port given bytes it does not
// expect could upset the run.
std::vector<std::string> ConnectAs(uid_t uid, const std::vector<Endpoint>& endpoints) {
  int fds[2];
  if (pipe(fds) != 0) return {};
  const pid_t child = fork();
  if (child == 0) {
    close(fds[0]);
    if (uid != 0 && (setgroups(0, nullptr) != 0 || setgid(uid) != 0 || setuid(uid) != 0)) _exit(3);
    std::string report;
    for (const auto& e : endpoints) report += Connect(e, uid != 0) + "\n";
    (void)!write(fds[1], report.data(), report.size());
    _exit(0);
  }
  close(fds[1]);
  std::string report;
  char buf[4096];
  for (ssize_t n; (n = read(fds[0], buf, sizeof buf)) > 0;) report.append(buf, n);
  close(fds[0]);
  int status = 0;
  waitpid(child, &status, 0);
  std::vector<std::string> results;
  std::istringstream lines(report);
  for (std::string l; std::getline(lines, l);) results.push_back(l);
  return results;
}

class OtherUserTest : public ::testing::TestWithParam<std::string> {};

TEST_P(OtherUserTest, NobodyReachesNoServerOfTheRunWhileRootDoes) {
  if (geteuid() != 0) GTEST_SKIP() << "needs root (network namespaces, setuid)";
  TempDir dir;
  LocksmithProcess process(dir.path(), {"run", "--store", "store", "--backend", GetParam(),
                                        "--time-limit", "4", "--concurrency", "2"});
  std::string run;
  for (int i = 0; i < 600 && run.empty(); ++i) {
    run = LatestRun(dir.path() + "/store");
    std::this_thread::sleep_for(std::chrono::milliseconds(100));
  }
  ASSERT_TRUE(WaitForText(run + "/locksmith.log", "servers up", seconds(120)))
      << process.Stdout() << process.Stderr();
  const std::vector<Endpoint> endpoints = ListeningPorts(RunTag(run));
  ASSERT_FALSE(endpoints.empty());
  const std::vector<std::string> as_nobody = ConnectAs(kNobody, endpoints);
  const std::vector<std::string> as_root = ConnectAs(0, endpoints);
  // Probed while the run was up: the addresses were the run's, no other's.
  ASSERT_EQ(ReadText(run + "/locksmith.log").find("teardown"), std::string::npos);
  ASSERT_EQ(as_nobody.size(), endpoints.size()) << "the nobody probe did not run";
  ASSERT_EQ(as_root.size(), endpoints.size());
  for (size_t i = 0; i < endpoints.size(); ++i) {
    EXPECT_FALSE(as_nobody[i].empty()) << "nobody connected to " << endpoints[i].Text();
    EXPECT_EQ(as_root[i], "") << "root could not connect to " << endpoints[i].Text();
  }
  EXPECT_EQ(process.Wait(seconds(120)), 0) << process.Stdout() << process.Stderr();
  ExpectNothingLeft(run);
}

INSTANTIATE_TEST_SUITE_P(EveryBackend, OtherUserTest,
                         ::testing::Values("redis", "redis-sentinel", "redlock", "zookeeper",
                                           "etcd", "mariadb", "postgres"),
                         [](const auto& info) {
                           std::string name = info.param;
                           std::erase(name, '-');
                           return name;
                         });

}  // namespace
}  // namespace locksmith::testing
