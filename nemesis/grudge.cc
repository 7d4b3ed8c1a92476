#include "nemesis/grudge.h"

#include <algorithm>
#include <numeric>
#include <random>

#include "nemesis/fault_text.h"

namespace locksmith {
namespace {

// `nodes` in an order drawn from `seed` (Fisher-Yates by hand: the
// standard shuffle's draws differ between standard libraries, and a run
// replays from its seed anywhere).
std::vector<std::string> Shuffled(std::vector<std::string> nodes, std::mt19937_64& rng) {
  for (size_t i = nodes.size(); i > 1; --i) {
    std::uniform_int_distribution<size_t> pick(0, i - 1);
    std::swap(nodes[i - 1], nodes[pick(rng)]);
  }
  return nodes;
}

// The grudge in which each node drops everything except what it sees.
Grudge FromVisible(const std::vector<std::string>& nodes,
                   const std::map<std::string, std::set<std::string>>& visible) {
  Grudge grudge;
  for (const auto& node : nodes) {
    for (const auto& other : nodes) {
      if (other != node && !visible.at(node).contains(other)) grudge[node].insert(other);
    }
  }
  return grudge;
}

}  // namespace

Grudge Complete(const std::vector<std::vector<std::string>>& components) {
  Grudge grudge;
  for (size_t i = 0; i < components.size(); ++i) {
    for (size_t j = 0; j < components.size(); ++j) {
      if (i == j) continue;
      for (const auto& a : components[i]) {
        for (const auto& b : components[j]) grudge[a].insert(b);
      }
    }
  }
  return grudge;
}

Grudge Isolate(const std::vector<std::string>& nodes, const std::vector<std::string>& isolated) {
  std::vector<std::string> rest;
  for (const auto& node : nodes) {
    if (std::find(isolated.begin(), isolated.end(), node) == isolated.end()) rest.push_back(node);
  }
  return Complete({isolated, rest});
}

std::vector<std::vector<std::string>> RandomHalves(const std::vector<std::string>& nodes,
                                                   uint64_t seed) {
  std::mt19937_64 rng(seed);
  std::vector<std::string> order = Shuffled(nodes, rng);
  const auto middle = order.begin() + static_cast<std::ptrdiff_t>(order.size() / 2);
  return {std::vector<std::string>(order.begin(), middle),
          std::vector<std::string>(middle, order.end())};
}

Grudge MajoritiesRing(const std::vector<std::string>& nodes, uint64_t seed) {
  const size_t n = nodes.size();
  if (n < 3) return {};
  const size_t majority = n / 2 + 1;
  std::mt19937_64 rng(seed);
  const std::vector<std::string> ring = Shuffled(nodes, rng);
  // Node i sees the window of `majority` consecutive ring nodes around it.
  // Windows are rotations of one another in a ring longer than them, so no
  // two are the same set; for 5 nodes each is i-1, i, i+1 (symmetric).
  std::map<std::string, std::set<std::string>> visible;
  for (size_t i = 0; i < n; ++i) {
    for (size_t k = 0; k < majority; ++k) {
      visible[ring[i]].insert(ring[(i + n + k - majority / 2) % n]);
    }
  }
  return FromVisible(nodes, visible);
}

Grudge Bridge(const std::vector<std::string>& nodes, uint64_t seed) {
  auto halves = RandomHalves(nodes, seed);
  if (halves[1].empty()) return {};
  const std::string bridge = halves[1].back();
  halves[1].pop_back();
  Grudge grudge = Complete(halves);
  for (auto& [node, dropped] : grudge) dropped.erase(bridge);
  return grudge;
}

Grudge OneWay(const std::vector<std::string>& nodes, uint64_t seed) {
  const auto halves = RandomHalves(nodes, seed);
  Grudge grudge;
  for (const auto& a : halves[0]) {
    for (const auto& b : halves[1]) grudge[a].insert(b);
  }
  return grudge;
}

Grudge ClientsFromNodes(const std::vector<std::string>& clients,
                        const std::vector<std::string>& nodes) {
  Grudge grudge;
  for (const auto& client : clients) {
    for (const auto& node : nodes) {
      grudge[node].insert(client);
      grudge[client].insert(node);
    }
  }
  return grudge;
}

bool Reaches(const Grudge& grudge, const std::string& from, const std::string& to) {
  auto it = grudge.find(to);
  return it == grudge.end() || !it->second.contains(from);
}

namespace {

bool Drops(const Grudge& grudge, const std::string& host, const std::string& other) {
  auto it = grudge.find(host);
  return it != grudge.end() && it->second.contains(other);
}

bool Symmetric(const Grudge& grudge) {
  for (const auto& [a, dropped] : grudge) {
    for (const auto& b : dropped) {
      if (!Drops(grudge, b, a)) return false;
    }
  }
  return true;
}

size_t IslandOf(std::vector<size_t>& parent, size_t x) {
  return parent[x] == x ? x : parent[x] = IslandOf(parent, parent[x]);
}

// "n1 n2 | n3": the nodes that still reach each other, island by island;
// empty when they all do.
std::string NodeIslands(const Grudge& grudge) {
  std::set<std::string> hosts;
  for (const auto& [host, dropped] : grudge) {
    hosts.insert(host);
    hosts.insert(dropped.begin(), dropped.end());
  }
  std::vector<std::string> nodes;
  for (const auto& h : hosts) {
    if (!IsClientHost(h)) nodes.push_back(h);
  }
  std::sort(nodes.begin(), nodes.end(), NaturalLess);
  std::vector<size_t> parent(nodes.size());
  std::iota(parent.begin(), parent.end(), 0);
  for (size_t a = 0; a < nodes.size(); ++a) {
    for (size_t b = a + 1; b < nodes.size(); ++b) {
      if (!Drops(grudge, nodes[a], nodes[b])) parent[IslandOf(parent, b)] = IslandOf(parent, a);
    }
  }
  std::map<size_t, std::vector<std::string>> islands;
  for (size_t a = 0; a < nodes.size(); ++a) islands[IslandOf(parent, a)].push_back(nodes[a]);
  if (islands.size() <= 1) return "";
  std::vector<std::string> names;
  for (auto& [root, members] : islands) names.push_back(CompactNames(members));
  return JoinStrings(names, " | ");
}

// "c6 cut from n1 n2": clients grouped by the hosts they were cut from.
std::vector<std::string> ClientCuts(const Grudge& grudge) {
  std::map<std::string, std::vector<std::string>> clients_by_cut;
  for (const auto& [host, dropped] : grudge) {
    if (!IsClientHost(host) || dropped.empty()) continue;
    clients_by_cut[CompactNames({dropped.begin(), dropped.end()})].push_back(host);
  }
  std::vector<std::pair<std::string, std::string>> groups;
  for (auto& [cut, clients] : clients_by_cut) groups.emplace_back(CompactNames(clients), cut);
  std::sort(groups.begin(), groups.end(),
            [](const auto& a, const auto& b) { return a.first.size() < b.first.size(); });
  std::vector<std::string> parts;
  for (const auto& [clients, cut] : groups) parts.push_back(clients + " cut from " + cut);
  return parts;
}

}  // namespace

std::string DescribeGrudge(const Grudge& grudge) {
  if (grudge.empty()) return "no cuts";
  std::vector<std::string> parts;
  if (!Symmetric(grudge)) {
    for (const auto& [a, dropped] : grudge) {
      if (dropped.empty()) continue;
      parts.push_back(a + " drops " + CompactNames({dropped.begin(), dropped.end()}));
    }
    return "one-way: " + JoinStrings(parts, "; ");
  }
  if (std::string islands = NodeIslands(grudge); !islands.empty()) parts.push_back(islands);
  for (auto& cut : ClientCuts(grudge)) parts.push_back(std::move(cut));
  return parts.empty() ? "no cuts" : JoinStrings(parts, "; ");
}

}  // namespace locksmith
