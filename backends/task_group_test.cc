#include "backends/task_group.h"

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


TEST(BackgroundTasksTest, OneGroupPerContextThatRecordsWhatItsTasksThrow) {
  asio::io_context io, other;
  TaskGroup& background = BackgroundTasks(io.get_executor());
  EXPECT_EQ(&background, &BackgroundTasks(asio::any_io_executor(io.get_executor())));
  EXPECT_NE(&background, &BackgroundTasks(other.get_executor()));
  std::string hooked;
  background.SetOnFailure([&](const std::string& failure) { hooked = failure; });
  int done = 0;
  background.Spawn("read loop", Rounds(3, &done));
  background.Spawn("renewals", ThrowAfter(2));
  io.run();  // nobody awaits them: run() ends when they have
  EXPECT_EQ(done, 1);
  EXPECT_EQ(background.running(), 0u);
  ASSERT_TRUE(background.failed());
  EXPECT_EQ(*background.failure(), "renewals: boom");
  EXPECT_EQ(hooked, "renewals: boom");
  // A hook set after the failure hears of it at once.
  std::string late;
  background.SetOnFailure([&](const std::string& failure) { late = failure; });
  EXPECT_EQ(late, "renewals: boom");
  EXPECT_FALSE(BackgroundTasks(other.get_executor()).failed());
}

TEST(BackgroundTasksTest, TasksStillPendingWhenTheContextGoesAreDestroyedQuietly) {
  int done = 0;
  {
    asio::io_context io;
    BackgroundTasks(io.get_executor()).Spawn("forever", Rounds(1'000'000, &done));
    io.run_one();
  }
  EXPECT_EQ(done, 0);
}

}  // namespace
}  // namespace locksmith
