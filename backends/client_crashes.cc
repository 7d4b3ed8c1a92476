#include "backends/client_crashes.h"

namespace locksmith {

void ClientCrashes::Request(std::string key, std::optional<int64_t> process) {
  mailbox_.Request(std::chrono::milliseconds(0), std::move(key), process);
}

std::optional<ClientCrashes::Taken> ClientCrashes::AwaitTaken(std::chrono::milliseconds wait) {
  auto taken = mailbox_.AwaitTaken(wait);
  if (!taken) return std::nullopt;
  return Taken{taken->process, taken->key};
}

void ClientCrashes::Cancel() { mailbox_.Cancel(); }

bool ClientCrashes::Take(int64_t process, const std::string& key) {
  return mailbox_.Take(process, key).has_value();
}

boost::asio::awaitable<ClientFaultEffect> ClientCrashes::At(ClientFaultPoint point,
                                                           ClientFaultTarget& target,
                                                           const std::string& key) {
  // A crash after a refused acquire would change nothing on the servers:
  // the worker passes kAcquireAnswered only after an ok or unknown answer,
  // a client that has the point only once its request took effect.
  if (point != ClientFaultPoint::kAcquireAnswered || !Take(target.process(), key)) {
    co_return ClientFaultEffect{};
  }
  co_return ClientFaultEffect{true, std::chrono::milliseconds(0)};
}

}  // namespace locksmith
