#include "nemesis/partition_probe.h"

#include <arpa/inet.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <poll.h>
#include <sys/socket.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <utility>

namespace locksmith {
namespace {

const NetEndpoint* EndpointNamed(const std::vector<NetEndpoint>& endpoints,
                                 const std::string& name) {
  for (const auto& e : endpoints) {
    if (e.name == name) return &e;
  }
  return nullptr;
}

// The first node of the table on host `host`.
const ServiceNode* NodeOnHost(const NodeTable& table, const std::string& host) {
  for (const auto& node : table) {
    if (node.host == host && node.port > 0) return &node;
  }
  return nullptr;
}

// A probe from `from` to a node on `to`'s host, when both are known.
std::optional<CutProbe> ProbeBetween(const std::vector<NetEndpoint>& endpoints,
                                     const NodeTable& table, const std::string& from,
                                     const std::string& to) {
  const NetEndpoint* origin = EndpointNamed(endpoints, from);
  const ServiceNode* node = NodeOnHost(table, to);
  if (origin == nullptr || node == nullptr || origin->address.empty()) return std::nullopt;
  return CutProbe{*origin, node->name, node->address, node->port};
}

// What a connect that failed with `error` says of the cut: a reset came
// back (refused), or the packets were dropped, or it cannot tell.
ProbeSeen ErrorSeen(int error) {
  if (error == ECONNREFUSED) return {false, "refused"};
  const bool dropped = error == EPERM || error == EACCES || error == EHOSTUNREACH ||
                       error == ENETUNREACH || error == ETIMEDOUT;
  return {dropped ? std::optional<bool>(true) : std::nullopt, std::strerror(error)};
}

ProbeSeen ConnectFromAddress(const std::string& source, const std::string& address, int port,
                             std::chrono::milliseconds timeout) {
  sockaddr_in local{}, remote{};
  local.sin_family = remote.sin_family = AF_INET;
  remote.sin_port = htons(static_cast<uint16_t>(port));
  if (inet_pton(AF_INET, source.c_str(), &local.sin_addr) != 1 ||
      inet_pton(AF_INET, address.c_str(), &remote.sin_addr) != 1) {
    return {std::nullopt, "not IPv4 addresses: " + source + ", " + address};
  }
  const int fd = ::socket(AF_INET, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
  if (fd < 0) return {std::nullopt, std::string("socket: ") + std::strerror(errno)};
  ProbeSeen seen;
  if (::bind(fd, reinterpret_cast<sockaddr*>(&local), sizeof local) != 0) {
    seen = {std::nullopt, "bind " + source + ": " + std::strerror(errno)};
  } else if (::connect(fd, reinterpret_cast<sockaddr*>(&remote), sizeof remote) == 0) {
    seen = {false, "connected"};
  } else if (errno != EINPROGRESS) {
    seen = ErrorSeen(errno);
  } else {
    pollfd p{fd, POLLOUT, 0};
    const int ready = ::poll(&p, 1, static_cast<int>(timeout.count()));
    int error = 0;
    socklen_t len = sizeof error;
    if (ready == 0) {
      seen = {true, "timed out after " + std::to_string(timeout.count()) + " ms"};
    } else if (ready < 0 || ::getsockopt(fd, SOL_SOCKET, SO_ERROR, &error, &len) != 0) {
      seen = {std::nullopt, std::string("poll: ") + std::strerror(errno)};
    } else if (error == 0) {
      seen = {false, "connected"};
    } else {
      seen = ErrorSeen(error);
    }
  }
  ::close(fd);
  return seen;
}

ProbeSeen ConnectFromHost(Host& host, const std::string& address, int port,
                          std::chrono::milliseconds timeout) {
  char seconds[32];
  std::snprintf(seconds, sizeof seconds, "%.3f", static_cast<double>(timeout.count()) / 1000);
  // bash's /dev/tcp: a plain connect from inside the host, on every provider.
  auto ran = host.Exec({"timeout", seconds, "bash", "-c", "exec 3<>/dev/tcp/$0/$1", address,
                        std::to_string(port)},
                       timeout + std::chrono::seconds(5));
  if (!ran) return {std::nullopt, ran.error()};
  const std::string& out = ran->output;
  if (ran->exit_code == 0) return {false, "connected"};
  if (ran->exit_code == 124) {
    return {true, "timed out after " + std::to_string(timeout.count()) + " ms"};
  }
  for (const char* dropped : {"not permitted", "No route to host", "Network is unreachable",
                              "timed out"}) {
    if (out.find(dropped) != std::string::npos) return {true, dropped};
  }
  if (out.find("refused") != std::string::npos) return {false, "refused"};
  return {std::nullopt, "exit " + std::to_string(ran->exit_code) + ": " + out};
}

}  // namespace

std::optional<CutProbe> ChooseCutProbe(const Grudge& grudge,
                                       const std::vector<NetEndpoint>& endpoints,
                                       const NodeTable& table) {
  std::optional<CutProbe> between_hosts;
  for (const auto& [dropper, dropped] : grudge) {
    for (const auto& other : dropped) {
      // Either side may start it: a connect fails whichever side drops.
      for (const auto& [from, to] : {std::pair(dropper, other), std::pair(other, dropper)}) {
        auto probe = ProbeBetween(endpoints, table, from, to);
        if (!probe) continue;
        if (probe->from.host == nullptr) return probe;  // a client: no command needed
        if (!between_hosts) between_hosts = probe;
      }
    }
  }
  return between_hosts;
}

ProbeSeen ConnectAcross(const CutProbe& probe, std::chrono::milliseconds timeout) {
  if (probe.from.host == nullptr) {
    return ConnectFromAddress(probe.from.address, probe.address, probe.port, timeout);
  }
  return ConnectFromHost(*probe.from.host, probe.address, probe.port, timeout);
}

std::optional<CutCheck> CheckCut(const Grudge& grudge, const std::vector<NetEndpoint>& endpoints,
                                 const NodeTable& table, const CutConnect& connect) {
  auto probe = ChooseCutProbe(grudge, endpoints, table);
  if (!probe) return std::nullopt;
  const ProbeSeen seen = connect(*probe);
  CutCheck check;
  check.cut = seen.cut;
  check.seen = {{"from", probe->from.name},
                {"to", probe->to},
                {"port", probe->port},
                {"seen", seen.seen}};
  if (seen.cut) check.seen["cut"] = *seen.cut;
  return check;
}

}  // namespace locksmith
