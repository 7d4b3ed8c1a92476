// redis_lock_bench: lock ops/s of RedisLockClient the way the harness runs
// clients -- N clients, one connection each, all on one io_context thread --
// each looping acquire (SET NX PX) then, if it got the lock, release
// (EVALSHA), with hold 0, over K keys, for T seconds against a running
// redis-server. Acquire and release each count as one op, fail results
// included. `--client` picks the client as `--client` of a run does
// (redis, redis-watchdog, redis-reentrant: backends/redis_clients.h). Prints
// one line of key=value pairs (scripts/bench-redis-client.sh parses
// `ops_per_sec=`), with the lock-client calls it made (`calls=`,
// `calls_per_op=`).
//
// By default client i locks key i % K and makes one attempt an acquire, so
// with K = N nobody contends and an op is one call. --contend does the work
// of a full-speed run's mutex workload instead (`--hold 0-0 --backoff 0-0
// --keys K`): every op on a key drawn uniformly among the K, and an acquire
// the server refuses tried again at once, within --acquire-wait-ms (the
// run's default, 2000), each attempt a call and the whole acquire one op
// (LockBenchPolicy). The same lock-client calls as the run, without its
// recording: the like-for-like baseline of a run's ops/s.
//
// --own-network: instead of a running server, the bench stands one up as a
// run does (root only): a local cluster of one host with its own network
// (a namespace on the cluster's bridge, behind a veth), the `redis`
// backend's own service on it, and each client made by that service for its
// slot, bound to its own client address. So the bench measures the client
// on the run's own network path, not loopback's. Everything it made (the
// server, namespace, bridge, veth, their registry record, a temp dir) is
// removed at the end, on SIGINT / SIGTERM too; `locksmith cleanup` removes
// what a SIGKILLed bench left.
#include <stdlib.h>
#include <sys/resource.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstdint>
#include <fstream>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include <boost/asio/as_tuple.hpp>
#include <boost/asio/co_spawn.hpp>
#include <boost/asio/detached.hpp>
#include <boost/asio/io_context.hpp>
#include <boost/asio/signal_set.hpp>
#include <boost/asio/steady_timer.hpp>
#include <boost/asio/use_awaitable.hpp>

#include "backends/backend_registry.h"
#include "backends/lock_service.h"
#include "backends/redis_clients.h"
#include "backends/redis_lock_bench_policy.h"
#include "backends/redis_lock_client.h"
#include "cluster/local_cluster.h"

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
  bool own_network = false;  // stand up a server on a host with its own network
  bool contend = false;      // random key per op, refused acquires retried (as a run)
  int acquire_wait_ms = 2000;  // with --contend: one acquire's wait budget
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
               "redis-reentrant]\n"
               "       [--own-network] (root: a server of its own behind a veth, as a run's)\n"
               "       [--contend [--acquire-wait-ms MS]] (a random key per op, a refused\n"
               "       acquire retried at once: the calls of a run's mutex workload)\n");
  std::exit(254);
}

Flags Parse(int argc, char** argv) {
  Flags f;
  for (int i = 1; i < argc; ++i) {
    std::string_view a = argv[i];
    if (a == "--own-network") {
      f.own_network = true;
      continue;
    }
    if (a == "--contend") {
      f.contend = true;
      continue;
    }
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
    else if (a == "--acquire-wait-ms")
      f.acquire_wait_ms = std::atoi(v);
    else
      Usage();
  }
  if (f.clients < 1 || f.port < 1 || f.port > 65535 || f.seconds <= 0 || f.keys < 0 ||
      f.acquire_wait_ms < 0) {
    Usage();
  }
  if (f.keys == 0) f.keys = f.clients;
  const auto names = locksmith::RedisClientNames();
  if (std::find(names.begin(), names.end(), f.client) == names.end()) Usage();
  return f;
}

struct Counters {
  uint64_t ops = 0;
  uint64_t calls = 0;  // lock-client calls: every acquire attempt, every release
  uint64_t acquire[3] = {0, 0, 0};  // by Outcome
  uint64_t release[3] = {0, 0, 0};
};

}  // namespace

// --own-network: a one-host local cluster with its own network and the
// redis backend's service on it, as a run stands them up. The destructor
// stops the server and removes the cluster and the temp dir.
class OwnNetwork {
 public:
  static locksmith::Result<std::unique_ptr<OwnNetwork>> Start(const Flags& flags) {
    std::string pattern = "/tmp/locksmith-redis-bench-XXXXXX";
    if (mkdtemp(pattern.data()) == nullptr) return locksmith::Error{"mkdtemp failed"};
    std::unique_ptr<OwnNetwork> net(new OwnNetwork(pattern));
    auto backend = locksmith::FindBackend("redis");
    if (!backend) return locksmith::Error{backend.error()};
    const std::unique_ptr<locksmith::ModuleOptions> options = (*backend)->options();
    auto nodes = locksmith::BackendNodeNames("redis", *options);
    if (!nodes) return locksmith::Error{nodes.error()};
    locksmith::LocalClusterOptions cluster;
    cluster.node_names = *nodes;
    cluster.nodes_dir = net->dir_ + "/nodes";
    auto made = locksmith::CreateLocalCluster(cluster);
    if (!made) return locksmith::Error{"cluster: " + made.error()};
    net->cluster_ = std::move(*made);
    if (net->cluster_->ClientAddress(0).empty()) {
      return locksmith::Error{"no network of its own (needs root)"};
    }
    const locksmith::BackendContext context{*net->cluster_, flags.seed,
                                            std::chrono::milliseconds(flags.timeout_ms),
                                            flags.client, false};
    auto service = locksmith::MakeLockService("redis", *options, context);
    if (!service) return locksmith::Error{service.error()};
    net->service_ = std::move(*service);
    if (locksmith::Status s = net->service_->Start(); !s) return locksmith::Error{s.error()};
    net->started_ = true;
    return net;
  }

  ~OwnNetwork() {
    if (started_) service_->Stop();
    if (cluster_) {
      if (locksmith::Status s = cluster_->Teardown(); !s) {
        std::fprintf(stderr, "teardown: %s\n", s.error().c_str());
      }
    }
    std::error_code ignored;
    std::filesystem::remove_all(dir_, ignored);
  }

  // Client `index`'s lock client, as the service makes it for a run's slot.
  std::unique_ptr<locksmith::LockClient> NewClient(boost::asio::any_io_executor executor,
                                                   int index, uint64_t seed) {
    return service_->NewClient(std::move(executor),
                               {index, seed, cluster_->ClientAddress(index)});
  }

  // The server's pid (for its CPU per op), or 0.
  int ServerPid() {
    auto* processes = locksmith::Capability<locksmith::HasNodeProcesses>(*service_);
    if (processes == nullptr) return 0;
    const auto process = processes->ProcessOf(service_->Nodes().front());
    return process ? process->pid : 0;
  }

 private:
  explicit OwnNetwork(std::string dir) : dir_(std::move(dir)) {}

  const std::string dir_;
  std::unique_ptr<locksmith::Cluster> cluster_;
  std::unique_ptr<locksmith::LockService> service_;
  bool started_ = false;
};

int main(int argc, char** argv) {
  Flags flags = Parse(argc, argv);
  // Concurrency hint 1: the harness runs all clients on one thread.
  asio::io_context ioc(1);
  // Caught from here on, so an interrupted bench still removes what it made.
  asio::signal_set signals(ioc, SIGINT, SIGTERM);
  std::unique_ptr<OwnNetwork> own_network;
  if (flags.own_network) {
    auto started = OwnNetwork::Start(flags);
    if (!started) {
      std::fprintf(stderr, "--own-network: %s\n", started.error().c_str());
      return 1;
    }
    own_network = std::move(*started);
    if (flags.server_pid == 0) flags.server_pid = own_network->ServerPid();
  }
  std::vector<std::unique_ptr<locksmith::LockClient>> clients;
  std::vector<locksmith::LockBenchPolicy> policies;
  std::vector<std::string> keys;
  for (int k = 0; k < flags.keys; ++k) keys.push_back("bench-lock-" + std::to_string(k));
  for (int i = 0; i < flags.clients; ++i) {
    const uint64_t seed = flags.seed + static_cast<uint64_t>(i);
    policies.emplace_back(flags.keys, i, flags.contend,
                          std::chrono::milliseconds(flags.acquire_wait_ms), flags.seed);
    if (own_network) {
      clients.push_back(own_network->NewClient(ioc.get_executor(), i, seed));
      continue;
    }
    locksmith::RedisLockClientOptions o;
    o.endpoint = {flags.host, static_cast<uint16_t>(flags.port), flags.password};
    o.timeout = std::chrono::milliseconds(flags.timeout_ms);
    clients.push_back(locksmith::WrapRedisClient(
        flags.client, ioc.get_executor(),
        locksmith::MakeRedisMasterClient(flags.client, ioc.get_executor(), o, seed)));
  }

  Counters counters;
  bool stop = false;
  bool interrupted = false;
  int connect_failures = 0;
  int running = 0;
  Counters at_start;
  Clock::time_point t_start, t_end;
  double cpu_start = 0, cpu_end = 0, server_start = 0, server_end = 0;
  asio::steady_timer phase(ioc);  // the warmup, then the measurement
  signals.async_wait([&](const boost::system::error_code& ec, int) {
    if (ec) return;
    interrupted = true;
    phase.cancel();
  });

  auto loop = [&](int i) -> asio::awaitable<void> {
    auto& c = *clients[static_cast<size_t>(i)];
    locksmith::LockBenchPolicy& policy = policies[static_cast<size_t>(i)];
    const std::chrono::milliseconds lease(flags.lease_ms);
    while (!stop) {
      const std::string& key = keys[static_cast<size_t>(policy.NextKey())];
      locksmith::AcquireResult a;
      policy.BeginAcquire(Clock::now());
      do {
        c.SetAcquireWait(policy.WaitLeft(Clock::now()));  // as the run tells its client
        a = co_await c.Acquire(key, lease);
        ++counters.calls;
      } while (policy.RetryAfter(a.outcome, Clock::now(), stop));
      ++counters.ops;
      ++counters.acquire[static_cast<int>(a.outcome)];
      if (a.outcome != Outcome::kOk) continue;
      locksmith::ReleaseResult r = co_await c.Release(key, a.token);
      ++counters.calls;
      ++counters.ops;
      ++counters.release[static_cast<int>(r.outcome)];
    }
    --running;
  };
  // Sleeps for `seconds` unless interrupted.
  auto sleep = [&](double seconds) -> asio::awaitable<void> {
    if (interrupted) co_return;
    phase.expires_after(
        std::chrono::duration_cast<Clock::duration>(std::chrono::duration<double>(seconds)));
    co_await phase.async_wait(asio::as_tuple(asio::use_awaitable));
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
          signals.cancel();
          co_return;
        }
        auto ex = co_await asio::this_coro::executor;
        running = flags.clients;
        for (int i = 0; i < flags.clients; ++i) asio::co_spawn(ex, loop(i), asio::detached);
        co_await sleep(flags.warmup_seconds);
        at_start = counters;
        t_start = Clock::now();
        cpu_start = SelfCpuSeconds();
        server_start = ProcessCpuSeconds(flags.server_pid);
        co_await sleep(flags.seconds);
        t_end = Clock::now();
        cpu_end = SelfCpuSeconds();
        server_end = ProcessCpuSeconds(flags.server_pid);
        Counters at_end = counters;
        stop = true;
        // The loops finish their current op; they are not counted.
        asio::steady_timer t(ex);
        while (running > 0) {
          t.expires_after(std::chrono::milliseconds(1));
          co_await t.async_wait(asio::use_awaitable);
        }
        counters = at_end;
        // Each connection's read loop keeps the io_context busy until closed.
        for (auto& c : clients) c->Close();
        signals.cancel();
      },
      asio::detached);
  ioc.run();
  clients.clear();
  own_network.reset();
  if (interrupted) return 130;
  if (connect_failures > 0) return 1;

  const double secs = std::chrono::duration<double>(t_end - t_start).count();
  auto d = [&](const uint64_t* end, const uint64_t* begin, int k) { return end[k] - begin[k]; };
  const uint64_t ops = counters.ops - at_start.ops;
  const uint64_t calls = counters.calls - at_start.calls;
  std::printf(
      "clients=%d keys=%d contend=%d seconds=%.2f ops=%llu ops_per_sec=%.0f "
      "calls=%llu calls_per_op=%.3f "
      "acquire_ok=%llu acquire_fail=%llu acquire_unknown=%llu "
      "release_ok=%llu release_fail=%llu release_unknown=%llu "
      "client_cpu_us_per_op=%.2f server_cpu_us_per_op=%.2f client_cpu_us_per_call=%.2f\n",
      flags.clients, flags.keys, flags.contend ? 1 : 0, secs,
      static_cast<unsigned long long>(ops), ops / secs, static_cast<unsigned long long>(calls),
      ops ? static_cast<double>(calls) / static_cast<double>(ops) : 0.0,
      static_cast<unsigned long long>(d(counters.acquire, at_start.acquire, 0)),
      static_cast<unsigned long long>(d(counters.acquire, at_start.acquire, 1)),
      static_cast<unsigned long long>(d(counters.acquire, at_start.acquire, 2)),
      static_cast<unsigned long long>(d(counters.release, at_start.release, 0)),
      static_cast<unsigned long long>(d(counters.release, at_start.release, 1)),
      static_cast<unsigned long long>(d(counters.release, at_start.release, 2)),
      ops ? 1e6 * (cpu_end - cpu_start) / static_cast<double>(ops) : 0.0,
      ops && flags.server_pid > 0 ? 1e6 * (server_end - server_start) / static_cast<double>(ops)
                                  : -1.0,
      calls ? 1e6 * (cpu_end - cpu_start) / static_cast<double>(calls) : 0.0);
  return 0;
}
