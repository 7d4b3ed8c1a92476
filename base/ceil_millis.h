// Milliseconds: a duration in whole milliseconds, rounded up (time a lease
// has already spent is never understated: a validity computed from it errs
// short, not long), and the nanoseconds in one, for times kept as int64
// nanoseconds. Header-only; pure.
#pragma once

#include <chrono>
#include <cstdint>

namespace locksmith {

inline constexpr int64_t kNsPerMs = 1'000'000;

template <class Rep, class Period>
int64_t CeilMillis(std::chrono::duration<Rep, Period> d) {
  return std::chrono::ceil<std::chrono::milliseconds>(d).count();
}

}  // namespace locksmith
