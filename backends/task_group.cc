#include "workloads/task_group.h"

#include <exception>

#include <boost/asio/co_spawn.hpp>
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
