// exec_client_bench: lock ops/s through the exec protocol the way a run
// drives exec clients -- N clients, one program each, all on one io_context
// thread -- each looping acquire then release on a key of its own, for T
// seconds. Acquire and release each count as one op. Prints one line of
// key=value pairs: ops_per_sec, and harness_us_per_op, the CPU this process
// (the harness's side: pipes, JSON, deadlines) spent per op, the programs'
// own CPU not counted. With --host/--port/--password the programs are told a
// Redis primary there (adapters/minimal/lock_adapter.py needs one);
// scripts/bench-exec-client.sh runs it.
#include <signal.h>
#include <sys/resource.h>

#include <chrono>
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

#include "backends/exec_clients.h"

namespace {

namespace asio = boost::asio;
using Clock = std::chrono::steady_clock;

struct Flags {
  std::vector<std::string> argv;
  std::string host = "127.0.0.1";
  int port = 6379;
  std::string password;
  int clients = 10;
  double seconds = 5;
  double warmup_seconds = 1;
};

double SelfCpuSeconds() {
  rusage ru{};
  getrusage(RUSAGE_SELF, &ru);
  auto secs = [](const timeval& tv) { return tv.tv_sec + tv.tv_usec / 1e6; };
  return secs(ru.ru_utime) + secs(ru.ru_stime);
}

[[noreturn]] void Usage() {
  std::fprintf(stderr,
               "usage: exec_client_bench [--clients N] [--seconds T] [--warmup S] [--host H]\n"
               "       [--port P] [--password PW] -- PROGRAM [ARGS...]\n");
  std::exit(254);
}

Flags Parse(int argc, char** argv) {
  Flags f;
  int i = 1;
  for (; i < argc && std::string_view(argv[i]) != "--"; i += 2) {
    std::string_view a = argv[i];
    if (i + 1 >= argc) Usage();
    const char* v = argv[i + 1];
    if (a == "--clients") f.clients = std::atoi(v);
    else if (a == "--seconds") f.seconds = std::atof(v);
    else if (a == "--warmup") f.warmup_seconds = std::atof(v);
    else if (a == "--host") f.host = v;
    else if (a == "--port") f.port = std::atoi(v);
    else if (a == "--password") f.password = v;
    else Usage();
  }
  for (++i; i < argc; ++i) f.argv.emplace_back(argv[i]);
  if (f.argv.empty() || f.clients < 1 || f.seconds <= 0) Usage();
  return f;
}

}  // namespace

int main(int argc, char** argv) {
  signal(SIGPIPE, SIG_IGN);
  const Flags flags = Parse(argc, argv);
  locksmith::ExecClientsOptions options;
  options.argv = flags.argv;
  options.facts = {{"backend", "redis"},
                   {"password", flags.password},
                   {"nodes", {{{"name", "n1"}, {"role", "primary"}, {"address", flags.host},
                               {"port", flags.port}}}},
                   {"settings", nlohmann::json::object()},
                   {"timeout_ms", 1000}};
  options.timeout = std::chrono::milliseconds(1000);
  options.log_dir = "/tmp";
  options.report = [](const std::string& line) { std::fprintf(stderr, "%s\n", line.c_str()); };
  locksmith::ExecClients programs(options);
  asio::io_context ioc(1);
  std::vector<std::unique_ptr<locksmith::LockClient>> clients;
  for (int i = 0; i < flags.clients; ++i) {
    clients.push_back(programs.NewClient(ioc.get_executor(), {i, 0, ""}, flags.clients,
                                         [](int j) { return locksmith::ClientSlot{j, 0, ""}; }));
  }
  uint64_t ops = 0, failed = 0, at_start = 0;
  bool stop = false, connected = true;
  Clock::time_point t_start, t_end;
  double cpu_start = 0, cpu_end = 0;
  auto loop = [&](int i) -> asio::awaitable<void> {
    auto& c = *clients[static_cast<size_t>(i)];
    const std::string key = "bench-lock-" + std::to_string(i);
    while (!stop) {
      locksmith::AcquireResult a = co_await c.Acquire(key, std::chrono::milliseconds(10000));
      ++ops;
      if (a.outcome != locksmith::Outcome::kOk) {
        ++failed;
        continue;
      }
      locksmith::ReleaseResult r = co_await c.Release(key, a.token);
      ++ops;
      failed += r.outcome != locksmith::Outcome::kOk;
    }
  };
  asio::co_spawn(
      ioc,
      [&]() -> asio::awaitable<void> {
        for (auto& c : clients) {
          if (locksmith::Status s = co_await c->Connect(); !s) {
            std::fprintf(stderr, "connect: %s\n", s.error().c_str());
            connected = false;
          }
        }
        if (!connected) co_return;
        auto ex = co_await asio::this_coro::executor;
        for (int i = 0; i < flags.clients; ++i) asio::co_spawn(ex, loop(i), asio::detached);
        asio::steady_timer t(ex);
        t.expires_after(std::chrono::duration_cast<Clock::duration>(
            std::chrono::duration<double>(flags.warmup_seconds)));
        co_await t.async_wait(asio::use_awaitable);
        at_start = ops;
        t_start = Clock::now();
        cpu_start = SelfCpuSeconds();
        t.expires_after(std::chrono::duration_cast<Clock::duration>(
            std::chrono::duration<double>(flags.seconds)));
        co_await t.async_wait(asio::use_awaitable);
        t_end = Clock::now();
        cpu_end = SelfCpuSeconds();
        stop = true;
        t.expires_after(std::chrono::milliseconds(1500));  // the last calls complete
        co_await t.async_wait(asio::use_awaitable);
        for (auto& c : clients) c->Close();
      },
      asio::detached);
  ioc.run();
  if (!connected) return 255;
  const double secs = std::chrono::duration<double>(t_end - t_start).count();
  const double measured = static_cast<double>(ops - at_start);
  std::printf("clients=%d seconds=%.1f ops=%.0f ops_per_sec=%.0f harness_us_per_op=%.2f "
              "failed=%llu\n",
              flags.clients, secs, measured, measured / secs,
              (cpu_end - cpu_start) * 1e6 / measured, static_cast<unsigned long long>(failed));
  return 0;
}
