// ScopeExit: runs a callback when the scope ends, on every return path (and
// while an exception unwinds), like Jepsen's with-os / with-db: whatever a
// scope set up, it takes down. The callback must not throw. Not copyable;
// not thread-safe.
#pragma once

#include <functional>
#include <utility>

namespace locksmith {

class ScopeExit {
 public:
  explicit ScopeExit(std::function<void()> f) : f_(std::move(f)) {}
  ~ScopeExit() {
    if (f_) f_();
  }
  ScopeExit(const ScopeExit&) = delete;
  ScopeExit& operator=(const ScopeExit&) = delete;

 private:
  std::function<void()> f_;
};

}  // namespace locksmith
