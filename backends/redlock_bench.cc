// redlock_bench: lock cycles per second (acquire + release) and acquire
// latency p50 / p99 of a locksmith lock client against running Redis
// masters, the way the harness runs clients (N clients, all on one
// io_context thread), each looping acquire then release on its own key
// (no contention), for T seconds after a warm-up. `--client redlock` is
// RedlockClient over every port given, `--client redis` RedisLockClient on
// the first. `--connections own` (default) gives every client its own
// connection per server, as the harness does; `shared` gives all clients one
// pipelined connection per server, as node-redlock over ioredis does, so the
// servers read and answer many clients' commands in one batch. Prints one
// line of key=value pairs (scripts/bench-redlock.sh parses it).
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <memory>
#include <sstream>
#include <string>
#include <string_view>
#include <vector>

#include <unistd.h>

#include <boost/asio/co_spawn.hpp>
#include <boost/asio/detached.hpp>
#include <boost/asio/io_context.hpp>
#include <boost/asio/steady_timer.hpp>
#include <boost/asio/use_awaitable.hpp>

#include "backends/redis_lock_client.h"
#include "backends/redlock_client.h"

namespace {

namespace asio = boost::asio;
using Clock = std::chrono::steady_clock;

struct Flags {
  std::string host = "127.0.0.1";
  std::vector<uint16_t> ports;
  std::string password;
  std::string client = "redlock";
  bool shared_connections = false;
  int clients = 10;
  double seconds = 5;
  double warmup_seconds = 1;
};

[[noreturn]] void Usage() {
  std::fprintf(stderr,
               "usage: redlock_bench --ports P1,P2,... [--host H] [--password PW]\n"
               "       [--client redlock|redis] [--connections own|shared] [--clients N]\n"
               "       [--seconds T] [--warmup S]\n");
  std::exit(254);
}

Flags Parse(int argc, char** argv) {
  Flags f;
  for (int i = 1; i < argc; ++i) {
    std::string_view a = argv[i];
    if (i + 1 >= argc) Usage();
    const std::string v = argv[++i];
    if (a == "--host") {
      f.host = v;
    } else if (a == "--ports") {
      std::istringstream in(v);
      for (std::string p; std::getline(in, p, ',');) {
        f.ports.push_back(static_cast<uint16_t>(std::atoi(p.c_str())));
      }
    } else if (a == "--password") {
      f.password = v;
    } else if (a == "--client") {
      f.client = v;
    } else if (a == "--connections") {
      if (v != "own" && v != "shared") Usage();
      f.shared_connections = v == "shared";
    } else if (a == "--clients") {
      f.clients = std::atoi(v.c_str());
    } else if (a == "--seconds") {
      f.seconds = std::atof(v.c_str());
    } else if (a == "--warmup") {
      f.warmup_seconds = std::atof(v.c_str());
    } else {
      Usage();
    }
  }
  if (f.ports.empty() || f.clients < 1 || f.seconds <= 0) Usage();
  if (f.client != "redlock" && f.client != "redis") Usage();
  return f;
}

double Quantile(std::vector<double> v, double q) {
  if (v.empty()) return 0;
  std::sort(v.begin(), v.end());
  return v[std::min(v.size() - 1, static_cast<size_t>(q * static_cast<double>(v.size())))];
}

asio::awaitable<void> Sleep(double seconds) {
  asio::steady_timer t(co_await asio::this_coro::executor);
  t.expires_after(std::chrono::duration_cast<Clock::duration>(
      std::chrono::duration<double>(seconds)));
  co_await t.async_wait(asio::use_awaitable);
}

}  // namespace

int main(int argc, char** argv) {
  const Flags flags = Parse(argc, argv);
  asio::io_context ioc(1);
  std::vector<locksmith::RedisEndpoint> endpoints;
  for (uint16_t port : flags.ports) endpoints.push_back({flags.host, port, flags.password});
  std::vector<std::shared_ptr<locksmith::RedisConnection>> shared;  // one per server
  if (flags.shared_connections) {
    for (const auto& e : endpoints) {
      shared.push_back(std::make_shared<locksmith::RedisConnection>(
          ioc.get_executor(), locksmith::RedisConnectionOptions{e}));
    }
  }
  auto connection_to = [&](size_t server) {
    return shared.empty() ? nullptr : shared[server];
  };
  std::vector<std::unique_ptr<locksmith::LockClient>> clients;
  for (int i = 0; i < flags.clients; ++i) {
    const uint64_t seed = 1 + static_cast<uint64_t>(i);
    if (flags.client == "redis") {
      locksmith::RedisLockClientOptions o;
      o.endpoint = endpoints.front();
      o.shared_connection = connection_to(0);
      clients.push_back(
          std::make_unique<locksmith::RedisLockClient>(ioc.get_executor(), o, seed));
    } else {
      locksmith::RedlockClientOptions o;
      for (size_t m = 0; m < endpoints.size(); ++m) {
        o.masters.push_back({"n" + std::to_string(m + 1), endpoints[m], connection_to(m)});
      }
      clients.push_back(std::make_unique<locksmith::RedlockClient>(ioc.get_executor(), o, seed));
    }
  }

  bool measuring = false, stop = false;
  uint64_t cycles = 0, failed = 0;
  std::vector<double> acquire_ms;
  auto loop = [&](int i) -> asio::awaitable<void> {
    auto& c = *clients[static_cast<size_t>(i)];
    // Keys of its own: a run stopped mid-acquire leaves its locks held for a
    // lease, which must not fail the next run on the same servers.
    const std::string key = "bench-lock-" + std::to_string(getpid()) + "-" + std::to_string(i);
    while (!stop) {
      const auto t0 = Clock::now();
      locksmith::AcquireResult a = co_await c.Acquire(key, std::chrono::milliseconds(10000));
      const double ms = std::chrono::duration<double, std::milli>(Clock::now() - t0).count();
      if (a.outcome != locksmith::Outcome::kOk) {
        if (measuring && failed++ == 0) {
          std::fprintf(stderr, "first failed acquire: %s\n", a.error.c_str());
        }
        continue;
      }
      locksmith::ReleaseResult r = co_await c.Release(key, a.token);
      if (measuring) {
        acquire_ms.push_back(ms);
        if (r.outcome == locksmith::Outcome::kOk) ++cycles;
      }
    }
  };

  double elapsed = 0;
  int connect_failures = 0;
  asio::co_spawn(
      ioc,
      [&]() -> asio::awaitable<void> {
        for (auto& c : clients) {
          locksmith::Status s = co_await c->Connect();
          if (!s.ok()) {
            std::fprintf(stderr, "connect: %s\n", s.error().c_str());
            ++connect_failures;
            stop = true;
          }
        }
        if (stop) co_return;
        auto ex = co_await asio::this_coro::executor;
        for (int i = 0; i < flags.clients; ++i) asio::co_spawn(ex, loop(i), asio::detached);
        co_await Sleep(flags.warmup_seconds);
        measuring = true;
        const auto t0 = Clock::now();
        co_await Sleep(flags.seconds);
        measuring = false;
        elapsed = std::chrono::duration<double>(Clock::now() - t0).count();
        stop = true;
        for (auto& c : clients) c->Close();  // pending calls end; the io_context drains
        for (auto& c : shared) c->Close();
      },
      asio::detached);
  ioc.run();
  if (connect_failures > 0) return 1;
  std::printf("client=%s connections=%s masters=%zu clients=%d cycles_per_sec=%.0f "
              "acquire_p50_ms=%.3f acquire_p99_ms=%.3f failed_acquires=%llu\n",
              flags.client.c_str(), flags.shared_connections ? "shared" : "own",
              flags.client == "redis" ? size_t{1} : flags.ports.size(),
              flags.clients, static_cast<double>(cycles) / elapsed, Quantile(acquire_ms, 0.5),
              Quantile(acquire_ms, 0.99), static_cast<unsigned long long>(failed));
  return 0;
}
