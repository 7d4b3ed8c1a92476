#include "workloads/op_log.h"

namespace locksmith {

nlohmann::json AcquireCompletionValue(const AcquireResult& acquired) {
  nlohmann::json value = {{"token", acquired.token}};
  if (acquired.detail.is_object()) value.update(acquired.detail);
  if (acquired.outcome == Outcome::kOk) {
    value["validity_ms"] = acquired.validity_ms;
    if (acquired.fence) value["fence"] = *acquired.fence;
    if (acquired.session_lease) value["session_lease"] = true;
  }
  return value;
}

void OpLog::Invoke(const std::string& f, const std::string& key, nlohmann::json value) {
  f_ = f;
  key_ = key;
  Op op;
  op.process = process_;
  op.type = OpType::kInvoke;
  op.f = f;
  op.key = key;
  op.value = std::move(value);
  recorder_.Record(std::move(op));
}

namespace {

OpType TypeOf(Outcome outcome) {
  return outcome == Outcome::kOk     ? OpType::kOk
         : outcome == Outcome::kFail ? OpType::kFail
                                     : OpType::kInfo;
}

}  // namespace

void OpLog::Complete(Outcome outcome, nlohmann::json value, const std::string& error,
                     bool nested) {
  Op op;
  op.process = process_;
  op.type = TypeOf(outcome);
  op.f = f_;
  op.key = key_;
  op.value = std::move(value);
  op.error = error;
  recorder_.Record(std::move(op));
  if (outcome == Outcome::kUnknown && !nested) process_ += stride_;
}

void OpLog::Event(Outcome outcome, const std::string& f, const std::string& key,
                  nlohmann::json value, const std::string& error) {
  Op op;
  op.process = process_;
  op.type = TypeOf(outcome);
  op.f = f;
  op.key = key;
  op.value = std::move(value);
  op.error = error;
  recorder_.Record(std::move(op));
}

}  // namespace locksmith
