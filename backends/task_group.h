// TaskGroup: coroutines spawned on one io_context whose failures cannot be
// lost. `co_spawn(..., detached)` drops what a coroutine throws (Boost 1.81's
// detached handler ignores the exception), so a worker that throws would
// vanish silently and whoever counts running workers would wait forever.
// Every coroutine the run and the workloads start goes through Spawn, whose
// completion handler records the first exception, calls the failure hook
// (so the others can stop early) and counts the task as ended; Wait returns
// once every task has ended, with the first failure as an error.
// Used on the io_context's one thread; not thread-safe.
//
// BackgroundTasks(executor) is the group an execution context keeps for the
// coroutines objects start on their own and nobody awaits (a connection's
// read loop, a watchdog's renewals, a Sentinel subscription): they are
// spawned there instead of detached, so what one throws is recorded, and
// whoever runs the context (the run) sets its failure hook, reads its
// failure after run() and fails with it. Made on first use, destroyed with
// the context; the lookup is thread-safe.
#pragma once

#include <cstddef>
#include <functional>
#include <optional>
#include <string>

#include <boost/asio/any_io_executor.hpp>
#include <boost/asio/awaitable.hpp>
#include <boost/asio/steady_timer.hpp>

#include "base/result.h"

namespace locksmith {

class TaskGroup {
 public:
  // `on_failure` runs once, on the first task that throws (may be empty).
  explicit TaskGroup(boost::asio::any_io_executor executor,
                     std::function<void(const std::string&)> on_failure = {});
  TaskGroup(const TaskGroup&) = delete;
  TaskGroup& operator=(const TaskGroup&) = delete;

  // Starts `task`; `name` labels its failure ("worker 3: what()").
  void Spawn(std::string name, boost::asio::awaitable<void> task);
  // Suspends until every spawned task has ended; the first failure, if any.
  boost::asio::awaitable<Status> Wait();
  // Replaces the failure hook; runs at once when a task already failed.
  void SetOnFailure(std::function<void(const std::string&)> on_failure);

  size_t running() const { return running_; }
  bool failed() const { return failure_.has_value(); }
  const std::optional<std::string>& failure() const { return failure_; }

 private:
  void Ended(const std::string& name, std::exception_ptr error);

  boost::asio::steady_timer all_ended_;
  std::function<void(const std::string&)> on_failure_;
  size_t running_ = 0;
  std::optional<std::string> failure_;
};

// The background group of the execution context `executor` belongs to.
TaskGroup& BackgroundTasks(const boost::asio::any_io_executor& executor);

// "what()" of an exception_ptr, for failure messages.
std::string DescribeException(std::exception_ptr error);

}  // namespace locksmith
