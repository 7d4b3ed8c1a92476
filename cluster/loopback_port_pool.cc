#include "cluster/loopback_port_pool.h"

#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>

namespace locksmith {
namespace {

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

uint64_t SeedOrEntropy(uint64_t seed) {
  if (seed != 0) return seed;
  std::random_device entropy;
  return (uint64_t{entropy()} << 32) | entropy();
}

}  // namespace

LoopbackPortPool::LoopbackPortPool(int low, int high, uint64_t seed)
    : low_(low), high_(high > low ? high : low), rng_(SeedOrEntropy(seed)) {}

int LoopbackPortPool::Lease(const std::string& owner) {
  std::lock_guard<std::mutex> lock(mu_);
  const int size = high_ - low_;
  if (size == 0) return 0;
  const int start = static_cast<int>(rng_() % static_cast<uint64_t>(size));
  for (int i = 0; i < size; ++i) {
    const int port = low_ + (start + i) % size;
    if (!leases_.contains(port) && CanBind(port)) {
      leases_[port] = owner;
      return port;
    }
  }
  return 0;
}

void LoopbackPortPool::ReleaseAll(const std::string& owner) {
  std::lock_guard<std::mutex> lock(mu_);
  std::erase_if(leases_, [&](const auto& lease) { return lease.second == owner; });
}

std::set<int> LoopbackPortPool::Leased(const std::string& owner) const {
  std::lock_guard<std::mutex> lock(mu_);
  std::set<int> ports;
  for (const auto& [port, who] : leases_) {
    if (owner.empty() || who == owner) ports.insert(port);
  }
  return ports;
}

}  // namespace locksmith
