// local_cluster_bench: how long a LocalCluster with its own network takes to
// create (namespaces, bridge, veths, addresses) and to tear down, at 1, 5 and
// 13 nodes (a slice's maximum): per node count the median and the slowest of
// --repeat runs (default 5), and whether teardown left any namespace or link
// of the run behind. Needs root; the registry and node directories go to a
// temp dir, removed at the end. Not a test (timings depend on the machine):
// scripts/bench-cluster.sh builds it in Release and runs it.
// Usage: local_cluster_bench [--repeat N]
#include <stdlib.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <string>
#include <vector>

#include "cluster/local_cluster.h"
#include "cluster/net_plan.h"
#include "cluster/net_setup.h"

namespace locksmith {
namespace {

using Millis = std::chrono::duration<double, std::milli>;

// Namespaces and links of `tag` still in the kernel.
int Leftovers(const std::string& tag) {
  int left = 0;
  for (const auto& ns : ListNetns()) left += TagFromNetnsName(ns) == tag;
  for (const auto& link : ListLinks()) left += TagFromLinkName(link) == tag;
  return left;
}

double Median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  return v[v.size() / 2];
}

int Run(int repeat) {
  std::string pattern = "/tmp/locksmith-cluster-bench-XXXXXX";
  if (mkdtemp(pattern.data()) == nullptr) {
    std::perror("mkdtemp");
    return 1;
  }
  const std::string dir = pattern;
  int failures = 0;
  std::printf("%5s  %12s  %10s  %14s  %12s  %9s\n", "nodes", "create med", "create max",
              "teardown med", "teardown max", "leftovers");
  for (int nodes : {1, 5, kMaxNodesPerSlice}) {
    std::vector<double> create_ms, teardown_ms;
    int leftovers = 0;
    for (int r = 0; r < repeat; ++r) {
      LocalClusterOptions o;
      for (int i = 0; i < nodes; ++i) o.node_names.push_back("n" + std::to_string(i + 1));
      o.nodes_dir = dir + "/nodes";
      o.state_dir = dir + "/state";
      const auto t0 = std::chrono::steady_clock::now();
      auto cluster = CreateLocalCluster(o);
      const auto t1 = std::chrono::steady_clock::now();
      if (!cluster.ok()) {
        std::fprintf(stderr, "%d node(s): %s\n", nodes, cluster.error().c_str());
        ++failures;
        break;
      }
      const std::string tag = (*cluster)->Tag();
      const Status torn = (*cluster)->Teardown();
      const auto t2 = std::chrono::steady_clock::now();
      if (!torn.ok()) {
        std::fprintf(stderr, "%d node(s): %s\n", nodes, torn.error().c_str());
        ++failures;
      }
      create_ms.push_back(Millis(t1 - t0).count());
      teardown_ms.push_back(Millis(t2 - t1).count());
      leftovers += Leftovers(tag);
    }
    if (create_ms.empty()) continue;
    failures += leftovers > 0;
    std::printf("%5d  %9.1f ms  %7.1f ms  %11.1f ms  %9.1f ms  %9d\n", nodes, Median(create_ms),
                *std::max_element(create_ms.begin(), create_ms.end()), Median(teardown_ms),
                *std::max_element(teardown_ms.begin(), teardown_ms.end()), leftovers);
  }
  std::error_code ignored;
  std::filesystem::remove_all(dir, ignored);
  return failures == 0 ? 0 : 1;
}

}  // namespace
}  // namespace locksmith

int main(int argc, char** argv) {
  int repeat = 5;
  for (int i = 1; i < argc; ++i) {
    if (std::strcmp(argv[i], "--repeat") == 0 && i + 1 < argc && std::atoi(argv[i + 1]) > 0) {
      repeat = std::atoi(argv[++i]);
    } else {
      std::fprintf(stderr, "usage: local_cluster_bench [--repeat N]: bad argument '%s'\n", argv[i]);
      return 254;
    }
  }
  if (geteuid() != 0) {
    std::fprintf(stderr, "local_cluster_bench needs root (network namespaces, bridge, veths)\n");
    return 254;
  }
  return locksmith::Run(repeat);
}
