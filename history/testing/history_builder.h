// HistoryBuilder: terse hand-made histories for the checkers' tests.
// Invoke opens an op for a process; Ok / Fail / Info complete the process's
// open op with the same f and key. Indices and times follow call order.
// Test-only; not thread-safe.
#pragma once

#include <map>
#include <string>
#include <utility>

#include <nlohmann/json.hpp>

#include "history/history.h"

namespace locksmith::testing {

class HistoryBuilder {
 public:
  HistoryBuilder& Invoke(int64_t process, std::string f, nlohmann::json value = nullptr,
                         std::string key = "") {
    Op op = Next(process, OpType::kInvoke);
    op.f = std::move(f);
    op.key = std::move(key);
    op.value = std::move(value);
    open_[process] = op;
    history_.push_back(std::move(op));
    return *this;
  }
  HistoryBuilder& Ok(int64_t process, nlohmann::json value = nullptr) {
    return Complete(process, OpType::kOk, std::move(value));
  }
  HistoryBuilder& Fail(int64_t process, nlohmann::json value = nullptr) {
    return Complete(process, OpType::kFail, std::move(value));
  }
  HistoryBuilder& Info(int64_t process) { return Complete(process, OpType::kInfo, nullptr); }
  // Invoke immediately followed by its ok completion.
  HistoryBuilder& Call(int64_t process, std::string f, nlohmann::json value = nullptr,
                       nlohmann::json result = nullptr, std::string key = "") {
    Invoke(process, std::move(f), value, std::move(key));
    return Ok(process, result.is_null() ? value : result);
  }
  // A lone completion of `process`, as a lock event (renew, lock-lost) is:
  // no invoke, and the process's open op (if any) stays open.
  HistoryBuilder& Event(int64_t process, std::string f, nlohmann::json value, std::string key) {
    Op op = Next(process, OpType::kOk);
    op.f = std::move(f);
    op.key = std::move(key);
    op.value = std::move(value);
    history_.push_back(std::move(op));
    return *this;
  }
  HistoryBuilder& Nemesis(std::string f) {
    Op op = Next(kNemesisProcess, OpType::kInfo);
    op.f = std::move(f);
    history_.push_back(std::move(op));
    return *this;
  }
  const History& Build() const { return history_; }

 private:
  Op Next(int64_t process, OpType type) {
    Op op;
    op.index = static_cast<int64_t>(history_.size());
    op.time = op.index * 1000;
    op.process = process;
    op.type = type;
    return op;
  }
  HistoryBuilder& Complete(int64_t process, OpType type, nlohmann::json value) {
    const Op& open = open_.at(process);
    Op op = Next(process, type);
    op.f = open.f;
    op.key = open.key;
    op.value = std::move(value);
    history_.push_back(std::move(op));
    open_.erase(process);
    return *this;
  }

  History history_;
  std::map<int64_t, Op> open_;
};

}  // namespace locksmith::testing
