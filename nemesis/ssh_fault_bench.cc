// ssh_fault_bench: the cost of one fault op through the ssh provider next
// to the local provider, on 5 hosts each: cluster create and teardown, a
// remote command (Exec `true`), a signal to a server (SIGCONT to a spawned
// sleep), and a majorities-ring partition applied and healed (rules on
// every host, connections aborted): median and p90 of --repeat rounds.
// Needs root (the local cluster's namespaces) and 5 ssh nodes. Not a test
// (timings depend on the machine): scripts/bench-ssh.sh builds it in
// Release and runs it against the docker/ compose cluster.
// Usage: ssh_fault_bench --nodes a,b,c,d,e --ssh-key KEY [--ssh-known-hosts F] [--repeat N]
#include <signal.h>
#include <stdlib.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <functional>
#include <string>
#include <vector>

#include "cluster/local_cluster.h"
#include "cluster/net_plan.h"
#include "cluster/ssh_cluster.h"
#include "nemesis/partition_applier.h"

namespace locksmith {
namespace {

using Millis = std::chrono::duration<double, std::milli>;

struct Stats {
  double p50 = 0, p90 = 0;
};

Stats Summary(std::vector<double> v) {
  if (v.empty()) return {};
  std::sort(v.begin(), v.end());
  auto at = [&](double q) {
    return v[std::min(v.size() - 1, static_cast<size_t>(q * static_cast<double>(v.size())))];
  };
  return {at(0.5), at(0.9)};
}

double Time(const std::function<bool()>& f, int* failures) {
  const auto t0 = std::chrono::steady_clock::now();
  if (!f()) ++*failures;
  return Millis(std::chrono::steady_clock::now() - t0).count();
}

struct Row {
  std::string what;
  Stats local, ssh;
};

// Times the ops on `cluster`; fills one column of `rows`.
void Measure(Cluster& cluster, int repeat, bool ssh, std::vector<Row>& rows, int* failures) {
  std::vector<Host*> hosts = cluster.Hosts();
  std::vector<double> exec_ms, signal_ms, apply_ms, heal_ms;
  ProcessSpec sleeper;
  sleeper.argv = {"sleep", "600"};
  auto pid = hosts[0]->Spawn(sleeper);
  if (!pid) {
    std::fprintf(stderr, "spawn: %s\n", pid.error().c_str());
    ++*failures;
  }
  std::vector<NetEndpoint> endpoints;
  std::vector<std::string> names;
  for (Host* h : hosts) {
    endpoints.push_back({h->Name(), h->Address(), h});
    names.push_back(h->Name());
  }
  PartitionApplier applier(*ChainName(cluster.Tag(), "part"), endpoints);
  for (int r = 0; r < repeat; ++r) {
    exec_ms.push_back(Time(
        [&] {
          auto e = hosts[0]->Exec({"true"}, std::chrono::seconds(10));
          return e.ok() && e->exit_code == 0;
        },
        failures));
    if (pid) {
      signal_ms.push_back(
          Time([&] { return hosts[0]->Signal(*pid, SIGCONT).ok(); }, failures));
    }
    const Grudge grudge = MajoritiesRing(names, static_cast<uint64_t>(r));
    apply_ms.push_back(Time([&] { return applier.Apply(grudge).ok(); }, failures));
    heal_ms.push_back(Time([&] { return applier.Heal().ok(); }, failures));
  }
  (void)applier.Teardown();
  const std::vector<std::pair<std::string, std::vector<double>*>> columns = {
      {"remote command (Exec true)", &exec_ms},
      {"signal a server (SIGCONT)", &signal_ms},
      {"partition apply (5 hosts)", &apply_ms},
      {"partition heal (5 hosts)", &heal_ms}};
  for (const auto& [what, values] : columns) {
    auto it = std::find_if(rows.begin(), rows.end(), [&](const Row& x) { return x.what == what; });
    if (it == rows.end()) {
      rows.push_back({what, {}, {}});
      it = rows.end() - 1;
    }
    (ssh ? it->ssh : it->local) = Summary(*values);
  }
}

int Main(int argc, char** argv) {
  std::string nodes, key, known_hosts;
  int repeat = 20;
  for (int i = 1; i + 1 < argc; i += 2) {
    const std::string flag = argv[i];
    if (flag == "--nodes") nodes = argv[i + 1];
    else if (flag == "--ssh-key") key = argv[i + 1];
    else if (flag == "--ssh-known-hosts") known_hosts = argv[i + 1];
    else if (flag == "--repeat") repeat = std::atoi(argv[i + 1]);
  }
  auto node_list = ParseNodeList(nodes);
  if (!node_list || node_list->size() < 5 || repeat < 1) {
    std::fprintf(stderr, "usage: ssh_fault_bench --nodes a,b,c,d,e --ssh-key KEY "
                         "[--ssh-known-hosts F] [--repeat N]\n");
    return 254;
  }
  std::string pattern = "/tmp/locksmith-ssh-bench-XXXXXX";
  if (mkdtemp(pattern.data()) == nullptr) return 255;
  const std::string dir = pattern;
  std::vector<std::string> names = {"n1", "n2", "n3", "n4", "n5"};
  std::vector<Row> rows;
  Stats local_up, ssh_up, local_down, ssh_down;
  int failures = 0;
  {
    LocalClusterOptions o;
    o.node_names = names;
    o.nodes_dir = dir + "/local";
    auto t0 = std::chrono::steady_clock::now();
    auto cluster = CreateLocalCluster(o);
    local_up = {Millis(std::chrono::steady_clock::now() - t0).count(), 0};
    if (!cluster) {
      std::fprintf(stderr, "local cluster: %s\n", cluster.error().c_str());
      return 255;
    }
    Measure(**cluster, repeat, false, rows, &failures);
    t0 = std::chrono::steady_clock::now();
    (void)(*cluster)->Teardown();
    local_down = {Millis(std::chrono::steady_clock::now() - t0).count(), 0};
  }
  {
    SshClusterOptions o;
    o.host_names = names;
    o.nodes = *node_list;
    o.ssh.key = key;
    o.ssh.known_hosts = known_hosts;
    o.nodes_dir = dir + "/ssh";
    o.packages = SshProviderPackages();
    o.packages.push_back("redis-server");
    auto t0 = std::chrono::steady_clock::now();
    auto cluster = CreateSshCluster(o);
    ssh_up = {Millis(std::chrono::steady_clock::now() - t0).count(), 0};
    if (!cluster) {
      std::fprintf(stderr, "ssh cluster: %s\n", cluster.error().c_str());
      return 255;
    }
    Measure(**cluster, repeat, true, rows, &failures);
    t0 = std::chrono::steady_clock::now();
    (void)(*cluster)->Teardown();
    ssh_down = {Millis(std::chrono::steady_clock::now() - t0).count(), 0};
  }
  std::printf("%-30s %18s %18s\n", "5 hosts, ms", "local p50 / p90", "ssh p50 / p90");
  std::printf("%-30s %18.1f %18.1f\n", "cluster create (1 round)", local_up.p50, ssh_up.p50);
  for (const Row& r : rows) {
    std::printf("%-30s %8.2f / %7.2f %8.2f / %7.2f\n", r.what.c_str(), r.local.p50, r.local.p90,
                r.ssh.p50, r.ssh.p90);
  }
  std::printf("%-30s %18.1f %18.1f\n", "cluster teardown (1 round)", local_down.p50,
              ssh_down.p50);
  std::printf("%d rounds, %d failed ops\n", repeat, failures);
  std::error_code ec;
  std::filesystem::remove_all(dir, ec);
  return failures == 0 ? 0 : 1;
}

}  // namespace
}  // namespace locksmith

int main(int argc, char** argv) { return locksmith::Main(argc, argv); }
