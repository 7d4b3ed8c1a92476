#include "harness/local_host.h"

#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>

#include <filesystem>
#include <random>
#include <set>

#include "harness/net_setup.h"

namespace locksmith {
namespace {

// Loopback ports handed out by this process, across all clusters, so two
// hosts never get the same one even before their servers bind it.
std::mutex g_ports_mu;
std::set<int> g_ports_taken;

bool CanBind(int port) {
  int fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
  if (fd < 0) return false;
  sockaddr_in addr{};
  addr.sin_family = AF_INET;
  addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  addr.sin_port = htons(static_cast<uint16_t>(port));
  bool ok = bind(fd, reinterpret_cast<sockaddr*>(&addr), sizeof(addr)) == 0;
  close(fd);
  return ok;
}

// Below the default ephemeral range (32768+), so clients' outgoing
// connections do not take a server's port between runs; a random start
// keeps concurrent runs apart.
int PickLoopbackPort() {
  constexpr int kLow = 20000, kHigh = 32000;
  static std::mt19937 rng{std::random_device{}()};
  std::lock_guard<std::mutex> lock(g_ports_mu);
  int start = kLow + static_cast<int>(rng() % (kHigh - kLow));
  for (int i = 0; i < kHigh - kLow; ++i) {
    int port = kLow + (start - kLow + i) % (kHigh - kLow);
    if (!g_ports_taken.contains(port) && CanBind(port)) {
      g_ports_taken.insert(port);
      return port;
    }
  }
  return 0;
}

}  // namespace

LocalHost::LocalHost(std::string name, std::string address, std::string netns, std::string dir,
                     ProcessSupervisor* supervisor, SpawnHook on_spawn)
    : name_(std::move(name)),
      address_(std::move(address)),
      netns_(std::move(netns)),
      dir_(std::move(dir)),
      supervisor_(supervisor),
      on_spawn_(std::move(on_spawn)) {}

int LocalHost::ServicePort(int preferred) {
  if (HasOwnNetwork()) return preferred;
  std::lock_guard<std::mutex> lock(ports_mu_);
  auto it = ports_.find(preferred);
  if (it != ports_.end()) return it->second;
  int port = PickLoopbackPort();
  ports_[preferred] = port;
  return port;
}

Result<int> LocalHost::Spawn(const ProcessSpec& spec) {
  auto pid = supervisor_->Spawn(name_, spec, netns_.empty() ? "" : NetnsPath(netns_), dir_);
  if (!pid.ok()) return Error{"host " + name_ + ": " + pid.error()};
  if (on_spawn_) {
    if (auto s = on_spawn_(name_, *pid); !s.ok()) {
      (void)supervisor_->Kill(name_, *pid);
      return Error{"host " + name_ + ": started pid " + std::to_string(*pid) +
                   " but could not record it, so killed it: " + s.error()};
    }
  }
  return *pid;
}

Status LocalHost::Signal(int pid, int signal) { return supervisor_->Signal(name_, pid, signal); }
Status LocalHost::Kill(int pid) { return supervisor_->Kill(name_, pid); }
bool LocalHost::Alive(int pid) { return supervisor_->Alive(name_, pid); }

Result<ExecResult> LocalHost::Exec(const std::vector<std::string>& argv,
                                   std::chrono::milliseconds timeout) {
  if (argv.empty()) return Error{"host " + name_ + ": Exec needs a command"};
  if (!HasOwnNetwork()) {
    static const std::set<std::string> kNetworkTools = {
        "iptables", "ip6tables", "iptables-nft", "iptables-legacy", "nft", "ip", "tc"};
    std::string base = std::filesystem::path(argv[0]).filename().string();
    if (kNetworkTools.contains(base)) {
      return Error{"host " + name_ + " is a loopback host (no network namespace; run as root "
                   "for namespaces): refusing to run " + base +
                   " on the controller's own network"};
    }
  }
  auto r = RunCommand(argv, netns_.empty() ? "" : NetnsPath(netns_), timeout);
  if (!r.ok()) return Error{"host " + name_ + ": " + r.error()};
  return r;
}

}  // namespace locksmith
