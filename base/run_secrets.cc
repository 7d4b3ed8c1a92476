#include "base/run_secrets.h"

#include <algorithm>
#include <mutex>
#include <shared_mutex>

namespace locksmith {
namespace {

struct Registry {
  std::shared_mutex mu;
  std::vector<std::string> secrets;
  size_t shortest = 0;  // 0 while there is none
};

Registry& TheRegistry() {
  static Registry registry;
  return registry;
}

}  // namespace

void AddRunSecret(std::string_view secret) {
  if (secret.size() < kMinRunSecretLength) return;
  Registry& r = TheRegistry();
  std::unique_lock lock(r.mu);
  if (std::find(r.secrets.begin(), r.secrets.end(), secret) != r.secrets.end()) return;
  r.secrets.emplace_back(secret);
  // A secret that holds another goes first, so the longer one is redacted
  // whole.
  std::stable_sort(r.secrets.begin(), r.secrets.end(),
                   [](const std::string& a, const std::string& b) { return a.size() > b.size(); });
  r.shortest = r.secrets.back().size();
}

std::vector<std::string> RunSecretList() {
  Registry& r = TheRegistry();
  std::shared_lock lock(r.mu);
  return r.secrets;
}

bool HoldsRunSecret(std::string_view text) {
  Registry& r = TheRegistry();
  std::shared_lock lock(r.mu);
  if (r.shortest == 0 || text.size() < r.shortest) return false;
  return std::any_of(r.secrets.begin(), r.secrets.end(), [&](const std::string& secret) {
    return text.find(secret) != std::string_view::npos;
  });
}

std::string RedactRunSecrets(std::string text) {
  if (!HoldsRunSecret(text)) return text;
  RedactSecretsIn(text, RunSecretList());
  return text;
}

bool RedactSecretsIn(std::string& text, const std::vector<std::string>& secrets) {
  bool changed = false;
  for (const auto& secret : secrets) {
    if (secret.empty()) continue;
    for (size_t at = text.find(secret); at != std::string::npos;
         at = text.find(secret, at + sizeof(kRedacted) - 1)) {
      text.replace(at, secret.size(), kRedacted);
      changed = true;
    }
  }
  return changed;
}

}  // namespace locksmith
