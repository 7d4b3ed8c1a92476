// Times the net-slow family's relay (nemesis/toxic_relay.h) with no toxics
// against a direct connection on loopback: the round trip of a 64-byte
// request (p50, p90 of N, default 5000) and the throughput of 64 MB echo
// streams (the median of five each, direct and relayed alternating). The relay's promise: at most 30 us added to the p50 round trip
// and at least 80% of the direct throughput. Not a test (timing); run by
// scripts/bench-partition.sh.
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <sys/socket.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <future>
#include <string>
#include <thread>
#include <vector>

#include <boost/asio/io_context.hpp>
#include <boost/asio/post.hpp>

#include "nemesis/toxic_relay.h"

namespace {

using Clock = std::chrono::steady_clock;

int Listen(int* port) {
  const int fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
  sockaddr_in at{};
  at.sin_family = AF_INET;
  at.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  socklen_t length = sizeof at;
  if (bind(fd, reinterpret_cast<sockaddr*>(&at), sizeof at) != 0 || listen(fd, 16) != 0 ||
      getsockname(fd, reinterpret_cast<sockaddr*>(&at), &length) != 0) {
    std::perror("echo server");
    std::exit(1);
  }
  *port = ntohs(at.sin_port);
  return fd;
}

// Echoes every connection until it ends, each on a thread of its own.
void Echo(int listener) {
  while (true) {
    const int fd = accept(listener, nullptr, nullptr);
    if (fd < 0) return;
    std::thread([fd] {
      const int one = 1;
      setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
      std::vector<char> buf(1 << 16);
      ssize_t n;
      while ((n = recv(fd, buf.data(), buf.size(), 0)) > 0) {
        for (ssize_t sent = 0; sent < n;) {
          const ssize_t w = send(fd, buf.data() + sent, static_cast<size_t>(n - sent), MSG_NOSIGNAL);
          if (w <= 0) break;
          sent += w;
        }
      }
      close(fd);
    }).detach();
  }
}

int Connect(int port) {
  const int fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
  const int one = 1;
  setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
  sockaddr_in to{};
  to.sin_family = AF_INET;
  to.sin_port = htons(static_cast<uint16_t>(port));
  to.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  if (connect(fd, reinterpret_cast<sockaddr*>(&to), sizeof to) != 0) {
    std::perror("connect");
    std::exit(1);
  }
  return fd;
}

bool ReadFully(int fd, char* buf, size_t n) {
  for (size_t got = 0; got < n;) {
    const ssize_t r = recv(fd, buf + got, n - got, 0);
    if (r <= 0) return false;
    got += static_cast<size_t>(r);
  }
  return true;
}

struct Figures {
  double p50_us = 0, p90_us = 0, mb_per_s = 0;
};

// The MB/s of a 64 MB stream out to `port` while a reader takes the echo back.
double Throughput(int port) {
  const int fd = Connect(port);
  constexpr size_t kTotal = 64 << 20;
  std::thread reader([fd] {
    std::vector<char> buf(1 << 16);
    for (size_t got = 0; got < kTotal;) {
      const ssize_t r = recv(fd, buf.data(), buf.size(), 0);
      if (r <= 0) return;
      got += static_cast<size_t>(r);
    }
  });
  const auto start = Clock::now();
  std::vector<char> block(1 << 16);
  for (size_t sent = 0; sent < kTotal;) {
    const ssize_t w = send(fd, block.data(), std::min(block.size(), kTotal - sent), MSG_NOSIGNAL);
    if (w <= 0) break;
    sent += static_cast<size_t>(w);
  }
  reader.join();
  close(fd);
  return kTotal / 1e6 / std::chrono::duration<double>(Clock::now() - start).count();
}

double Median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  return v[v.size() / 2];
}

Figures Measure(int port, int rounds) {
  Figures f;
  const int fd = Connect(port);
  char request[64] = {}, answer[64];
  std::vector<double> us;
  for (int i = 0; i < rounds + 100; ++i) {
    const auto start = Clock::now();
    if (send(fd, request, sizeof request, MSG_NOSIGNAL) != sizeof request ||
        !ReadFully(fd, answer, sizeof answer)) {
      std::fprintf(stderr, "round trip failed\n");
      std::exit(1);
    }
    if (i >= 100) {  // the first hundred warm up
      us.push_back(std::chrono::duration<double, std::micro>(Clock::now() - start).count());
    }
  }
  std::sort(us.begin(), us.end());
  f.p50_us = us[us.size() / 2];
  f.p90_us = us[us.size() * 9 / 10];
  close(fd);
  return f;
}

}  // namespace

int main(int argc, char** argv) {
  int rounds = 5000;
  if (argc == 3 && std::string(argv[1]) == "--rounds") rounds = std::max(100, std::atoi(argv[2]));
  int echo_port = 0;
  const int listener = Listen(&echo_port);
  std::thread(Echo, listener).detach();

  boost::asio::io_context io;
  auto work = boost::asio::make_work_guard(io);
  std::thread relay_thread([&] { io.run(); });
  std::unique_ptr<locksmith::ToxicRelay> relay;
  int relay_port = 0;
  std::promise<void> started;
  boost::asio::post(io, [&] {
    relay = std::make_unique<locksmith::ToxicRelay>(
        io.get_executor(),
        []() -> locksmith::Result<int> { return socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0); },
        1, locksmith::ToxicRelay::Destination{"127.0.0.1", echo_port});
    auto port = relay->Start();
    relay_port = port.ok() ? *port : 0;
    started.set_value();
  });
  started.get_future().wait();
  if (relay_port == 0) {
    std::fprintf(stderr, "the relay did not start\n");
    return 1;
  }
  Figures direct = Measure(echo_port, rounds);
  Figures relayed = Measure(relay_port, rounds);
  // Streams alternate, five of each, and the medians compare: on a shared
  // machine one stream alone says more about the neighbours than the relay.
  std::vector<double> direct_mb, relayed_mb;
  for (int i = 0; i < 5; ++i) {
    direct_mb.push_back(Throughput(echo_port));
    relayed_mb.push_back(Throughput(relay_port));
  }
  direct.mb_per_s = Median(direct_mb);
  relayed.mb_per_s = Median(relayed_mb);
  const double added = relayed.p50_us - direct.p50_us;
  const double share = relayed.mb_per_s / direct.mb_per_s;
  std::printf("net-slow relay, no toxics, %d round trips of 64 B and the median of five 64 MB "
              "echo streams each way, alternating, on loopback:\n"
              "  direct   p50 %.1f us  p90 %.1f us  %.0f MB/s\n"
              "  relayed  p50 %.1f us  p90 %.1f us  %.0f MB/s\n"
              "  added p50 %.1f us (budget 30), throughput %.0f%% of direct (budget 80%%): %s\n",
              rounds, direct.p50_us, direct.p90_us, direct.mb_per_s, relayed.p50_us,
              relayed.p90_us, relayed.mb_per_s, added, share * 100,
              added <= 30 && share >= 0.8 ? "within budget" : "OVER BUDGET");
  boost::asio::post(io, [&] { relay.reset(); });
  work.reset();
  relay_thread.join();
  close(listener);
  return 0;
}
