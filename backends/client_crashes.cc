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

}  // namespace locksmith
