#include "workloads/op_log.h"

namespace locksmith {

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

void OpLog::Complete(Outcome outcome, nlohmann::json value, const std::string& error) {
  Op op;
  op.process = process_;
  op.type = outcome == Outcome::kOk     ? OpType::kOk
            : outcome == Outcome::kFail ? OpType::kFail
                                        : OpType::kInfo;
  op.f = f_;
  op.key = key_;
  op.value = std::move(value);
  op.error = error;
  recorder_.Record(std::move(op));
  if (outcome == Outcome::kUnknown) process_ += stride_;
}

}  // namespace locksmith
