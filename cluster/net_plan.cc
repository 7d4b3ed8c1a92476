#include "cluster/net_plan.h"

#include <algorithm>
#include <cstdio>
#include <random>

namespace locksmith {
namespace {

constexpr std::string_view kNetnsPrefix = "lsm-";
constexpr std::string_view kLinkPrefix = "lsm-";
constexpr std::string_view kChainPrefix = "LSM-";
constexpr int kChainNameMax = 28;

bool IsTagChar(char c) { return (c >= '0' && c <= '9') || (c >= 'a' && c <= 'z'); }
bool IsAlnum(char c) {
  return (c >= '0' && c <= '9') || (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z');
}
// 1..`most` decimal digits (a node index has two at most, a client's three).
bool IsDigits(std::string_view s, size_t most = 2) {
  if (s.empty() || s.size() > most) return false;
  for (char c : s) {
    if (c < '0' || c > '9') return false;
  }
  return true;
}

// Splits "lsm-<tag>-<rest>"; nullopt unless the prefix and a valid tag are there.
std::optional<std::pair<std::string, std::string_view>> SplitTagged(std::string_view name,
                                                                     std::string_view prefix) {
  if (name.substr(0, prefix.size()) != prefix) return std::nullopt;
  name.remove_prefix(prefix.size());
  if (name.size() < kTagLength + 2 || name[kTagLength] != '-') return std::nullopt;
  std::string tag(name.substr(0, kTagLength));
  if (!ValidateTag(tag).ok()) return std::nullopt;
  return std::make_pair(tag, name.substr(kTagLength + 1));
}

Status CheckSlice(int slice) {
  if (slice < 0 || slice >= kSliceCount) {
    return Error{"address slice " + std::to_string(slice) + " is outside 0.." +
                 std::to_string(kSliceCount - 1)};
  }
  return OkStatus();
}

}  // namespace

Status ValidateTag(std::string_view tag) {
  bool good = tag.size() == static_cast<size_t>(kTagLength);
  for (char c : tag) good = good && IsTagChar(c);
  if (!good) {
    return Error{"run tag '" + std::string(tag) + "' must be exactly " +
                 std::to_string(kTagLength) + " characters of [0-9a-z]"};
  }
  return OkStatus();
}

Status ValidateNodeName(std::string_view name) {
  bool good = !name.empty() && name.size() <= static_cast<size_t>(kMaxNodeNameLength) &&
              IsAlnum(name[0]);
  for (char c : name) good = good && (IsAlnum(c) || c == '_' || c == '-');
  if (!good) {
    return Error{"node name '" + std::string(name) +
                 "' must start with a letter or digit and contain only [A-Za-z0-9_-], at most " +
                 std::to_string(kMaxNodeNameLength) + " characters"};
  }
  return OkStatus();
}

std::string NetnsName(std::string_view tag, std::string_view node) {
  return std::string(kNetnsPrefix) + std::string(tag) + "-" + std::string(node);
}

std::string ClientNetnsName(std::string_view tag, int index) {
  return std::string(kNetnsPrefix) + std::string(tag) + "-client." + std::to_string(index);
}

std::string ClientVethName(std::string_view tag, int index) {
  return std::string(kLinkPrefix) + std::string(tag) + "-c" + std::to_string(index);
}

std::string ClientPeerVethName(std::string_view tag, int index) {
  return std::string(kLinkPrefix) + std::string(tag) + "-p" + std::to_string(index);
}

std::string ClientMac(int slice, int index) {
  char mac[32];
  std::snprintf(mac, sizeof(mac), "02:4c:53:%02x:%02x:%02x", slice & 0xff, (index >> 8) & 0xff,
                index & 0xff);
  return mac;
}

std::string BridgeName(std::string_view tag) {
  return std::string(kLinkPrefix) + std::string(tag) + "-br";
}

std::string HostVethName(std::string_view tag, int node_index) {
  return std::string(kLinkPrefix) + std::string(tag) + "-h" + std::to_string(node_index);
}

std::string NodeVethName(std::string_view tag, int node_index) {
  return std::string(kLinkPrefix) + std::string(tag) + "-n" + std::to_string(node_index);
}

Result<std::string> ChainName(std::string_view tag, std::string_view purpose) {
  bool good = !purpose.empty();
  for (char c : purpose) good = good && (IsAlnum(c) || c == '_' || c == '-');
  std::string name = std::string(kChainPrefix) + std::string(tag) + "-" + std::string(purpose);
  if (!good || name.size() > static_cast<size_t>(kChainNameMax)) {
    return Error{"iptables chain purpose '" + std::string(purpose) +
                 "' must be [A-Za-z0-9_-] and keep the chain name within " +
                 std::to_string(kChainNameMax) + " characters"};
  }
  return name;
}

std::optional<std::string> TagFromNetnsName(std::string_view name) {
  auto split = SplitTagged(name, kNetnsPrefix);
  if (!split) return std::nullopt;
  constexpr std::string_view kClient = "client.";
  const std::string_view rest = split->second;
  const bool client = rest.substr(0, kClient.size()) == kClient &&
                      IsDigits(rest.substr(kClient.size()), 3);
  if (!client && !ValidateNodeName(rest).ok()) return std::nullopt;
  return split->first;
}

std::optional<std::string> TagFromLinkName(std::string_view name) {
  auto split = SplitTagged(name, kLinkPrefix);
  if (!split) return std::nullopt;
  std::string_view rest = split->second;
  if (rest == "br") return split->first;
  if ((rest[0] == 'h' || rest[0] == 'n') && IsDigits(rest.substr(1))) return split->first;
  if ((rest[0] == 'c' || rest[0] == 'p') && IsDigits(rest.substr(1), 3)) return split->first;
  return std::nullopt;
}

std::string GuardTableName(std::string_view tag) {
  return std::string(kLinkPrefix) + std::string(tag) + "-guard";
}

std::optional<std::string> TagFromGuardTableName(std::string_view name) {
  auto split = SplitTagged(name, kLinkPrefix);
  if (!split || split->second != "guard") return std::nullopt;
  return split->first;
}

Result<std::string> GuardRules(std::string_view tag, int slice, unsigned uid) {
  auto nodes = SliceNetwork(slice);
  if (!nodes) return Error{nodes.error()};
  const std::string table = "inet " + GuardTableName(tag);
  const std::string nets = "{ " + *nodes + ", " + *ClientNetwork(slice) + " }";
  // Refused, not dropped: a dropped SYN is sent again until connect times
  // out; the refusal fails it at once.
  const std::string other_user =
      " meta skuid != " + std::to_string(uid) + " reject with icmpx type admin-prohibited";
  const std::string links = "\"" + std::string(kLinkPrefix) + std::string(tag) + "-*\"";
  return "add table " + table + " ; " +
         "add chain " + table + " out { type filter hook output priority 0 ; policy accept ; } ; " +
         "add rule " + table + " out ip daddr " + nets + other_user + " ; " +
         "add rule " + table + " out oifname " + links + other_user + " ; " +
         "add chain " + table + " routed { type filter hook forward priority 0 ; policy accept ; } ; " +
         "add rule " + table + " routed ip daddr " + nets + " iifname != \"" + BridgeName(tag) +
         "\" drop";
}

Result<std::string> BridgeAddress(int slice) {
  if (Status s = CheckSlice(slice); !s) return Error{s.error()};
  return "198.18.0." + std::to_string(slice * 16 + 1);
}

Result<std::string> SliceNetwork(int slice) {
  if (Status s = CheckSlice(slice); !s) return Error{s.error()};
  return "198.18.0." + std::to_string(slice * 16) + "/" + std::to_string(kSlicePrefixLength);
}

Result<std::string> ClientNetwork(int slice) {
  if (Status s = CheckSlice(slice); !s) return Error{s.error()};
  return "198.19." + std::to_string(slice) + ".0/24";
}

Result<std::string> ClientAddress(int slice, int index) {
  if (Status s = CheckSlice(slice); !s) return Error{s.error()};
  if (index < 0) return Error{"client index " + std::to_string(index) + " is negative"};
  if (index >= kMaxClientAddresses) return std::string();
  return "198.19." + std::to_string(slice) + "." + std::to_string(index + 1);
}

Result<std::string> BridgeAddressOf(std::string_view node_address) {
  constexpr std::string_view kPrefix = "198.18.0.";
  const std::string_view last = node_address.substr(std::min(kPrefix.size(), node_address.size()));
  int octet = -1;
  if (node_address.substr(0, kPrefix.size()) == kPrefix && !last.empty() && last.size() <= 3 &&
      std::all_of(last.begin(), last.end(), [](char c) { return c >= '0' && c <= '9'; })) {
    octet = std::stoi(std::string(last));
  }
  if (octet < 0 || octet > 255 || octet % 16 < 2) {
    return Error{"no node of a local cluster has the address " + std::string(node_address)};
  }
  return BridgeAddress(octet / 16);
}

Result<std::string> NodeAddress(int slice, int node_index) {
  if (Status s = CheckSlice(slice); !s) return Error{s.error()};
  if (node_index < 0 || node_index >= kMaxNodesPerSlice) {
    return Error{"a local cluster holds at most " + std::to_string(kMaxNodesPerSlice) +
                 " nodes (node index " + std::to_string(node_index) + ")"};
  }
  return "198.18.0." + std::to_string(slice * 16 + 2 + node_index);
}

std::string WithPrefix(const std::string& address) {
  return address + "/" + std::to_string(kSlicePrefixLength);
}

std::string RandomTag() {
  // Tags must differ between runs, so they come from the OS, not the run's
  // replay seed.
  std::random_device rd;
  static constexpr char kHex[] = "0123456789abcdef";
  std::string tag;
  for (int i = 0; i < kTagLength; ++i) tag += kHex[rd() % 16];
  return tag;
}

}  // namespace locksmith
