#include "cluster/net_setup.h"

#include <arpa/inet.h>
#include <ifaddrs.h>
#include <netinet/in.h>
#include <signal.h>
#include <sys/syscall.h>
#include <unistd.h>
#include <sys/stat.h>

#include <algorithm>
#include <filesystem>
#include <sstream>

#include "cluster/net_plan.h"
#include "cluster/proc_info.h"
#include "cluster/process_supervisor.h"

namespace locksmith {
namespace fs = std::filesystem;
namespace {

constexpr auto kIpTimeout = std::chrono::seconds(20);
constexpr auto kDeathTimeout = std::chrono::seconds(10);

std::vector<std::string> ListDir(const std::string& dir) {
  std::vector<std::string> names;
  std::error_code ec;
  for (const auto& entry : fs::directory_iterator(dir, ec)) {
    names.push_back(entry.path().filename().string());
  }
  std::sort(names.begin(), names.end());
  return names;
}

// SIGKILLs (pid, start_time) only if it is still that process: the pidfd
// pins the process before its identity is checked, so a pid reused between
// the check and the signal cannot be hit. Its group goes too when it leads
// one (a wrapper's children).
void KillVerified(int pid, uint64_t start_time) {
  int pidfd = static_cast<int>(syscall(SYS_pidfd_open, pid, 0));
  if (pidfd < 0) return;  // gone
  auto st = ReadProcStat(pid);
  if (st && st->start_time == start_time && st->state != 'Z') {
    if (st->pgrp == pid) kill(-pid, SIGKILL);
    syscall(SYS_pidfd_send_signal, pidfd, SIGKILL, nullptr, 0);
  }
  close(pidfd);
}

// Runs `argv` (ip, nft): its output, or an error naming the command, its
// exit code and its output.
Result<std::string> RunTool(const std::vector<std::string>& argv) {
  auto r = RunCommand(argv, "", kIpTimeout);
  std::string cmd;
  for (const auto& a : argv) cmd += (cmd.empty() ? "" : " ") + a;
  if (!r.ok()) return Error{r.error()};
  std::string out = r->output;
  if (r->exit_code != 0) {
    while (!out.empty() && out.back() == '\n') out.pop_back();
    return Error{"'" + cmd + "' failed with exit code " + std::to_string(r->exit_code) + ": " +
                 out};
  }
  return out;
}

}  // namespace

std::string NetnsPath(const std::string& name) { return "/var/run/netns/" + name; }

Status RunIp(const std::vector<std::string>& args) {
  std::vector<std::string> argv = {"ip"};
  argv.insert(argv.end(), args.begin(), args.end());
  if (auto r = RunTool(argv); !r) return Error{r.error()};
  return OkStatus();
}

bool NetnsExists(const std::string& name) {
  std::error_code ec;
  return fs::exists(NetnsPath(name), ec);
}

bool LinkExists(const std::string& name) {
  std::error_code ec;
  return fs::exists("/sys/class/net/" + name, ec);
}

std::vector<std::string> ListNetns() { return ListDir("/var/run/netns"); }

std::set<std::string> InterfaceAddresses() {
  std::set<std::string> addresses;
  struct ifaddrs* list = nullptr;
  if (getifaddrs(&list) == 0) {
    for (struct ifaddrs* a = list; a != nullptr; a = a->ifa_next) {
      if (a->ifa_addr == nullptr || a->ifa_addr->sa_family != AF_INET) continue;
      char text[INET_ADDRSTRLEN] = {};
      const auto* in = reinterpret_cast<const struct sockaddr_in*>(a->ifa_addr);
      if (inet_ntop(AF_INET, &in->sin_addr, text, sizeof(text)) != nullptr) addresses.insert(text);
    }
    freeifaddrs(list);
  }
  return addresses;
}

std::set<int> SlicesInUseByInterfaces(NetOps& net) {
  const std::set<std::string> addresses = net.Addresses();
  std::set<int> busy;
  for (int slice = 0; slice < kSliceCount; ++slice) {
    auto bridge = BridgeAddress(slice);
    if (bridge && addresses.contains(*bridge)) busy.insert(slice);
  }
  return busy;
}

std::vector<std::string> ListLinks() { return ListDir("/sys/class/net"); }

Result<std::string> RunNft(const std::vector<std::string>& args) {
  std::vector<std::string> argv = {"nft"};
  argv.insert(argv.end(), args.begin(), args.end());
  return RunTool(argv);
}

std::vector<std::string> ListInetTables() {
  std::vector<std::string> tables;
  auto listed = RunNft({"list", "tables", "inet"});
  if (!listed) return tables;
  std::istringstream lines(*listed);
  for (std::string line; std::getline(lines, line);) {
    constexpr std::string_view kHead = "table inet ";
    if (line.rfind(kHead, 0) == 0) tables.push_back(line.substr(kHead.size()));
  }
  std::sort(tables.begin(), tables.end());
  return tables;
}

namespace {

class KernelNetOps : public NetOps {
 public:
  Status Ip(const std::vector<std::string>& args) override { return RunIp(args); }
  Status Iptables(const std::string& netns, const std::vector<std::string>& args) override {
    if (netns.empty()) return Error{"iptables in the controller's own namespace is refused"};
    std::vector<std::string> ip_args = {"netns", "exec", netns, "iptables"};
    ip_args.insert(ip_args.end(), args.begin(), args.end());
    return RunIp(ip_args);
  }
  Status Nft(const std::vector<std::string>& args) override {
    if (auto r = RunNft(args); !r) return Error{r.error()};
    return OkStatus();
  }
  std::vector<std::string> ListInetTables() override { return locksmith::ListInetTables(); }
  bool NetnsExists(const std::string& name) override { return locksmith::NetnsExists(name); }
  bool LinkExists(const std::string& name) override { return locksmith::LinkExists(name); }
  std::vector<std::string> ListNetns() override { return locksmith::ListNetns(); }
  std::vector<std::string> ListLinks() override { return locksmith::ListLinks(); }
  std::set<std::string> Addresses() override { return InterfaceAddresses(); }
};

}  // namespace

NetOps& RealNetOps() {
  static KernelNetOps net;
  return net;
}

Status RemoveRunObjects(const RunRecord& record, std::ostream* log, NetOps& net) {
  std::string errors;
  auto note = [&](const std::string& s) {
    if (log != nullptr) *log << s << "\n";
  };

  std::vector<std::pair<int, uint64_t>> dying;
  for (const auto& p : record.processes) {
    if (IsSameProcessAlive(p.pid, p.start_time)) {
      KillVerified(p.pid, p.start_time);
      dying.emplace_back(p.pid, p.start_time);
      note("killed process " + std::to_string(p.pid) + " (host " + p.host + ")");
    }
  }
  // Whatever runs inside the run's own namespaces is certainly the run's,
  // e.g. children of a recorded wrapper, or a process spawned just before a
  // crash and never recorded.
  auto own = NetnsIdOf("/proc/self/ns/net");
  for (const auto& ns : record.netns) {
    if (!net.NetnsExists(ns)) continue;
    auto id = NetnsIdOf(NetnsPath(ns));
    // Never sweep the controller's own namespace, whatever the file says.
    if (!id.ok() || !own.ok() || *id == *own) continue;
    for (int pid : PidsInNetns(*id)) {
      auto st = ReadProcStat(pid);
      if (!st) continue;
      KillVerified(pid, st->start_time);
      dying.emplace_back(pid, st->start_time);
      note("killed process " + std::to_string(pid) + " inside namespace " + ns);
    }
  }
  // A namespace lives while a process is inside: wait before deleting.
  auto stuck = WaitUntilGone(dying, kDeathTimeout);
  for (int pid : stuck) {
    errors += "\n  process " + std::to_string(pid) + " did not die within 10 s of SIGKILL";
  }

  // Host-side veths first (deleting one end removes the pair), the bridge last.
  std::vector<std::string> links = record.links;
  std::stable_partition(links.begin(), links.end(),
                        [&](const std::string& l) { return l != BridgeName(record.tag); });
  for (const auto& link : links) {
    if (!net.LinkExists(link)) continue;
    if (auto s = net.Ip({"link", "del", link}); !s.ok() && net.LinkExists(link)) {
      errors += "\n  " + s.error();
    } else {
      note("removed link " + link);
    }
  }
  const std::string guard = GuardTableName(record.tag);
  const std::vector<std::string> tables = net.ListInetTables();
  if (std::find(tables.begin(), tables.end(), guard) != tables.end()) {
    if (auto s = net.Nft({"delete", "table", "inet", guard}); !s.ok()) {
      errors += "\n  " + s.error();
    } else {
      note("removed nftables table " + guard);
    }
  }
  for (const auto& ns : record.netns) {
    if (!net.NetnsExists(ns)) continue;
    if (auto s = net.Ip({"netns", "del", ns}); !s.ok() && net.NetnsExists(ns)) {
      errors += "\n  " + s.error();
    } else {
      note("removed namespace " + ns);
    }
  }
  if (!errors.empty()) return Error{"run " + record.tag + " could not be fully removed:" + errors};
  return OkStatus();
}

}  // namespace locksmith
