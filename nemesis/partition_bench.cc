// partition_bench: how long the partition nemesis takes to put a
// majorities-ring partition in place on a 5-node local cluster with its own
// network (rules on every host, established connections aborted), and to
// heal it: median, p90 and max of --repeat rounds (default 20), plus one
// round of each other shape. Needs root; the cluster lives in a temp dir,
// removed at the end. Not a test (timings depend on the machine):
// scripts/bench-partition.sh builds it in Release and runs it.
// Usage: partition_bench [--repeat N]
#include <stdlib.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <string>
#include <vector>

#include "cluster/local_cluster.h"
#include "cluster/net_plan.h"
#include "nemesis/partition_applier.h"

namespace locksmith {
namespace {

using Millis = std::chrono::duration<double, std::milli>;

double Quantile(std::vector<double> v, double q) {
  std::sort(v.begin(), v.end());
  return v[std::min(v.size() - 1, static_cast<size_t>(q * static_cast<double>(v.size())))];
}

int Run(int repeat) {
  std::string pattern = "/tmp/locksmith-partition-bench-XXXXXX";
  if (mkdtemp(pattern.data()) == nullptr) {
    std::perror("mkdtemp");
    return 1;
  }
  const std::string dir = pattern;
  LocalClusterOptions o;
  for (int i = 1; i <= 5; ++i) o.node_names.push_back("n" + std::to_string(i));
  o.nodes_dir = dir + "/nodes";
  o.state_dir = dir + "/state";
  auto cluster = CreateLocalCluster(o);
  if (!cluster.ok()) {
    std::fprintf(stderr, "cluster: %s\n", cluster.error().c_str());
    return 1;
  }
  std::vector<NetEndpoint> endpoints;
  std::vector<std::string> names;
  for (Host* h : (*cluster)->Hosts()) {
    endpoints.push_back({h->Name(), h->Address(), h});
    names.push_back(h->Name());
  }
  int failures = 0;
  {
    PartitionApplier applier(*ChainName((*cluster)->Tag(), "part"), endpoints);
    std::vector<double> apply_ms, heal_ms;
    for (int r = 0; r < repeat; ++r) {
      const Grudge grudge = MajoritiesRing(names, static_cast<uint64_t>(r));
      const auto t0 = std::chrono::steady_clock::now();
      auto applied = applier.Apply(grudge);
      const auto t1 = std::chrono::steady_clock::now();
      const Status healed = applier.Heal();
      const auto t2 = std::chrono::steady_clock::now();
      if (!applied.ok() || !healed.ok()) {
        std::fprintf(stderr, "round %d: %s\n", r,
                     (!applied.ok() ? applied.error() : healed.error()).c_str());
        ++failures;
        continue;
      }
      apply_ms.push_back(Millis(t1 - t0).count());
      heal_ms.push_back(Millis(t2 - t1).count());
    }
    if (!apply_ms.empty()) {
      std::printf("majorities-ring on 5 nodes, %zu rounds (ms):\n", apply_ms.size());
      std::printf("  %-6s %8s %8s %8s\n", "", "median", "p90", "max");
      std::printf("  %-6s %8.1f %8.1f %8.1f\n", "apply", Quantile(apply_ms, 0.5),
                  Quantile(apply_ms, 0.9), Quantile(apply_ms, 1.0));
      std::printf("  %-6s %8.1f %8.1f %8.1f\n", "heal", Quantile(heal_ms, 0.5),
                  Quantile(heal_ms, 0.9), Quantile(heal_ms, 1.0));
    }
    struct Shape {
      const char* name;
      Grudge grudge;
    };
    for (const Shape& shape : {Shape{"isolate n1", Isolate(names, {"n1"})},
                               Shape{"halves", Complete(RandomHalves(names, 1))},
                               Shape{"bridge", Bridge(names, 1)},
                               Shape{"one-way", OneWay(names, 1)}}) {
      const auto t0 = std::chrono::steady_clock::now();
      auto applied = applier.Apply(shape.grudge);
      const auto t1 = std::chrono::steady_clock::now();
      failures += applied.ok() ? 0 : 1;
      std::printf("  %-12s apply %6.1f ms%s\n", shape.name, Millis(t1 - t0).count(),
                  applied.ok() ? "" : (" FAILED: " + applied.error()).c_str());
    }
    const auto t0 = std::chrono::steady_clock::now();
    const Status removed = applier.Teardown();
    std::printf("  teardown (heal, remove chains) %.1f ms\n",
                Millis(std::chrono::steady_clock::now() - t0).count());
    failures += removed.ok() ? 0 : 1;
  }
  (void)(*cluster)->Teardown();
  std::filesystem::remove_all(dir);
  return failures == 0 ? 0 : 1;
}

}  // namespace
}  // namespace locksmith

int main(int argc, char** argv) {
  int repeat = 20;
  for (int i = 1; i < argc; ++i) {
    if (std::strcmp(argv[i], "--repeat") == 0 && i + 1 < argc) {
      repeat = std::atoi(argv[++i]);
    } else {
      std::fprintf(stderr, "usage: partition_bench [--repeat N]\n");
      return 254;
    }
  }
  if (repeat < 1) {
    std::fprintf(stderr, "--repeat must be at least 1\n");
    return 254;
  }
  return locksmith::Run(repeat);
}
