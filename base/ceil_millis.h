// A duration in whole milliseconds, rounded up: time a lease has already
// spent is never understated (a validity computed from it errs short, not
// long). Header-only; pure.
#pragma once

#include <chrono>
#include <cstdint>

namespace locksmith {

template <class Rep, class Period>
int64_t CeilMillis(std::chrono::duration<Rep, Period> d) {
  return std::chrono::ceil<std::chrono::milliseconds>(d).count();
}

}  // namespace locksmith
