#include "cluster/tcp_abort.h"

#include <arpa/inet.h>
#include <linux/inet_diag.h>
#include <linux/netlink.h>
#include <linux/sock_diag.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <sys/socket.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <vector>

#include "base/unique_fd.h"
#include "cluster/netns_socket.h"

namespace locksmith {
namespace {

// The states `ss -t` shows without a state filter (its SS_CONN): every
// state but listen, close, time-wait and syn-recv.
constexpr uint32_t kConnectedStates = (1u << TCP_ESTABLISHED) | (1u << TCP_SYN_SENT) |
                                      (1u << TCP_FIN_WAIT1) | (1u << TCP_FIN_WAIT2) |
                                      (1u << TCP_CLOSE_WAIT) | (1u << TCP_LAST_ACK) |
                                      (1u << TCP_CLOSING);

struct DiagRequest {
  nlmsghdr header;
  inet_diag_req_v2 body;
};

// A sock_diag netlink socket created inside `netns_path`.
Result<int> OpenDiagSocket(const std::string& netns_path) {
  auto fd = OpenSocketIn(netns_path, AF_NETLINK, SOCK_RAW, NETLINK_SOCK_DIAG);
  if (!fd) return Error{fd.error() + " (sock_diag)"};
  return fd;
}

Status Send(int fd, const DiagRequest& request) {
  sockaddr_nl kernel{};
  kernel.nl_family = AF_NETLINK;
  ssize_t n;
  do {
    n = sendto(fd, &request, sizeof(request), 0, reinterpret_cast<const sockaddr*>(&kernel),
               sizeof(kernel));
  } while (n < 0 && errno == EINTR);
  if (n != static_cast<ssize_t>(sizeof(request))) {
    return Error{std::string("cannot send to sock_diag: ") + std::strerror(errno)};
  }
  return OkStatus();
}

// Reads replies to request `seq` and hands each message to `on_message`
// until NLMSG_DONE (a dump) or an NLMSG_ERROR (an ack or a failure: its
// errno, 0 for an ack, is returned).
template <typename OnMessage>
Result<int> ReadReplies(int fd, uint32_t seq, OnMessage on_message) {
  alignas(nlmsghdr) char buf[32768];
  while (true) {
    ssize_t n = recv(fd, buf, sizeof(buf), 0);
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) {
      if (errno == EAGAIN || errno == EWOULDBLOCK) return Error{"sock_diag did not answer in time"};
      return Error{std::string("cannot read from sock_diag: ") + std::strerror(errno)};
    }
    if (n == 0) return Error{"sock_diag closed the socket"};
    int len = static_cast<int>(n);
    for (auto* h = reinterpret_cast<nlmsghdr*>(buf); NLMSG_OK(h, len); h = NLMSG_NEXT(h, len)) {
      if (h->nlmsg_seq != seq) continue;
      if (h->nlmsg_type == NLMSG_DONE) return 0;
      if (h->nlmsg_type == NLMSG_ERROR) {
        if (h->nlmsg_len < NLMSG_LENGTH(sizeof(nlmsgerr))) return Error{"short sock_diag error"};
        return -static_cast<const nlmsgerr*>(NLMSG_DATA(h))->error;
      }
      on_message(*h);
    }
  }
}

struct Peers {
  std::vector<in_addr> v4;
  std::vector<in6_addr> v6;  // IPv6 peers and the IPv4-mapped form of the IPv4 ones

  bool Match(const inet_diag_msg& m) const {
    if (m.idiag_family == AF_INET) {
      for (const auto& a : v4) {
        if (std::memcmp(&a, m.id.idiag_dst, sizeof(a)) == 0) return true;
      }
    } else if (m.idiag_family == AF_INET6) {
      for (const auto& a : v6) {
        if (std::memcmp(&a, m.id.idiag_dst, sizeof(a)) == 0) return true;
      }
    }
    return false;
  }
};

Result<Peers> ParsePeers(const std::set<std::string>& peers) {
  Peers p;
  for (const auto& text : peers) {
    in_addr a4{};
    in6_addr a6{};
    if (inet_pton(AF_INET, text.c_str(), &a4) == 1) {
      p.v4.push_back(a4);
      const std::string mapped = "::ffff:" + text;
      if (inet_pton(AF_INET6, mapped.c_str(), &a6) == 1) p.v6.push_back(a6);
    } else if (inet_pton(AF_INET6, text.c_str(), &a6) == 1) {
      p.v6.push_back(a6);
    } else {
      return Error{"cannot abort connections to '" + text + "': not an IP address"};
    }
  }
  return p;
}

}  // namespace

Result<int> AbortTcpConnections(const std::string& netns_path, const std::set<std::string>& peers,
                                std::chrono::milliseconds timeout) {
  auto parsed = ParsePeers(peers);
  if (!parsed) return Error{parsed.error()};
  if (peers.empty()) return 0;
  auto opened = OpenDiagSocket(netns_path);
  if (!opened) return Error{opened.error()};
  UniqueFd fd(*opened);
  timeval tv{};
  tv.tv_sec = static_cast<time_t>(timeout.count() / 1000);
  tv.tv_usec = static_cast<suseconds_t>((timeout.count() % 1000) * 1000);
  if (tv.tv_sec == 0 && tv.tv_usec == 0) tv.tv_usec = 1000;
  setsockopt(fd.get(), SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof(tv));

  uint32_t seq = 0;
  // Dump each family's connected TCP sockets; keep those with a cut peer.
  struct Victim {
    uint8_t family;
    inet_diag_sockid id;
  };
  std::vector<Victim> victims;
  for (const uint8_t family : {static_cast<uint8_t>(AF_INET), static_cast<uint8_t>(AF_INET6)}) {
    if ((family == AF_INET ? parsed->v4.empty() : parsed->v6.empty())) continue;
    DiagRequest dump{};
    dump.header.nlmsg_len = sizeof(dump);
    dump.header.nlmsg_type = SOCK_DIAG_BY_FAMILY;
    dump.header.nlmsg_flags = NLM_F_REQUEST | NLM_F_DUMP;
    dump.header.nlmsg_seq = ++seq;
    dump.body.sdiag_family = family;
    dump.body.sdiag_protocol = IPPROTO_TCP;
    dump.body.idiag_states = kConnectedStates;
    if (Status s = Send(fd.get(), dump); !s) return Error{s.error()};
    auto done = ReadReplies(fd.get(), seq, [&](const nlmsghdr& h) {
      if (h.nlmsg_type != SOCK_DIAG_BY_FAMILY || h.nlmsg_len < NLMSG_LENGTH(sizeof(inet_diag_msg))) {
        return;
      }
      const auto* m = static_cast<const inet_diag_msg*>(NLMSG_DATA(&h));
      if (parsed->Match(*m)) victims.push_back({m->idiag_family, m->id});
    });
    if (!done) return Error{done.error()};
    // IPv6 may be disabled in the namespace: nothing to dump there.
    if (*done != 0 && !(family == AF_INET6 && *done == EAFNOSUPPORT)) {
      return Error{std::string("cannot list TCP sockets: ") + std::strerror(*done)};
    }
  }
  int destroyed = 0;
  for (const Victim& v : victims) {
    DiagRequest destroy{};
    destroy.header.nlmsg_len = sizeof(destroy);
    destroy.header.nlmsg_type = SOCK_DESTROY;
    destroy.header.nlmsg_flags = NLM_F_REQUEST | NLM_F_ACK;
    destroy.header.nlmsg_seq = ++seq;
    destroy.body.sdiag_family = v.family;
    destroy.body.sdiag_protocol = IPPROTO_TCP;
    destroy.body.idiag_states = ~0u;
    destroy.body.id = v.id;
    if (Status s = Send(fd.get(), destroy); !s) return Error{s.error()};
    auto acked = ReadReplies(fd.get(), seq, [](const nlmsghdr&) {});
    if (!acked) return Error{acked.error()};
    if (*acked == 0) {
      ++destroyed;
    } else if (*acked == EOPNOTSUPP) {
      return Error{"cannot abort TCP connections: this kernel has no SOCK_DESTROY "
                   "(CONFIG_INET_DIAG_DESTROY)"};
    } else if (*acked != ENOENT) {  // ENOENT: it closed meanwhile
      return Error{std::string("cannot abort a TCP connection: ") + std::strerror(*acked)};
    }
  }
  return destroyed;
}

}  // namespace locksmith
