#include "workloads/task_group.h"

#include <gtest/gtest.h>

#include <stdexcept>

#include <boost/asio/co_spawn.hpp>
#include <boost/asio/io_context.hpp>
#include <boost/asio/post.hpp>
#include <boost/asio/use_awaitable.hpp>

#include "backends/testing/run_coroutine.h"

namespace locksmith {
namespace {
namespace asio = boost::asio;

// Suspends `rounds` times, as a task waiting on the network would.
asio::awaitable<void> Rounds(int rounds, int* done) {
  for (int i = 0; i < rounds; ++i) {
    co_await asio::post(co_await asio::this_coro::executor, asio::use_awaitable);
  }
  ++*done;
}

asio::awaitable<void> ThrowAfter(int rounds) {
  for (int i = 0; i < rounds; ++i) {
    co_await asio::post(co_await asio::this_coro::executor, asio::use_awaitable);
  }
  throw std::runtime_error("boom");
}

TEST(TaskGroupTest, WaitsForEveryTask) {
  asio::io_context io;
  int done = 0;
  Status status = Error{"not run"};
  testing::RunCoroutine(io, [&]() -> asio::awaitable<void> {
    TaskGroup group(io.get_executor());
    for (int i = 0; i < 5; ++i) group.Spawn("task", Rounds(i * 3, &done));
    status = co_await group.Wait();
    EXPECT_EQ(group.running(), 0u);
  });
  EXPECT_TRUE(status.ok());
  EXPECT_EQ(done, 5);
}

TEST(TaskGroupTest, AThrowingTaskIsReportedNotLost) {
  asio::io_context io;
  int done = 0;
  int hook_calls = 0;
  std::string hooked;
  Status status = OkStatus();
  testing::RunCoroutine(io, [&]() -> asio::awaitable<void> {
    TaskGroup group(io.get_executor(), [&](const std::string& failure) {
      ++hook_calls;
      hooked = failure;
    });
    group.Spawn("worker 0", Rounds(10, &done));
    group.Spawn("worker 1", ThrowAfter(2));
    group.Spawn("worker 2", ThrowAfter(4));
    status = co_await group.Wait();
  });
  ASSERT_FALSE(status.ok());
  EXPECT_EQ(status.error(), "worker 1: boom");  // the first failure wins
  EXPECT_EQ(hook_calls, 1);
  EXPECT_EQ(hooked, "worker 1: boom");
  EXPECT_EQ(done, 1);  // the others still ran to their end
}

TEST(TaskGroupTest, ATaskThatEndsBeforeSpawnReturnsIsCounted) {
  asio::io_context io;
  int done = 0;
  Status status = Error{"not run"};
  testing::RunCoroutine(io, [&]() -> asio::awaitable<void> {
    TaskGroup group(io.get_executor());
    group.Spawn("instant", Rounds(0, &done));
    group.Spawn("instant throw", ThrowAfter(0));
    status = co_await group.Wait();
  });
  EXPECT_EQ(done, 1);
  EXPECT_EQ(status.error(), "instant throw: boom");
}

TEST(TaskGroupTest, WaitWithNothingSpawnedReturnsAtOnce) {
  asio::io_context io;
  Status status = Error{"not run"};
  testing::RunCoroutine(io, [&]() -> asio::awaitable<void> {
    TaskGroup group(io.get_executor());
    status = co_await group.Wait();
  });
  EXPECT_TRUE(status.ok());
}

}  // namespace
}  // namespace locksmith
