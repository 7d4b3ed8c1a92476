// Eventually (test-only): polls a condition until it holds or a deadline
// passes, for tests that wait on another process or thread. Every wait in a
// test has a deadline, so a hang fails the test with a message instead of
// stalling CTest; the deadline is generous (a slow, loaded machine is not a
// failure), and the condition is polled every millisecond, so a passing test
// waits no longer than it must. Thread-safe (no state).
#pragma once

#include <chrono>
#include <string_view>
#include <thread>

#include <gtest/gtest.h>

namespace locksmith::testing {

inline constexpr std::chrono::seconds kEventuallyTimeout{30};

// Success once `done()` returns true; a failure naming `what` and the
// timeout if it is still false after `timeout`. Use as
// ASSERT_TRUE(Eventually([&] { return ...; }, "the sleeper exits")).
template <typename Condition>
::testing::AssertionResult Eventually(Condition done, std::string_view what,
                                      std::chrono::milliseconds timeout = kEventuallyTimeout) {
  const auto give_up = std::chrono::steady_clock::now() + timeout;
  while (!done()) {
    if (std::chrono::steady_clock::now() >= give_up) {
      return ::testing::AssertionFailure()
             << "gave up waiting after " << timeout.count() << " ms: " << what;
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(1));
  }
  return ::testing::AssertionSuccess();
}

}  // namespace locksmith::testing
