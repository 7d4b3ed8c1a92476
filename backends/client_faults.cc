#include "backends/client_faults.h"

namespace locksmith {

void ClientFaults::AddFamily(std::shared_ptr<ClientFaultFamily> family) {
  std::lock_guard lock(mu_);
  families_.push_back(std::move(family));
}

bool ClientFaults::empty() const {
  std::lock_guard lock(mu_);
  return families_.empty();
}

std::vector<std::shared_ptr<ClientFaultFamily>> ClientFaults::Families() const {
  std::lock_guard lock(mu_);
  return families_;
}

boost::asio::awaitable<ClientFaultEffect> ClientFaults::At(ClientFaultPoint point,
                                                           ClientFaultTarget& target,
                                                           const std::string& key) const {
  ClientFaultEffect effect;
  for (const auto& family : Families()) {
    const ClientFaultEffect own = co_await family->At(point, target, key);
    effect.clock_step += own.clock_step;
    if (own.crashed) {
      effect.crashed = true;
      break;
    }
  }
  co_return effect;
}

}  // namespace locksmith
