// Grudges: the shape of a network partition as plain data, built by pure
// seeded functions (Jepsen's vocabulary). grudge[a] is the set of endpoints
// whose packets `a` drops; a symmetric cut lists both directions, a one-way
// cut one. Endpoints are node names, or client names for cuts between
// clients and nodes. The partition nemesis turns a grudge into firewall
// rules on the test hosts; everything here is tested without a network.
// Pure; thread-safe.
#pragma once

#include <cstdint>
#include <map>
#include <set>
#include <string>
#include <vector>

namespace locksmith {

using Grudge = std::map<std::string, std::set<std::string>>;

// Every node drops every node outside its own component.
Grudge Complete(const std::vector<std::vector<std::string>>& components);

// `isolated` on one side, every other node on the other.
Grudge Isolate(const std::vector<std::string>& nodes, const std::vector<std::string>& isolated);

// The nodes shuffled by `seed` and cut in two: floor(n/2) nodes, then the
// rest (the majority when n is odd).
std::vector<std::vector<std::string>> RandomHalves(const std::vector<std::string>& nodes,
                                                   uint64_t seed);

// Every node sees a majority (itself included), and no two nodes see the
// same majority, so no majority agrees on anything (Jepsen's
// majorities-ring). Nodes sit on a ring shuffled by `seed`; each sees the
// window of a majority of consecutive ring nodes around it: for 5 nodes
// exactly its two neighbours (symmetric); for other sizes the window leans
// one way, so some cuts are one-way. Needs 3 nodes or more (fewer: empty,
// no such partition exists).
Grudge MajoritiesRing(const std::vector<std::string>& nodes, uint64_t seed);

// Two halves (RandomHalves) joined by one bridge node that both see and
// that sees both; each half is cut from the other.
Grudge Bridge(const std::vector<std::string>& nodes, uint64_t seed);

// Asymmetric: the first half (RandomHalves) drops what the second sends,
// while the second still hears the first.
Grudge OneWay(const std::vector<std::string>& nodes, uint64_t seed);

// `clients` cut off from `nodes` in both directions; the nodes still see
// each other and other clients still see everyone.
Grudge ClientsFromNodes(const std::vector<std::string>& clients,
                        const std::vector<std::string>& nodes);

// Can `from`'s packets reach `to`?
bool Reaches(const Grudge& grudge, const std::string& from, const std::string& to);

// The grudge in words: the islands of nodes that still reach each other,
// then which clients were cut from which nodes ("n1 n2 | n3; c6 cut from
// n1 n2; c0-c5 c7-c9 cut from n3"); one-way cuts read "a drops b"; "no
// cuts" when nothing is cut.
std::string DescribeGrudge(const Grudge& grudge);

}  // namespace locksmith
