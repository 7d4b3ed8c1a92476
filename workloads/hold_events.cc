#include "workloads/hold_events.h"

#include "history/lock_ops.h"
#include "workloads/op_log.h"

namespace locksmith {

void HoldEvents::OnEvent(const LockEvent& e) {
  nlohmann::json value = {{"token", e.token}};
  if (e.kind == LockEvent::Kind::kLost) {
    if (e.cut_off_ms >= 0) value["cut_off_ms"] = e.cut_off_ms;
    log_.Event(Outcome::kOk, std::string(kLockLostOp), e.key, std::move(value), e.error);
    if (e.key == key_ && e.token == token_) lost_ = true;
    return;
  }
  if (e.outcome == Outcome::kOk) value["validity_ms"] = e.validity_ms;
  log_.Event(e.outcome, std::string(kRenewOp), e.key, std::move(value), e.error);
}

void HoldEvents::Begin(const std::string& key, const std::string& token) {
  key_ = key;
  token_ = token;
  lost_ = false;
}

void HoldEvents::End() {
  key_.clear();
  token_.clear();
}

}  // namespace locksmith
