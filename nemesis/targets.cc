#include "nemesis/targets.h"

#include <algorithm>
#include <random>
#include <set>

#include "base/option_set.h"

namespace locksmith {
namespace {

struct Keyword {
  const char* text;
  Target::Kind kind;
  const char* role;  // kRole: the role it selects
};
constexpr Keyword kKeywords[] = {
    {"one", Target::Kind::kOne, ""},
    {"primary", Target::Kind::kRole, kPrimaryRole},
    {"replicas", Target::Kind::kRole, kReplicaRole},
    {"minority", Target::Kind::kMinority, ""},
    {"majority", Target::Kind::kMajority, ""},
    {"all", Target::Kind::kAll, ""},
};
// The prefix of a target that selects by any role the backend declares.
constexpr std::string_view kRolePrefix = "role:";

bool IsNameChar(char c) {
  return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '-' ||
         c == '_' || c == '.';
}

// `count` nodes of `pool` drawn by `seed`, in pool order.
std::vector<std::string> Draw(const std::vector<std::string>& pool, size_t count, uint64_t seed) {
  std::vector<size_t> order(pool.size());
  for (size_t i = 0; i < order.size(); ++i) order[i] = i;
  std::mt19937_64 rng(seed);
  // Fisher-Yates by hand: std::shuffle's draws differ between standard
  // libraries, and a run must replay from its seed anywhere.
  for (size_t i = order.size(); i > 1; --i) {
    std::uniform_int_distribution<size_t> pick(0, i - 1);
    std::swap(order[i - 1], order[pick(rng)]);
  }
  order.resize(count);
  std::sort(order.begin(), order.end());
  std::vector<std::string> drawn;
  for (size_t i : order) drawn.push_back(pool[i]);
  return drawn;
}

}  // namespace

const std::vector<std::string>& TargetKeywords() {
  static const std::vector<std::string> kTexts = [] {
    std::vector<std::string> texts;
    for (const auto& k : kKeywords) texts.push_back(k.text);
    return texts;
  }();
  return kTexts;
}

std::string TargetChoices() {
  return JoinNames(TargetKeywords()) + ", " + std::string(kRolePrefix) +
         "NAME (a role the backend declares), or node names";
}

Result<Target> ParseTarget(std::string_view text) {
  for (const auto& k : kKeywords) {
    if (text == k.text) return Target{k.kind, k.role, {}};
  }
  if (text.starts_with(kRolePrefix)) {
    const std::string_view role = text.substr(kRolePrefix.size());
    if (role.empty() || !std::all_of(role.begin(), role.end(), IsNameChar)) {
      return Error{"target " + QuoteInput(text) + ": expected role: and the name of a role"};
    }
    return Target{Target::Kind::kRole, std::string(role), {}};
  }
  Target target{Target::Kind::kNamed, "", {}};
  std::set<std::string> seen;
  size_t pos = 0;
  while (true) {
    const size_t comma = text.find(',', pos);
    const std::string_view name =
        text.substr(pos, comma == std::string_view::npos ? std::string_view::npos : comma - pos);
    if (name.empty() || !std::all_of(name.begin(), name.end(), IsNameChar)) {
      return Error{"target " + QuoteInput(text) + ": expected " + JoinNames(TargetKeywords()) +
                   ", role: and a role's name, or node names separated by commas"};
    }
    if (!seen.insert(std::string(name)).second) {
      return Error{"target " + QuoteInput(text) + " names " + std::string(name) + " twice"};
    }
    target.names.emplace_back(name);
    if (comma == std::string_view::npos) break;
    pos = comma + 1;
  }
  return target;
}

std::string FormatTarget(const Target& target) {
  for (const auto& k : kKeywords) {
    if (target.kind == k.kind && target.role == k.role) return k.text;
  }
  if (target.kind == Target::Kind::kRole) return std::string(kRolePrefix) + target.role;
  std::string text;
  for (const auto& name : target.names) text += (text.empty() ? "" : ",") + name;
  return text;
}

Status CheckTargetRole(const Target& target, const std::vector<NodeRoleSpec>& roles,
                       const std::string& backend) {
  if (target.kind != Target::Kind::kRole || FindRole(roles, target.role) != nullptr) {
    return OkStatus();
  }
  return Error{"target " + FormatTarget(target) + ": backend " + backend + " has no " +
               target.role + " nodes (its roles: " + JoinNames(RoleNames(roles)) + ")"};
}

std::string UnknownTargetRole(const std::string& flag, const std::string& text,
                              const std::vector<NodeRoleSpec>& roles, const std::string& backend) {
  auto target = ParseTarget(text);
  if (!target) return "";
  Status s = CheckTargetRole(*target, roles, backend);
  return s ? "" : flag + ": " + s.error();
}

Result<std::vector<std::string>> ResolveTarget(const Target& target, const NodeTable& table,
                                               uint64_t seed) {
  std::vector<std::string> pool;
  for (const auto& node : table) {
    if (node.holds_data) pool.push_back(node.name);
  }
  const size_t n = pool.size();
  switch (target.kind) {
    case Target::Kind::kRole: {
      std::vector<std::string> nodes = NodesWithRole(table, target.role);
      if (!nodes.empty()) return nodes;
      // "primary" and "replicas" say what they lack as they always did.
      const std::string text = FormatTarget(target);
      return Error{"target " + text + ": the service has no " +
                   (text.starts_with(kRolePrefix) ? target.role + " nodes" : text)};
    }
    case Target::Kind::kNamed: {
      for (const auto& name : target.names) {
        if (FindServiceNode(table, name) == nullptr) {
          return Error{"target names " + name + ", which the service does not have (it has " +
                       JoinNames(NodeNames(table)) + ")"};
        }
      }
      std::vector<std::string> nodes;
      for (const auto& node : table) {
        if (std::find(target.names.begin(), target.names.end(), node.name) != target.names.end()) {
          nodes.push_back(node.name);
        }
      }
      return nodes;
    }
    case Target::Kind::kOne:
    case Target::Kind::kMinority:
    case Target::Kind::kMajority:
    case Target::Kind::kAll:
      break;
  }
  if (n == 0) return Error{"target " + FormatTarget(target) + ": the service has no data nodes"};
  size_t count = n;
  if (target.kind == Target::Kind::kOne) count = 1;
  if (target.kind == Target::Kind::kMinority) count = (n - 1) / 2;
  if (target.kind == Target::Kind::kMajority) count = n / 2 + 1;
  if (count == 0) {
    return Error{"target minority: no minority of " + std::to_string(n) + " node" +
                 (n == 1 ? "" : "s")};
  }
  return Draw(pool, count, seed);
}

}  // namespace locksmith
