#include "cluster/local_host.h"

#include <sys/socket.h>

#include <cerrno>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <set>

#include "base/atomic_file.h"
#include "cluster/net_setup.h"
#include "cluster/netns_socket.h"
#include "cluster/tcp_abort.h"

namespace locksmith {
namespace fs = std::filesystem;

LocalHost::LocalHost(std::string name, std::string address, std::string netns, std::string dir,
                     ProcessSupervisor* supervisor, SpawnHook on_spawn, LoopbackPortPool* ports,
                     std::string port_owner, std::optional<ContainSpec> contain)
    : name_(std::move(name)),
      address_(std::move(address)),
      netns_(std::move(netns)),
      dir_(std::move(dir)),
      supervisor_(supervisor),
      on_spawn_(std::move(on_spawn)),
      port_pool_(ports),
      port_owner_(std::move(port_owner)),
      contain_(std::move(contain)) {}

int LocalHost::ServicePort(int preferred) {
  if (HasOwnNetwork()) return preferred;
  std::lock_guard<std::mutex> lock(ports_mu_);
  auto it = ports_.find(preferred);
  if (it != ports_.end()) return it->second;
  const int port = port_pool_ == nullptr ? 0 : port_pool_->Lease(port_owner_);
  if (port != 0) ports_[preferred] = port;
  return port;
}

Status LocalHost::WriteFile(const std::string& path, std::string_view content) {
  if (auto s = ValidateHostPath(path); !s.ok()) return Error{"host " + name_ + ": " + s.error()};
  // Private: a server's config holds its password.
  if (auto s = WriteFileAtomically(PathOf(path), content, /*private_file=*/true); !s.ok()) {
    return Error{"host " + name_ + ": " + s.error()};
  }
  return OkStatus();
}

Status LocalHost::RemoveFile(const std::string& path) {
  if (auto s = ValidateHostPath(path); !s.ok()) return Error{"host " + name_ + ": " + s.error()};
  std::error_code ec;
  fs::remove(PathOf(path), ec);
  if (ec) return Error{"host " + name_ + ": cannot remove " + PathOf(path) + ": " + ec.message()};
  return OkStatus();
}

Result<std::string> LocalHost::ReadFile(const std::string& path, size_t max_bytes) {
  if (auto s = ValidateHostPath(path); !s.ok()) return Error{"host " + name_ + ": " + s.error()};
  const std::string full = PathOf(path);
  std::ifstream in(full, std::ios::binary | std::ios::ate);
  if (!in) return Error{"host " + name_ + ": cannot read " + full + ": " + std::strerror(errno)};
  const auto size = static_cast<size_t>(in.tellg());
  const size_t take = std::min(size, max_bytes);
  std::string content(take, '\0');
  in.seekg(static_cast<std::streamoff>(size - take));
  in.read(content.data(), static_cast<std::streamsize>(take));
  content.resize(static_cast<size_t>(in.gcount()));
  return content;
}

Status LocalHost::MakeDirectory(const std::string& path) {
  if (auto s = ValidateHostPath(path); !s.ok()) return Error{"host " + name_ + ": " + s.error()};
  std::error_code ec;
  fs::create_directories(PathOf(path), ec);
  if (ec) return Error{"host " + name_ + ": cannot create " + PathOf(path) + ": " + ec.message()};
  return OkStatus();
}

Status LocalHost::SetSpawnEnv(const std::string& entry) {
  if (auto s = ValidateEnvEntry(entry); !s.ok()) return Error{"host " + name_ + ": " + s.error()};
  const std::string key = entry.substr(0, entry.find('=') + 1);
  std::lock_guard<std::mutex> lock(env_mu_);
  std::erase_if(spawn_env_, [&](const std::string& e) { return e.rfind(key, 0) == 0; });
  spawn_env_.push_back(entry);
  return OkStatus();
}

std::vector<std::string> LocalHost::SpawnEnv() const {
  std::lock_guard<std::mutex> lock(env_mu_);
  return spawn_env_;
}

Result<int> LocalHost::Spawn(const ProcessSpec& spec) {
  // The host's entries first: the supervisor lets a later entry of the same
  // name replace an earlier one, so the spec's own entries win.
  ProcessSpec with_env = spec;
  with_env.env = SpawnEnv();
  with_env.env.insert(with_env.env.end(), spec.env.begin(), spec.env.end());
  auto pid = supervisor_->Spawn(name_, with_env, netns_.empty() ? "" : NetnsPath(netns_), dir_,
                                contain_);
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
    std::string base = fs::path(argv[0]).filename().string();
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

Status LocalHost::AbortConnections(const std::set<std::string>& peers,
                                   std::chrono::milliseconds timeout) {
  if (netns_.empty()) return Host::AbortConnections(peers, timeout);
  auto r = AbortTcpConnections(NetnsPath(netns_), peers, timeout);
  if (!r) return Error{"host " + name_ + ": " + r.error()};
  return OkStatus();
}

Result<int> LocalHost::OpenTcpSocket() {
  if (netns_.empty()) return Host::OpenTcpSocket();
  auto fd = OpenSocketIn(NetnsPath(netns_), AF_INET, SOCK_STREAM, 0);
  if (!fd) return Error{"host " + name_ + ": " + fd.error()};
  return fd;
}

}  // namespace locksmith
