#include "backends/exec_holds.h"

#include <algorithm>

#include "base/option_set.h"

namespace locksmith {

void ExecHolds::Acquired(const std::string& key, const std::string& token) {
  if (holds_.size() >= kRemembered) End(holds_.begin());
  holds_.push_back(Hold{key, token, false});
}

void ExecHolds::Releasing(const std::string& token) {
  auto it = std::find_if(holds_.begin(), holds_.end(),
                         [&](const Hold& h) { return h.token == token && !h.releasing; });
  if (it != holds_.end()) it->releasing = true;
}

void ExecHolds::Released(const std::string& token) {
  auto it = std::find_if(holds_.begin(), holds_.end(),
                         [&](const Hold& h) { return h.token == token && h.releasing; });
  if (it != holds_.end()) End(it);
}

ExecHolds::Judgement ExecHolds::Lost(const std::string& key, const std::string& token) {
  auto it = std::find_if(holds_.begin(), holds_.end(), [&](const Hold& h) {
    return h.key == key && (token.empty() || h.token == token);
  });
  if (it != holds_.end()) {
    if (it->releasing) return {Verdict::kStale, it->token, ""};
    Judgement recorded{Verdict::kRecord, it->token, ""};
    End(it);
    return recorded;
  }
  if (EndedRecently(key, token)) return {Verdict::kStale, token, ""};
  std::string claim = "sent lock-lost for a lock its worker does not hold (key " +
                      QuoteInput(key) + (token.empty() ? "" : ", token " + QuoteInput(token));
  auto other = std::find_if(holds_.begin(), holds_.end(),
                            [&](const Hold& h) { return !token.empty() && h.token == token; });
  if (other != holds_.end()) claim += ": that token holds " + QuoteInput(other->key);
  return {Verdict::kRefuse, "", claim + ")"};
}

void ExecHolds::End(std::vector<Hold>::iterator hold) {
  if (ended_.size() >= kRemembered) ended_.pop_front();
  ended_.push_back(std::move(*hold));
  holds_.erase(hold);
}

bool ExecHolds::EndedRecently(const std::string& key, const std::string& token) const {
  return std::any_of(ended_.begin(), ended_.end(), [&](const Hold& h) {
    return h.key == key && (token.empty() || h.token == token);
  });
}

}  // namespace locksmith
