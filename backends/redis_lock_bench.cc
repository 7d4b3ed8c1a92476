// redis_lock_bench: lock ops/s of RedisLockClient the way the harness runs
// clients -- N clients, one connection each, all on one io_context thread --
// each looping acquire (SET NX PX) then, if it got the lock, release
// (EVALSHA), with hold 0, over K keys, for T seconds against a running
// redis-server. Acquire and release each count as one op, fail results
// included. `--client` picks the client as `--client` of a run does
// (redis, redis-watchdog, redis-reentrant: backends/redis_clients.h). Prints one line of key=value pairs (scripts/bench-redis-client.sh
// parses `ops_per_sec=`).
#include <sys/resource.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstdint>
#include <fstream>
#include <cstdio>
#include <cstdlib>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include <boost/asio/co_spawn.hpp>
#include <boost/asio/detached.hpp>
#include <boost/asio/io_context.hpp>
#include <boost/asio/steady_timer.hpp>
#include <boost/asio/use_awaitable.hpp>

#include "backends/redis_clients.h"
#include "backends/redis_lock_client.h"

namespace {

namespace asio = boost::asio;
using locksmith::Outcome;
using Clock = std::chrono::steady_clock;

struct Flags {
  std::string host = "127.0.0.1";
  int port = 6379;
  std::string password;
  int clients = 10;
  double seconds = 5;
  double warmup_seconds = 1;
  int keys = 0;  // 0: one key per client (no contention)
  int lease_ms = 10000;
  int timeout_ms = 1000;
  uint64_t seed = 1;
  std::string client = "redis";
  int server_pid = 0;  // if set, also report the server's CPU per op
};

// CPU seconds (user + system) this process has used.
double SelfCpuSeconds() {
  rusage ru{};
  getrusage(RUSAGE_SELF, &ru);
  auto secs = [](const timeval& tv) { return tv.tv_sec + tv.tv_usec / 1e6; };
  return secs(ru.ru_utime) + secs(ru.ru_stime);
}

// CPU seconds another process has used (utime + stime from /proc), or -1.
double ProcessCpuSeconds(int pid) {
  if (pid <= 0) return -1;
  std::ifstream in("/proc/" + std::to_string(pid) + "/stat");
  std::string stat((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  size_t close_paren = stat.rfind(')');
  if (close_paren == std::string::npos) return -1;
  // Fields after "pid (comm)": state is field 3; utime, stime are 14 and 15.
  std::vector<std::string> fields;
  size_t pos = close_paren + 2;
  while (pos < stat.size()) {
    size_t next = stat.find(' ', pos);
    if (next == std::string::npos) next = stat.size();
    fields.push_back(stat.substr(pos, next - pos));
    pos = next + 1;
  }
  if (fields.size() < 13) return -1;
  const double ticks = static_cast<double>(sysconf(_SC_CLK_TCK));
  return (std::stod(fields[11]) + std::stod(fields[12])) / ticks;
}

void Usage() {
  std::fprintf(stderr,
               "usage: redis_lock_bench [--host H] [--port P] [--password PW] [--clients N]\n"
               "       [--seconds T] [--warmup S] [--keys K] [--lease-ms MS] [--timeout-ms MS]\n"
               "       [--seed S] [--server-pid PID] [--client redis|redis-watchdog|"
               "redis-reentrant]\n");
  std::exit(254);
}

Flags Parse(int argc, char** argv) {
  Flags f;
  for (int i = 1; i < argc; ++i) {
    std::string_view a = argv[i];
    if (i + 1 >= argc) Usage();
    const char* v = argv[++i];
    if (a == "--host")
      f.host = v;
    else if (a == "--port")
      f.port = std::atoi(v);
    else if (a == "--password")
      f.password = v;
    else if (a == "--clients")
      f.clients = std::atoi(v);
    else if (a == "--seconds")
      f.seconds = std::atof(v);
    else if (a == "--warmup")
      f.warmup_seconds = std::atof(v);
    else if (a == "--keys")
      f.keys = std::atoi(v);
    else if (a == "--lease-ms")
      f.lease_ms = std::atoi(v);
    else if (a == "--timeout-ms")
      f.timeout_ms = std::atoi(v);
    else if (a == "--seed")
      f.seed = std::strtoull(v, nullptr, 10);
    else if (a == "--server-pid")
      f.server_pid = std::atoi(v);
    else if (a == "--client")
      f.client = v;
    else
      Usage();
  }
  if (f.clients < 1 || f.port < 1 || f.port > 65535 || f.seconds <= 0 || f.keys < 0) Usage();
  if (f.keys == 0) f.keys = f.clients;
  const auto names = locksmith::RedisClientNames();
  if (std::find(names.begin(), names.end(), f.client) == names.end()) Usage();
  return f;
}

struct Counters {
  uint64_t ops = 0;
  uint64_t acquire[3] = {0, 0, 0};  // by Outcome
  uint64_t release[3] = {0, 0, 0};
};

}  // namespace

int main(int argc, char** argv) {
  const Flags flags = Parse(argc, argv);
  // Concurrency hint 1: the harness runs all clients on one thread.
  asio::io_context ioc(1);
  std::vector<std::unique_ptr<locksmith::LockClient>> clients;
  std::vector<std::string> keys;
  for (int k = 0; k < flags.keys; ++k) keys.push_back("bench-lock-" + std::to_string(k));
  for (int i = 0; i < flags.clients; ++i) {
    locksmith::RedisLockClientOptions o;
    o.endpoint = {flags.host, static_cast<uint16_t>(flags.port), flags.password};
    o.timeout = std::chrono::milliseconds(flags.timeout_ms);
    clients.push_back(locksmith::WrapRedisClient(
        flags.client, ioc.get_executor(),
        locksmith::MakeRedisMasterClient(flags.client, ioc.get_executor(), o,
                                         flags.seed + static_cast<uint64_t>(i))));
  }

  Counters counters;
  bool stop = false;
  int connect_failures = 0;
  int running = 0;
  Counters at_start;
  Clock::time_point t_start, t_end;
  double cpu_start = 0, cpu_end = 0, server_start = 0, server_end = 0;

  auto loop = [&](int i) -> asio::awaitable<void> {
    auto& c = *clients[static_cast<size_t>(i)];
    const std::string& key = keys[static_cast<size_t>(i % flags.keys)];
    const std::chrono::milliseconds lease(flags.lease_ms);
    while (!stop) {
      locksmith::AcquireResult a = co_await c.Acquire(key, lease);
      ++counters.ops;
      ++counters.acquire[static_cast<int>(a.outcome)];
      if (a.outcome != Outcome::kOk) continue;
      locksmith::ReleaseResult r = co_await c.Release(key, a.token);
      ++counters.ops;
      ++counters.release[static_cast<int>(r.outcome)];
    }
    --running;
  };

  asio::co_spawn(
      ioc,
      [&]() -> asio::awaitable<void> {
        for (auto& c : clients) {
          locksmith::Status s = co_await c->Connect();
          if (!s.ok()) {
            std::fprintf(stderr, "connect: %s\n", s.error().c_str());
            ++connect_failures;
          }
        }
        if (connect_failures > 0) {
          for (auto& c : clients) c->Close();
          co_return;
        }
        auto ex = co_await asio::this_coro::executor;
        running = flags.clients;
        for (int i = 0; i < flags.clients; ++i) asio::co_spawn(ex, loop(i), asio::detached);
        asio::steady_timer t(ex);
        t.expires_after(std::chrono::duration_cast<Clock::duration>(
            std::chrono::duration<double>(flags.warmup_seconds)));
        co_await t.async_wait(asio::use_awaitable);
        at_start = counters;
        t_start = Clock::now();
        cpu_start = SelfCpuSeconds();
        server_start = ProcessCpuSeconds(flags.server_pid);
        t.expires_after(std::chrono::duration_cast<Clock::duration>(
            std::chrono::duration<double>(flags.seconds)));
        co_await t.async_wait(asio::use_awaitable);
        t_end = Clock::now();
        cpu_end = SelfCpuSeconds();
        server_end = ProcessCpuSeconds(flags.server_pid);
        Counters at_end = counters;
        stop = true;
        counters = at_end;
        // The loops finish their current op; they are not counted.
        while (running > 0) {
          t.expires_after(std::chrono::milliseconds(1));
          co_await t.async_wait(asio::use_awaitable);
        }
        counters = at_end;
        // Each connection's read loop keeps the io_context busy until closed.
        for (auto& c : clients) c->Close();
      },
      asio::detached);
  ioc.run();
  if (connect_failures > 0) return 1;

  const double secs = std::chrono::duration<double>(t_end - t_start).count();
  auto d = [&](const uint64_t* end, const uint64_t* begin, int k) { return end[k] - begin[k]; };
  const uint64_t ops = counters.ops - at_start.ops;
  std::printf(
      "clients=%d keys=%d seconds=%.2f ops=%llu ops_per_sec=%.0f "
      "acquire_ok=%llu acquire_fail=%llu acquire_unknown=%llu "
      "release_ok=%llu release_fail=%llu release_unknown=%llu "
      "client_cpu_us_per_op=%.2f server_cpu_us_per_op=%.2f\n",
      flags.clients, flags.keys, secs, static_cast<unsigned long long>(ops), ops / secs,
      static_cast<unsigned long long>(d(counters.acquire, at_start.acquire, 0)),
      static_cast<unsigned long long>(d(counters.acquire, at_start.acquire, 1)),
      static_cast<unsigned long long>(d(counters.acquire, at_start.acquire, 2)),
      static_cast<unsigned long long>(d(counters.release, at_start.release, 0)),
      static_cast<unsigned long long>(d(counters.release, at_start.release, 1)),
      static_cast<unsigned long long>(d(counters.release, at_start.release, 2)),
      ops ? 1e6 * (cpu_end - cpu_start) / static_cast<double>(ops) : 0.0,
      ops && flags.server_pid > 0 ? 1e6 * (server_end - server_start) / static_cast<double>(ops)
                                  : -1.0);
  return 0;
}
