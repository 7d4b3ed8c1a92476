#include "nemesis/nemesis_runner.h"

namespace locksmith {

void NemesisRunner::Start(std::chrono::steady_clock::time_point zero) {
  thread_ = std::thread([this, zero] { Loop(zero); });
}

void NemesisRunner::Stop() {
  {
    std::lock_guard lock(mu_);
    stopping_ = true;
  }
  wake_.notify_all();
  if (thread_.joinable()) thread_.join();
}

int NemesisRunner::performed() const {
  std::lock_guard lock(mu_);
  return performed_;
}

int NemesisRunner::failed() const {
  std::lock_guard lock(mu_);
  return failed_;
}

void NemesisRunner::Loop(std::chrono::steady_clock::time_point zero) {
  for (const ScheduledFault& fault : schedule_) {
    {
      std::unique_lock lock(mu_);
      const auto at = zero + std::chrono::milliseconds(fault.at_ms);
      if (wake_.wait_until(lock, at, [&] { return stopping_; })) return;
    }
    Perform(fault.op);
  }
}

void NemesisRunner::Perform(const FaultOp& fault) {
  Op invoke;
  invoke.process = kNemesisProcess;
  invoke.type = OpType::kInvoke;
  invoke.f = fault.f;
  invoke.value = fault.value;
  recorder_.Record(invoke);

  FaultResult result = nemesis_.Invoke(fault);

  Op done = invoke;
  done.type = OpType::kInfo;
  done.value = result.value;
  done.error = result.error;
  recorder_.Record(std::move(done));
  std::lock_guard lock(mu_);
  ++performed_;
  if (!result.ok) ++failed_;
}

}  // namespace locksmith
