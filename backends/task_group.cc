#include "backends/task_group.h"

#include <exception>
#include <mutex>
#include <optional>

#include <boost/asio/co_spawn.hpp>
#include <boost/asio/execution_context.hpp>
#include <boost/asio/redirect_error.hpp>
#include <boost/asio/use_awaitable.hpp>

namespace locksmith {
namespace asio = boost::asio;

std::string DescribeException(std::exception_ptr error) {
  try {
    std::rethrow_exception(error);
  } catch (const std::exception& e) {
    return e.what();
  } catch (...) {
    return "an exception that is not a std::exception";
  }
}

TaskGroup::TaskGroup(asio::any_io_executor executor,
                     std::function<void(const std::string&)> on_failure)
    : all_ended_(executor, asio::steady_timer::time_point::max()),
      on_failure_(std::move(on_failure)) {}

void TaskGroup::Spawn(std::string name, asio::awaitable<void> task) {
  ++running_;
  // co_spawn may run the task to its end (and this handler) before it
  // returns: running_ is counted first so Wait never sees a false zero.
  asio::co_spawn(all_ended_.get_executor(), std::move(task),
                 [this, name = std::move(name)](std::exception_ptr error) { Ended(name, error); });
}

void TaskGroup::Ended(const std::string& name, std::exception_ptr error) {
  if (error && !failure_) {
    failure_ = name + ": " + DescribeException(error);
    if (on_failure_) on_failure_(*failure_);
  }
  if (--running_ == 0) all_ended_.cancel();
}

void TaskGroup::SetOnFailure(std::function<void(const std::string&)> on_failure) {
  on_failure_ = std::move(on_failure);
  if (failure_ && on_failure_) on_failure_(*failure_);
}

namespace {

// Holds an execution context's background group. The group goes in
// shutdown(), while the services its timer uses are still there (they may
// have been made after this one, and so be destroyed before it).
class BackgroundTaskService : public asio::execution_context::service {
 public:
  static asio::execution_context::id id;

  explicit BackgroundTaskService(asio::execution_context& context) : service(context) {}

  TaskGroup& Group(const asio::any_io_executor& executor) {
    std::lock_guard<std::mutex> lock(mu_);
    if (!group_) group_.emplace(executor);
    return *group_;
  }

 private:
  void shutdown() override {
    std::lock_guard<std::mutex> lock(mu_);
    group_.reset();
  }

  std::mutex mu_;
  std::optional<TaskGroup> group_;
};

asio::execution_context::id BackgroundTaskService::id;

}  // namespace

TaskGroup& BackgroundTasks(const asio::any_io_executor& executor) {
  asio::execution_context& context = asio::query(executor, asio::execution::context);
  return asio::use_service<BackgroundTaskService>(context).Group(executor);
}

asio::awaitable<Status> TaskGroup::Wait() {
  // One thread: nothing runs between the check and posting the wait.
  while (running_ > 0) {
    boost::system::error_code ec;
    co_await all_ended_.async_wait(asio::redirect_error(asio::use_awaitable, ec));
  }
  if (failure_) co_return Error{*failure_};
  co_return OkStatus();
}

}  // namespace locksmith
